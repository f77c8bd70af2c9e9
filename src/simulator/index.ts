/**
 * The bundled Supplier Portal simulator: a fast, in-memory HTTP implementation of the Supplier
 * Portal API v1 for demos and tests. See docs/simulator.md for every behaviour the spec leaves open.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuth } from './account.ts';
import type { ApiContext, RouteDef } from './context.ts';
import { type FaultControls, FaultEngine } from './faults.ts';
import { checkReviewPolicy, DEFAULT_REVIEW_DELAY_MS, type ReviewMode } from './productBook.ts';
import { createRateWindow, type RateWindowKind } from './rateLimit.ts';
import { Router } from './router.ts';
import { authRoutes } from './routes/auth.ts';
import { brandRoutes } from './routes/brands.ts';
import { dcStockRoutes } from './routes/dcStock.ts';
import { factoryStockRoutes } from './routes/factoryStock.ts';
import { productRoutes } from './routes/products.ts';
import { referenceRoutes } from './routes/reference.ts';
import { shipmentRoutes } from './routes/shipments.ts';
import {
  DEFAULT_EMAIL,
  DEFAULT_PASSWORD,
  DEFAULT_PRODUCTS,
  DEFAULT_SEED,
  DEFAULT_SHIPMENTS,
} from './seed.ts';
import { API_PREFIX, createListener } from './server.ts';
import { type SimulatorStats, StatsCollector } from './stats.ts';
import { SimulatorStore } from './store.ts';

export type { FaultControls, FaultSettings } from './faults.ts';
export type * from './model.ts';
export type { RateWindowKind } from './rateLimit.ts';
export * from './seed.ts';
export type { RequestStat, SimulatorStats } from './stats.ts';
export {
  type NewProduct,
  type NewShipment,
  type ReviewDecision,
  type ReviewMode,
  type ReviewPolicy,
  type ReviewRecord,
  SimulatorStore,
} from './store.ts';

export interface SimulatorOptions {
  /** TCP port; 0 = any free port. Default 0. */
  port?: number;
  /** Interface to listen on. Default '127.0.0.1'. */
  host?: string;
  /** PRNG seed; the same seed and sizes give the same data. Default 1. */
  seed?: number;
  /** Number of seeded products, 0..5,000,000. Default 1000. */
  products?: number;
  /** Number of seeded shipments (relative to today()). Default 20. */
  shipments?: number;
  /** Account e-mail. Default 'supplier@example.com'. */
  email?: string;
  /** Account password. Default 'demo-password'. */
  password?: string;
  /** Budget per window for every /api/v1 endpoint but login. Default 3600. */
  requestsPerHour?: number;
  /** Budget per window for POST /login. Default 10. */
  loginsPerHour?: number;
  /** 'fixed' = aligned clock hours, 'sliding' = the last 3600 s. Default 'fixed'. */
  rateWindow?: RateWindowKind;
  /** Largest bulk-update array accepted. Default 1000; larger → bulkTooLargeStatus. */
  maxBulkItems?: number;
  /** Status of a too-large bulk update. Default 422. */
  bulkTooLargeStatus?: 400 | 413 | 422;
  /** Most rows a filtered list request examines before it returns a (possibly short) page. Default 250,000. */
  maxScanRows?: number;
  /** 'YYYY-MM-DD' the simulator calls today. Default: the current UTC date. */
  today?: () => string;
  /** Clock in ms since the epoch, for rate limits, timestamps and reviews. Default Date.now. */
  now?: () => number;
  /**
   * How a product created through POST /products is reviewed: 'auto' = by the rule (a description
   * under 100 characters is declined, the rest activated) `reviewDelayMs` after its creation;
   * 'manual' = it stays pending until an admin decides. Default 'auto'.
   */
  review?: ReviewMode;
  /** Time from creation to the automatic review, ms of the `now` clock; 0 = on the next read. Default 5000. */
  reviewDelayMs?: number;
  /** Receives one object per request ({event: 'simulator.request', …}). Default: silent. */
  log?: (line: Record<string, unknown>) => void;
}

