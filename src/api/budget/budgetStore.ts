import { type Reserve, reserveCalls } from '../../config/settingTypes.ts';
import type { Clock } from '../../domain/clock.ts';
import type { Logger } from '../../log/logger.ts';
import { CallLog } from '../../state/calls/callLog.ts';
import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { BudgetExhaustedError, ClientClosedError } from '../portalErrors.ts';
import {
  type CallDecision,
  DEFAULT_PROBE,
  decideCall,
  effectiveReserve,
  HOUR_MS,
  LANES,
  type Lane,
  nextHint,
  type ProbeSchedule,
  type ServerHint,
} from './decide.ts';

/** The settings the budget reads (a frozen Config satisfies this). */
export interface BudgetSettings {
  /** Calls (all but login) allowed in any rolling hour, across processes on one data dir. */
  readonly requestsPerHour: number;
  /** What the 'stock' lane leaves for shipment confirmations: calls, or a share of the hour. */
  readonly stockReserve: Reserve;
  /** What the 'reconcile' lane leaves for shipments and stock. */
  readonly reconcileReserve: Reserve;
  /** What shipment polls leave for stock pushes on top of the stock reserve (absent: none). */
  readonly pollReserve?: Reserve;
  /** What product creations leave on top of what polls leave (absent: none). */
  readonly productsReserve?: Reserve;
}

const SERVER_HINT_KEY = 'api.server_rate';
const PRUNE_EVERY_MS = 60_000;
/**
 * Calls are kept two hours: the last hour is the budget's window; the hour before it says which
 * calls the portal has given back since its last x-ratelimit-remaining (a hint lives an hour).
 */
const KEPT_MS = 2 * HOUR_MS;

/**
 * Calls stamped ahead of `now`, and the portal's count taken then (the clock went back since),
 * are stamped `now`: once, so that they leave the rolling hour within an hour of real time
 * (clamping them at every read instead would keep them counting for ever). Returns how many calls.
 */
export function restampCallsAhead(log: CallLog, kv: KeyValueStore, now: number): number {
  kv.update(SERVER_HINT_KEY, (h) => ({ ...h, at: Math.min(h.at, now) }), now);
  return log.restampAhead(now);
}

/**
 * What each lane leaves unspent, in calls, at the configured hourly budget: reserves given as
 * shares scale with it. 'operator' (the `api` CLI) is ranked with stock pushes: a person at a
 * terminal may act while the daemon runs, but never eats the shipments' reserve. Shipment polls
 * leave the stock reserve and their own on top: however often they run, pushes keep a share.
 * Product creations leave what polls leave and their own share on top, so that polls and pushes
 * go first whatever a catalogue of new products costs.
 */
export function laneReserve(lane: Lane, s: BudgetSettings): number {
  const calls = (r: Reserve | undefined) =>
    r === undefined ? 0 : reserveCalls(r, s.requestsPerHour);
  switch (lane) {
    case 'shipments':
      return 0;
    case 'poll':
      return calls(s.stockReserve) + calls(s.pollReserve);
    case 'operator':
    case 'stock':
      return calls(s.stockReserve);
    case 'products':
      return calls(s.stockReserve) + calls(s.pollReserve) + calls(s.productsReserve);
    case 'reconcile':
      return calls(s.reconcileReserve);
  }
}

export interface CallBudgetDeps {
  readonly settings: BudgetSettings;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Back-off of probes once the portal said 0 calls remain; DEFAULT_PROBE unless a test says. */
  readonly probe?: ProbeSchedule | undefined;
}

/**
 * The call budget in state.db: reserving a slot is one IMMEDIATE transaction (count the calls of
 * the last hour, insert when allowed), so processes sharing the data dir can never overspend.
 */
export class CallBudget {
  readonly #log: CallLog;
  readonly #kv: KeyValueStore;
  readonly #reserveTx;
  readonly #hintTx;
  readonly #settings: BudgetSettings;
  readonly #clock: Clock;
  readonly #logger: Logger;
  #lastPrune = 0;

