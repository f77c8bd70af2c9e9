import type { Config } from '../config/index.ts';
import { readStockRulesFile } from '../config/stockRulesFile.ts';
import { parseKeyString, type StockKey } from '../domain/stock.ts';
import {
  type RejectResult,
  type ReleaseResult,
  rejectHeld,
  releaseHeld,
} from '../inventory/index.ts';
import type { Nudges } from '../jobs/nudges.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { setStockRules } from '../state/stock/ruleOffers.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';

/**
 * What an operator does to the daemon's state: release or reject what the guard rails hold, put
 * failures back in line. The commands (`release`, `reject`, `failures retry`) and the console's
 * buttons call these same functions, so that the terminal and the browser cannot disagree; the
 * caller says how the running daemon is asked for the work that follows (`nudge`).
 *
 * Pause and resume belong here too, as two more functions of this module (the console's routes
 * and pages have a marked place for them: see src/daemon/console/routes.ts, "PAUSE/RESUME").
 */
export interface ActionDeps {
  readonly db: StateDb;
  readonly config: Pick<Config, 'dataDir' | 'stockRulesFile'>;
  readonly now: () => number;
  /** Where the decisions are logged (`held.released`, `held.rejected`); none: not logged. */
  readonly log?: Logger | undefined;
  /**
   * Asks the running daemon for work (a push, a confirm); false when it could not be asked (Redis
   * away): the daemon's periodic recovery finds the work in state.db anyway.
   */
  readonly nudge: (ask: (n: Nudges) => Promise<unknown>) => Promise<boolean>;
}

export type ReleaseOutcome =
  | Extract<ReleaseResult, { source: 'file' }>
  | (Extract<ReleaseResult, { source: 'snapshot' }> & { readonly daemonNudged: boolean });

/**
 * `release ID`: applies what the guard rails hold as it stands. A file goes back to inbox/ (the
 * daemon reads it again and applies it); a snapshot read is applied here, with the stock rules
 * the daemon applies (STOCK_RULES_FILE), and the daemon is asked to push. Throws
 * HeldDecisionError (code unknown, decided, file_gone) when there is nothing to release.
 */
export async function release(deps: ActionDeps, id: number): Promise<ReleaseOutcome> {
  const { db, config } = deps;
  if (config.stockRulesFile) setStockRules(db, readStockRulesFile(config.stockRulesFile).rules);
  const result = await releaseHeld(
    { db, dataDir: config.dataDir, now: deps.now, ...(deps.log ? { log: deps.log } : {}) },
    id,
  );
  if (result.source === 'file') return result;
  const daemonNudged = await deps.nudge((n) => n.push(`release ${id}`));
  return { ...result, daemonNudged };
}

/**
 * `reject ID`: a held file moves to failed/ with its report saying so; a held snapshot read is
 * dropped. Throws HeldDecisionError when there is nothing to reject.
 */
export function reject(deps: ActionDeps, id: number): Promise<RejectResult> {
  return rejectHeld(
    {
      db: deps.db,
      dataDir: deps.config.dataDir,
      now: deps.now,
      ...(deps.log ? { log: deps.log } : {}),
    },
    id,
  );
}

/** The keys `failures` lists: `factory:SKU`, `dc:CODE:SKU`, `shipment:ORDER:shipped|collected`. */
export interface FailureKeys {
  readonly stock: StockKey[];
  readonly confirmations: Array<{ orderNumber: string; action: string }>;
  /** Texts that are no failure key. */
  readonly invalid: string[];
}

export function parseFailureKeys(keys: readonly string[]): FailureKeys {
  const out: FailureKeys = { stock: [], confirmations: [], invalid: [] };
  for (const key of keys) {
    const m = /^shipment:(.+):(shipped|collected)$/.exec(key);
    const parsed = m ? undefined : parseKeyString(key);
    if (m) out.confirmations.push({ orderNumber: m[1]!, action: m[2]! });
    else if (parsed) out.stock.push(parsed);
    else out.invalid.push(key);
  }
  return out;
}

export interface RetryOutcome {
  /** Stock failures put back in line. */
  readonly stock: number;
  /** Confirmations put back in line. */
  readonly confirmations: number;
  readonly daemonNudged: boolean;
}

/**
 * `failures retry`: every failure (`all`), or those named, are due now; the daemon is asked to
 * push and to confirm. Keys that are not failures are counted out (stock + confirmations fall
 * short of the keys given).
 */
export async function retryFailures(
  deps: ActionDeps,
  target: 'all' | Pick<FailureKeys, 'stock' | 'confirmations'>,
): Promise<RetryOutcome> {
  const now = deps.now();
  const stock = new StockFailures(deps.db).retryNow(target === 'all' ? 'all' : target.stock, now);
  const confirmations = new ConfirmationSends(deps.db).retryNow(
    target === 'all' ? 'all' : target.confirmations,
    now,
  );
  const daemonNudged = await deps.nudge(async (n) => {
    if (stock > 0) await n.push('failures retry');
    if (confirmations > 0) await n.confirm('failures retry');
  });
  return { stock, confirmations, daemonNudged };
}
