import type { Config } from '../config/index.ts';
import { type Clock, systemClock } from '../domain/clock.ts';
import type { Logger } from '../log/logger.ts';
import { registerSecret } from '../log/redact.ts';
import type { StateDb } from '../state/db.ts';
import { Session } from './auth/session.ts';
import { BatchSizes, type BulkKind } from './batchSizes.ts';
import { type BudgetStatus, budgetStatus, CallBudget } from './budget/budgetStore.ts';
import type { Lane, ProbeSchedule } from './budget/decide.ts';
import type { Caller } from './caller.ts';
import { type BrandsApi, brandsApi } from './endpoints/brands.ts';
import { type ProductsApi, productsApi } from './endpoints/products.ts';
import { type ReferenceApi, referenceApi } from './endpoints/reference.ts';
import { type ShipmentsApi, shipmentsApi } from './endpoints/shipments.ts';
import {
  type DcStockApi,
  dcStockApi,
  type FactoryStockApi,
  factoryStockApi,
} from './endpoints/stockLevels.ts';
import { createTransport } from './http.ts';
import { sendCall } from './request.ts';

/** The settings the client reads; a frozen Config satisfies it. */
export type PortalSettings = Pick<
  Config,
  | 'requestsPerHour'
  | 'loginsPerHour'
  | 'stockReserve'
  | 'reconcileReserve'
  | 'pollReserve'
  | 'requestTimeoutMs'
  | 'retryLimit'
  | 'backoffBaseMs'
  | 'backoffMaxMs'
  | 'reloginBaseMs'
  | 'heldTokenRetryMs'
  | 'bulkBatchSize'
> &
  Partial<Pick<Config, 'productsReserve'>>;

export interface PortalClientOptions {
  /** Base URL ending with /api/v1. */
  readonly baseUrl: string;
  readonly email: string;
  readonly password: string;
  /** state.db: token, login attempts, call log, learnt sizes, server hint. */
  readonly db: StateDb;
  readonly log: Logger;
  readonly settings: PortalSettings;
  /** Time and sleeping; the system clock unless a test moves time. */
  readonly clock?: Clock;
  /** Lane of calls that do not name one; 'operator' unless given. */
  readonly lane?: Lane;
  /** Probe back-off once the portal says 0 calls remain (default 1 min doubling to 15 min). */
  readonly serverProbe?: ProbeSchedule;
}

export interface PortalClient {
  readonly brands: BrandsApi;
  readonly products: ProductsApi;
  /** Sites, distribution centres, tax rates. */
  readonly reference: ReferenceApi;
  readonly dcStock: DcStockApi;
  readonly factoryStock: FactoryStockApi;
  readonly shipments: ShipmentsApi;
  /** Makes sure a token is at hand (the stored one, or a login within the cap). */
  ensureToken(): Promise<void>;
  /** Largest batch the bulk update of `kind` sends: min(bulkBatchSize, learnt size). */
  maxBatchSize(kind: BulkKind): number;
  /** Forgets the learnt batch size, of both kinds (one kind's starts the other's). */
  forgetBatchSize(kind: BulkKind): void;
  /** When the batch size of `kind` was last learnt from a refusal; null when nothing is learnt. */
  batchSizeLearntAt(kind: BulkKind): number | null;
  /** Calls used in the last hour and what each lane has left. */
  budget(): BudgetStatus;
  /** Stops waits and closes kept-alive connections; pending calls fail with ClientClosedError. */
  close(): void;
}

/** The options for the daemon: its frozen Config plus its edges. */
export function portalClientOptions(
  config: Config,
  edges: { db: StateDb; log: Logger; clock?: Clock; lane?: Lane },
): PortalClientOptions {
  const { apiUrl, email, password } = config;
  if (!apiUrl || !email || !password) {
    throw new Error('the portal client needs apiUrl, email and password in the configuration');
  }
  return { baseUrl: apiUrl, email, password, settings: config, ...edges };
}

export function createPortalClient(options: PortalClientOptions): PortalClient {
  const { db, log: logger, settings } = options;
  const clock = options.clock ?? systemClock;
  registerSecret(options.password);
  const closing = new AbortController();
  const transport = createTransport({
    baseUrl: options.baseUrl,
    timeoutMs: settings.requestTimeoutMs,
  });
  const session = new Session({
    db,
    transport,
    clock,
    logger,
    email: options.email,
    password: options.password,
    loginsPerHour: settings.loginsPerHour,
    retryLimit: settings.retryLimit,
    backoffBaseMs: settings.backoffBaseMs,
    backoffMaxMs: settings.backoffMaxMs,
    reloginBaseMs: settings.reloginBaseMs,
    heldTokenRetryMs: settings.heldTokenRetryMs,
    signal: closing.signal,
  });
  const budget = new CallBudget(db, { settings, clock, logger, probe: options.serverProbe });
  const requestDeps = {
    transport,
    session,
    budget,
    clock,
    logger,
    retryLimit: settings.retryLimit,
    backoffBaseMs: settings.backoffBaseMs,
    backoffMaxMs: settings.backoffMaxMs,
    defaultLane: options.lane ?? 'operator',
    signal: closing.signal,
  };
  const warned = new Set<string>();
  const caller: Caller = {
    send: (spec, callOptions) => sendCall(requestDeps, spec, callOptions),
    warnOnce: (key, fields, message) => {
      if (warned.has(key)) return;
      warned.add(key);
      logger.warn(fields, message);
    },
  };
  const sizes = new BatchSizes(db, settings.bulkBatchSize);
  const bulkDeps = { caller, sizes, logger, now: () => clock.now() };

  return {
    brands: brandsApi(caller),
    products: productsApi(caller),
    reference: referenceApi(caller),
    dcStock: dcStockApi(bulkDeps),
    factoryStock: factoryStockApi(bulkDeps),
    shipments: shipmentsApi(caller),
    ensureToken: async () => {
      await session.token();
    },
    maxBatchSize: (kind) => sizes.max(kind),
    forgetBatchSize: () => sizes.forget(),
    batchSizeLearntAt: (kind) => sizes.learntAt(kind),
    budget: () => budgetStatus(db, settings, clock.now(), options.serverProbe),
    close: () => {
      closing.abort(new Error('portal client closed'));
      transport.close();
    },
  };
}