  constructor(db: StateDb, deps: CallBudgetDeps) {
    this.#log = new CallLog(db);
    this.#kv = new KeyValueStore(db);
    const { settings, probe = DEFAULT_PROBE } = deps;
    this.#settings = settings;
    this.#clock = deps.clock;
    this.#logger = deps.logger;
    this.#reserveTx = db.transaction(
      (lane: Lane, now: number, ignoreServer: boolean): CallDecision => {
        // Calls stamped ahead of the clock (it went back) count from now: re-stamped once, here.
        restampCallsAhead(this.#log, this.#kv, now);
        if (now - this.#lastPrune > PRUNE_EVERY_MS) {
          this.#log.prune(now - KEPT_MS);
          this.#lastPrune = now;
        }
        const decision = decideCall({
          calls: this.#log.timesSince(now - KEPT_MS),
          limit: settings.requestsPerHour,
          reserve: laneReserve(lane, settings),
          now,
          server: this.#kv.get(SERVER_HINT_KEY),
          ignoreServer,
          probe,
        });
        if (decision.allowed) this.#log.record(now, lane);
        return decision;
      },
    );
    this.#hintTx = db.transaction((remaining: number, limit: number | undefined, now: number) => {
      const previous = this.#kv.get(SERVER_HINT_KEY);
      this.#kv.set(SERVER_HINT_KEY, nextHint(previous, remaining, limit, now), now);
    });
  }

  /** Takes one slot for `lane` when the budget allows; the decision says when otherwise. */
  tryReserve(lane: Lane, ignoreServer = false): CallDecision {
    return this.#reserveTx.immediate(lane, this.#clock.now(), ignoreServer);
  }

  /**
   * Takes one slot, or throws BudgetExhaustedError with the time a slot frees; with `wait`, sleeps
   * (on the injected clock) until then and tries again.
   */
  async acquire(
    lane: Lane,
    options: { wait?: boolean; ignoreServer?: boolean; signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    for (;;) {
      if (options.signal?.aborted) throw new ClientClosedError('portal client closed');
      const decision = this.tryReserve(lane, options.ignoreServer ?? false);
      if (decision.allowed) return;
      if (!options.wait) throw new BudgetExhaustedError(lane, decision.retryAt);
      const waitMs = Math.max(1, decision.retryAt - this.#clock.now());
      this.#logger.info(
        {
          event: 'api.budget_wait',
          lane,
          waitMs,
          retryAt: decision.retryAt,
          limitedBy: decision.limitedBy,
        },
        'call budget spent; waiting',
      );
      try {
        await this.#clock.sleep(waitMs, options.signal);
      } catch {
        throw new ClientClosedError('portal client closed while waiting for budget');
      }
    }
  }

  /** Persists x-ratelimit-remaining / -limit from an answer so every process sees them. */
  noteServer(remaining: number, limit: number | undefined): void {
    this.#hintTx.immediate(remaining, limit, this.#clock.now());
  }

  get settings(): BudgetSettings {
    return this.#settings;
  }
}

export interface BudgetStatus {
  /** Calls recorded in the last rolling hour. */
  readonly usedLastHour: number;
  readonly limit: number;
  /** Calls each lane may still make now (the stricter of client count and server hint). */
  readonly remainingByLane: Readonly<Record<Lane, number>>;
  /** Lanes that may make no call now, and why (for `status`). */
  readonly starved: readonly StarvedLane[];
  /** Epoch ms when the oldest call of the window leaves it (a slot frees); null when none. */
  readonly freesAt: number | null;
  /** What the portal last said, if anything within the hour. */
  readonly server: ServerHint | null;
}

export interface StarvedLane {
  readonly lane: Lane;
  /** Epoch ms when the lane may call again, as the budget sees it now. */
  readonly until: number;
  readonly reason: string;
}

/** The setting that holds each lane's reserve, as the reasons name it. */
const RESERVE_KEY: Record<Lane, string | null> = {
  shipments: null,
  poll: 'API_STOCK_RESERVE + API_POLL_RESERVE',
  operator: 'API_STOCK_RESERVE',
  stock: 'API_STOCK_RESERVE',
  products: 'API_STOCK_RESERVE + API_POLL_RESERVE + API_PRODUCTS_RESERVE',
  reconcile: 'API_RECONCILE_RESERVE',
};

/** Why a lane that may make no call now is held, in words (pure). */
export function starvedReason(
  lane: Lane,
  decision: CallDecision,
  reserve: number,
  limit: number,
  byLane: Readonly<Record<string, number>>,
): string {
  const key = RESERVE_KEY[lane];
  const keeps = key === null ? '' : ` less ${reserve} kept by ${key}`;
  if (decision.limitedBy === 'server') {
    return `the portal's own count (x-ratelimit-remaining) leaves nothing beyond the ${reserve} calls this lane must leave to others`;
  }
  const who = Object.entries(byLane)
    .filter(([, n]) => n > 0)
    .map(([l, n]) => `${l} ${n}`)
    .join(', ');
  return `the last hour's ${decision.used} calls (${who}) take all this lane may use: ${limit - reserve} of API_REQUESTS_PER_HOUR ${limit}${keeps}`;
}

/** The budget as the `status` command shows it; reads only. */
export function budgetStatus(
  db: StateDb,
  config: BudgetSettings,
  now: number,
  probe: ProbeSchedule = DEFAULT_PROBE,
): BudgetStatus {
  const log = new CallLog(db);
  const kept = log.timesSince(now - KEPT_MS);
  const calls = kept.filter((t) => t > now - HOUR_MS);
  const hint = new KeyValueStore(db).get(SERVER_HINT_KEY);
  const server = hint !== undefined && now < hint.at + HOUR_MS ? hint : undefined;
  const byLane = log.countByLaneSince(now - HOUR_MS);
  const starved: StarvedLane[] = [];
  const remainingByLane = Object.fromEntries(
    LANES.map((lane) => {
      const reserve = laneReserve(lane, config);
      const decision = decideCall({
        calls: kept,
        limit: config.requestsPerHour,
        reserve,
        now,
        server,
        probe,
      });
      if (!decision.allowed) {
        starved.push({
          lane,
          until: decision.retryAt,
          reason: starvedReason(
            lane,
            decision,
            effectiveReserve(config.requestsPerHour, reserve),
            config.requestsPerHour,
            byLane,
          ),
        });
      }
      return [lane, decision.remaining];
    }),
  ) as Record<Lane, number>;
  return {
    usedLastHour: calls.length,
    limit: config.requestsPerHour,
    remainingByLane,
    starved,
    freesAt: calls[0] === undefined ? null : calls[0] + HOUR_MS,
    server: server ?? null,
  };
}
