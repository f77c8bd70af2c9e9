import { join } from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import type { Lane, ProbeSchedule } from '../../src/api/budget/decide.ts';
import { createPortalClient, type PortalClient, type PortalSettings } from '../../src/api/index.ts';
import type { Clock } from '../../src/domain/clock.ts';
import { failurePolicy } from '../../src/failures/failurePolicy.ts';
import { createLogger } from '../../src/log/logger.ts';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD } from '../../src/simulator/seed.ts';
import { openStateDb, type StateDb } from '../../src/state/db.ts';
import { makeSandbox, type Sandbox } from '../helpers/sandbox.ts';

export { DEFAULT_EMAIL, DEFAULT_PASSWORD };

/** Small, fast settings: tests must not wait seconds for a back-off. */
export const TEST_SETTINGS: PortalSettings = {
  requestsPerHour: 1000,
  loginsPerHour: 10,
  stockReserve: 0,
  reconcileReserve: 0,
  pollReserve: 0,
  requestTimeoutMs: 2000,
  retryLimit: 3,
  backoffBaseMs: 5,
  backoffMaxMs: 50,
  bulkBatchSize: 1000,
  reloginBaseMs: 30_000,
  heldTokenRetryMs: 60_000,
};

/** Every line the clients of a test wrote, parsed. */
export class LogCapture {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk, _enc, done) => {
      this.lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  readonly logger = createLogger({ destination: this.stream, level: 'debug', pretty: false });

  events(name?: string): Array<Record<string, unknown>> {
    const all = this.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    return name === undefined ? all : all.filter((e) => e.event === name);
  }

  /** No password, no token (given or of the simulator's shape) in any line. */
  expectNoSecrets(secrets: Iterable<string>): void {
    const text = this.lines.join('\n');
    for (const s of secrets) expect(text.includes(s), 'a secret appears in the logs').toBe(false);
    expect(text).not.toMatch(/\d+\|[A-Za-z0-9_-]{40}/);
  }
}

/** Real time, but waits are recorded; `onSleep` may act during a wait (a test's hook). */
export class RecordingClock implements Clock {
  readonly waits: number[] = [];
  /** When set, sleeping is instant (the recorded waits are what the test checks). */
  instant: boolean;
  onSleep: ((ms: number) => Promise<void> | void) | undefined;

  constructor(instant = true) {
    this.instant = instant;
  }

  now(): number {
    return Date.now();
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.waits.push(ms);
    if (signal?.aborted) throw signal.reason;
    await this.onSleep?.(ms);
    if (!this.instant) await new Promise((r) => setTimeout(r, ms));
  }
}

/** A clock the test moves by hand; sleeping moves it too. */
export class MovedClock implements Clock {
  at: number;

  constructor(at = Date.now()) {
    this.at = at;
  }

  now(): number {
    return this.at;
  }

  async sleep(ms: number): Promise<void> {
    this.at += ms;
  }
}

/**
 * Runs `call` until it succeeds, coming back at the time of each `wait` the failure policy
 * answers, as a job worker would (moving the clock there); any other failure is thrown. Returns
 * how long each wait was.
 */
export async function untilDone(
  call: () => Promise<unknown>,
  clock: MovedClock,
): Promise<number[]> {
  const waits: number[] = [];
  for (;;) {
    try {
      await call();
      return waits;
    } catch (err) {
      const action = failurePolicy(err);
      if (action.kind !== 'wait') throw err;
      waits.push(action.until - clock.at);
      clock.at = action.until;
    }
  }
}

export interface Harness {
  readonly sandbox: Sandbox;
  readonly dbPath: string;
  readonly logs: LogCapture;
  /** Opens another handle on the same state.db (another "process"). */
  openDb(): StateDb;
  client(options?: ClientOverrides): PortalClient;
  /** Closes every client and database opened here, and the sandbox. */
  cleanup(): Promise<void>;
}

export interface ClientOverrides {
  readonly settings?: Partial<PortalSettings>;
  readonly clock?: Clock;
  readonly password?: string;
  readonly email?: string;
  readonly lane?: Lane;
  readonly db?: StateDb;
  readonly serverProbe?: ProbeSchedule;
}

export function harness(sim: Simulator, label = 'api'): Harness {
  const sandbox = makeSandbox(label);
  const dbPath = join(sandbox.dataDir, 'state.db');
  const logs = new LogCapture();
  const dbs: StateDb[] = [];
  const clients: PortalClient[] = [];
  const openDb = () => {
    const db = openStateDb(dbPath);
    dbs.push(db);
    return db;
  };
  return {
    sandbox,
    dbPath,
    logs,
    openDb,
    client(o = {}) {
      const client = createPortalClient({
        baseUrl: sim.baseUrl,
        email: o.email ?? DEFAULT_EMAIL,
        password: o.password ?? DEFAULT_PASSWORD,
        db: o.db ?? openDb(),
        log: logs.logger,
        settings: { ...TEST_SETTINGS, ...o.settings },
        ...(o.clock ? { clock: o.clock } : {}),
        ...(o.lane ? { lane: o.lane } : {}),
        ...(o.serverProbe ? { serverProbe: o.serverProbe } : {}),
      });
      clients.push(client);
      return client;
    },
    async cleanup() {
      for (const c of clients) c.close();
      for (const db of dbs) db.close();
      await sandbox.cleanup();
    },
  };
}

export function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ port: 0, products: 200, shipments: 20, ...options });
}

/** Requests the simulator saw on a route ('GET /brands'). */
export function seen(sim: Simulator, route: string): number {
  return sim.stats().byRoute[route] ?? 0;
}

/** Captures a rejection for inspection. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}
