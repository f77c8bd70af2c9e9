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
import { KeyValueStore } from '../state/kv.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { setStockRules } from '../state/stock/ruleOffers.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';

/**
 * What an operator does to the daemon's state: release or reject what the guard rails hold, put
 * failures back in line. The commands (`release`, `reject`, `failures retry`) and the console's
 * buttons call these same functions, so that the terminal and the browser cannot disagree; the
 * caller says how the running daemon is asked for the work that follows (`nudge`).
 * `pause` and `resume` stop and start the pushes.
 *
 * A command does not call these beside a running daemon: it asks the daemon that holds the data
 * dir's writer lock to call them (see requests.ts), and calls them itself only when no daemon
 * runs.
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

export interface PauseOutcome {
  /** Epoch ms since when pushes are paused (an earlier pause's, when it was paused already). */
  readonly since: number;
  readonly reason: string | null;
  /** It was paused already: the reason is updated, `since` kept. */
  readonly already: boolean;
}

/**
 * `pause [--reason TEXT]`: nothing is written to the portal until `resume` (files are still
 * read, checked and applied to desired stock; shipment polls and confirmations go on). Kept in
 * state.db: it survives restarts.
 */
export function pause(deps: ActionDeps, reason: string | null): PauseOutcome {
  const kv = new KeyValueStore(deps.db);
  const now = deps.now();
  const before = kv.get('sync.paused');
  const since = before?.since ?? now;
  kv.set('sync.paused', { since, reason }, now);
  deps.log?.info(
    { event: 'sync.paused', since: new Date(since).toISOString(), reason },
    `pushes paused${reason ? `: ${reason}` : ''} (resume starts them again)`,
  );
  return { since, reason, already: before !== undefined };
}

export interface ResumeOutcome {
  /** The pause that ended; null when pushes were not paused. */
  readonly pause: { readonly since: number; readonly reason: string | null } | null;
  readonly daemonNudged: boolean;
}

/** `resume`: pushes start again; the daemon is asked to push what waited. */
export async function resume(deps: ActionDeps): Promise<ResumeOutcome> {
  const kv = new KeyValueStore(deps.db);
  const before = kv.get('sync.paused') ?? null;
  kv.delete('sync.paused');
  if (before !== null) {
    deps.log?.info(
      { event: 'sync.resumed', pausedMs: deps.now() - before.since, reason: before.reason },
      'pushes resumed',
    );
  }
  const daemonNudged = await deps.nudge((n) => n.push('resume'));
  return { pause: before, daemonNudged };
}
