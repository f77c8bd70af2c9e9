import type { Config } from '../config/index.ts';
import { type StockRulesFile, watchStockRulesFile } from '../config/stockRulesFile.ts';
import type { WatchedFile, WatchLog } from '../config/watchedFile.ts';
import type { Clock } from '../domain/clock.ts';
import { NO_STOCK_RULES, type StockRuleSet } from '../domain/stockRules.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { type RederiveResult, rederiveOffers, setStockRules } from '../state/stock/ruleOffers.ts';

/**
 * The stock rules of the running daemon (STOCK_RULES_FILE): read at start (a bad file stops the
 * start, exit 78), watched afterwards. Once attached to state.db, every valid change is taken at
 * once: the apply's SQL functions evaluate the new rules, and every stored key's offered quantity
 * is worked out again in one pass (state/stock/ruleOffers.ts); keys whose offer changed are pending
 * and a push is asked for. No file: no rules (keys offered as the ERP counts them; a file
 * removed from the settings undoes its rules at the next start).
 */
export interface StockRulesSource {
  /** The rules now in force (locations for the readers, rules for the apply). */
  current(): StockRuleSet;
  /**
   * Evaluates the rules on `db` from now on, works stored keys out again if they were worked
   * out with other rules, and does so again at every valid change. `onPending` is told how many
   * keys a change made pending.
   */
  attach(db: StateDb, clock: Clock, onPending: (keys: number) => void): RederiveResult;
  /** Reads the file now, as the next interval would (see WatchedFile.check). */
  check(): Promise<void>;
  stop(): void;
}

/** `watchLog` gets the file watch's lines (rules.reloaded, rules.invalid); `log` by default. */
export function loadStockRules(
  config: Config,
  log: Logger,
  watchLog: WatchLog = log,
): StockRulesSource {
  const path = config.stockRulesFile;
  let attached: { db: StateDb; clock: Clock; onPending: (keys: number) => void } | undefined;

  const apply = (file: StockRuleSet, why: string): RederiveResult | undefined => {
    if (attached === undefined) return undefined;
    const { db, clock } = attached;
    const started = clock.now();
    setStockRules(db, file.rules);
    const result = rederiveOffers(db, clock.now());
    if (result.ran) {
      log.info(
        {
          event: 'rules.applied',
          reason: why,
          rules: file.rules.length,
          locations: Object.keys(file.locations).length,
          keysChanged: result.changed,
          offerChanged: result.offerChanged,
          newlyPending: result.newlyPending,
          newlyExcluded: result.newlyExcluded,
          noLongerExcluded: result.noLongerExcluded,
          failuresCleared: result.failuresCleared,
          ms: clock.now() - started,
        },
        `stock rules applied (${why}): ${result.offerChanged} keys offer another quantity`,
      );
    }
    return result;
  };

  const watched: WatchedFile<StockRulesFile> | undefined = path
    ? watchStockRulesFile(path, watchLog, (file) => {
        try {
          const result = apply(file, 'file changed');
          if (result && result.newlyPending > 0) attached?.onPending(result.newlyPending);
        } catch (err) {
          // state.db refused (busy past its timeout, disk full): the rules are in force for new
          // rows; the stored keys are worked out again at the next start or change.
          log.error(
            { event: 'rules.apply_failed', err },
            'could not work the stored keys out again with the new stock rules',
          );
        }
      })
    : undefined;
  if (watched && path) {
    const file = watched.current();
    log.info(
      {
        event: 'rules.loaded',
        file: path,
        rules: file.rules.length,
        locations: Object.keys(file.locations).length,
      },
      `stock rules read from ${path}`,
    );
  }
  const current = (): StockRuleSet => watched?.current() ?? NO_STOCK_RULES;

  return {
    current,
    attach(db, clock, onPending) {
      attached = { db, clock, onPending };
      return apply(current(), 'start')!;
    },
    check: async () => {
      await watched?.check();
    },
    stop() {
      watched?.stop();
    },
  };
}