export interface Simulator {
  /** e.g. 'http://127.0.0.1:PORT/api/v1' */
  readonly baseUrl: string;
  /** e.g. 'http://127.0.0.1:PORT' */
  readonly origin: string;
  readonly port: number;
  /** In-process accessor to the state. */
  readonly store: SimulatorStore;
  /** The same knobs as the admin endpoint. */
  readonly faults: FaultControls;
  stats(): SimulatorStats;
  resetStats(): void;
  /** Every token the account was issued, oldest first (tests check that none leaks). */
  issuedTokens(): readonly string[];
  /** Closes the server and every keep-alive socket promptly. */
  close(): Promise<void>;
}

const ROUTES: readonly RouteDef[] = [
  ...authRoutes,
  ...brandRoutes,
  ...productRoutes,
  ...referenceRoutes,
  ...dcStockRoutes,
  ...factoryStockRoutes,
  ...shipmentRoutes,
];

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(
      `simulator option ${name} must be an integer in ${min}..${max}; got ${value}`,
    );
  }
  return value;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const now = options.now ?? Date.now;
  const today = options.today ?? (() => new Date(now()).toISOString().slice(0, 10));
  const seed = checkInt('seed', options.seed ?? DEFAULT_SEED, 0, 2 ** 32 - 1);
  const products = checkInt('products', options.products ?? DEFAULT_PRODUCTS, 0, 5_000_000);
  const shipments = checkInt('shipments', options.shipments ?? DEFAULT_SHIPMENTS, 0, 100_000);
  const requestsPerHour = checkInt('requestsPerHour', options.requestsPerHour ?? 3600, 1, 1e9);
  const loginsPerHour = checkInt('loginsPerHour', options.loginsPerHour ?? 10, 1, 1e9);
  const maxBulkItems = checkInt('maxBulkItems', options.maxBulkItems ?? 1000, 1, 1e7);
  const maxScan = checkInt('maxScanRows', options.maxScanRows ?? 250_000, 1, 1e9);
  const port = checkInt('port', options.port ?? 0, 0, 65535);
  const rateWindow = options.rateWindow ?? 'fixed';
  if (rateWindow !== 'fixed' && rateWindow !== 'sliding') {
    throw new RangeError(`simulator option rateWindow must be 'fixed' or 'sliding'`);
  }
  const bulkTooLargeStatus = options.bulkTooLargeStatus ?? 422;
  if (![400, 413, 422].includes(bulkTooLargeStatus)) {
    throw new RangeError('simulator option bulkTooLargeStatus must be 400, 413 or 422');
  }
  const host = options.host ?? '127.0.0.1';
  const review = {
    mode: options.review ?? 'auto',
    delayMs: options.reviewDelayMs ?? DEFAULT_REVIEW_DELAY_MS,
  };
  checkReviewPolicy(review);

  const store = new SimulatorStore({ seed, products, shipments, today, now, review });
  const auth = createAuth(options.email ?? DEFAULT_EMAIL, options.password ?? DEFAULT_PASSWORD);
  const faultEngine = new FaultEngine(seed);
  const stats = new StatsCollector();
  const ctx: ApiContext = {
    store,
    now,
    today,
    maxBulkItems,
    bulkTooLargeStatus,
    maxScan,
    auth,
    knobs: () => faultEngine.current(),
  };
  const closing = new AbortController();
  const server = createServer(
    { keepAlive: true },
    createListener({
      ctx,
      router: new Router(ROUTES),
      faults: faultEngine,
      requestWindow: createRateWindow(rateWindow, requestsPerHour),
      loginWindow: createRateWindow(rateWindow, loginsPerHour),
      stats,
      admin: { store, stats, faults: faultEngine, invalidateTokens: () => auth.invalidateAll() },
      closing: closing.signal,
      log: options.log,
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const origin = `http://${hostPart}:${address.port}`;

  const faults: FaultControls = {
    set: (f) => faultEngine.set(f),
    clear: () => faultEngine.clear(),
    invalidateTokens: () => auth.invalidateAll(),
    current: () => faultEngine.current(),
  };
  let closed: Promise<void> | null = null;

  return {
    baseUrl: `${origin}${API_PREFIX}`,
    origin,
    port: address.port,
    store,
    faults,
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    issuedTokens: () => auth.issuedTokens(),
    close() {
      closed ??= new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
