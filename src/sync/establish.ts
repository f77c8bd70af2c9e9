import type { StockWriter } from '../api/index.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey } from '../state/kvKeys.ts';
import { countDesired } from '../state/stock/desiredStock.ts';
import {
  abandonFirstStartRead,
  chooseFirstStart,
  type FirstStartChoice,
} from './decide/firstStart.ts';
import { type ReconcileDeps, reconcileKind, startRead } from './reconcile.ts';

/**
 * Before the first push of a kind, the portal's stock is unknown. Chooses the cheaper way to learn
 * it — read the portal (then push only differences), or push every desired row — logs the choice
 * (`sync.first_start`) and carries it out. Later calls cost nothing.
 *
 * The portal's size is taken from what it said (meta.total, or a read that ended) when it did,
 * else assumed to be about the file's. A read that turns out to cost at least the push (a
 * catalogue much larger than the file) is left for the reconciliation lane to finish, and every
 * desired row is pushed instead (`sync.first_start_switched`): a first push never waits for the
 * whole read of a large catalogue. Reads made here spend the push's share of the budget.
 */
export async function establishRemote(
  deps: ReconcileDeps & {
    readonly writer: StockWriter;
    /**
     * False while files that were in the inbox when the daemon started are not applied yet: no
     * first start is decided before it sees them (each file's apply asks for a push again).
     */
    readonly mayDecide?: () => boolean;
  },
): Promise<FirstStartChoice[]> {
  const kv = new KeyValueStore(deps.db);
  const choices: FirstStartChoice[] = [];
  const undecided = (['factory', 'dc'] as const).some((k) => !kv.get(kvKey.established(k)));
  if (undecided && deps.mayDecide && !deps.mayDecide()) {
    deps.log.info(
      { event: 'sync.first_start_deferred' },
      'first sync decided once the files that were in the inbox at start are applied',
    );
    return choices;
  }
  for (const kind of ['factory', 'dc'] as const) {
    if (kv.get(kvKey.established(kind))) continue;
    const desiredRows = countDesired(deps.db, kind);
    if (desiredRows === 0) continue; // nothing wanted yet: decide when there is
    const batchSize = deps.writer.maxBatchSize(kind);
    const inProgress = kv.get(kvKey.reconcileRead(kind));
    const choice = chooseFirstStart({
      kind,
      desiredRows,
      batchSize,
      portalRows: inProgress?.total ?? null,
      pagesRead: inProgress?.pages ?? 0,
    });
    deps.log.info(
      { event: 'sync.first_start', ...choice, desiredRows, pagesRead: inProgress?.pages ?? 0 },
      `first sync of ${kind} stock: ${choice.choice === 'read' ? 'reading the portal' : 'pushing every desired row'} (read ≈ ${choice.readCalls} calls, push ≈ ${choice.pushCalls})`,
    );
    if (choice.choice === 'read') {
      startRead(deps.db, kind, deps.clock.now(), 'first start');
      const summary = await reconcileKind(
        kind,
        { ...deps, forPush: true },
        {
          reason: 'first start',
          stopAfter: (read) =>
            abandonFirstStartRead({
              kind,
              desiredRows,
              batchSize,
              portalRows: read.total ?? null,
              pagesRead: read.pages,
            }),
        },
      );
      if (deps.signal?.aborted) break;
      if (!summary.complete) {
        deps.log.info(
          {
            event: 'sync.first_start_switched',
            kind,
            pagesRead: summary.pages,
            portalRows: summary.total ?? null,
            desiredRows,
            pushCalls: choice.pushCalls,
          },
          `the portal holds more ${kind} stock than the file suggested: pushing every desired row instead; the reconciliation lane finishes the read`,
        );
        kv.set(kvKey.established(kind), true);
      }
    } else {
      // The push of every row is the kind's starting point: the idle lane's next pass of it is
      // due one RECONCILE_MIN_INTERVAL_MS from now, not at once.
      const now = deps.clock.now();
      kv.set(kvKey.established(kind), true, now);
      kv.set(kvKey.pushedWhole(kind), now, now);
    }
    choices.push(choice);
  }
  return choices;
}
