import { type PortalClient, productsPortal, shipmentsPortal, stockPortal } from '../api/index.ts';
import { type Config, dataPaths } from '../config/index.ts';
import type { Clock } from '../domain/clock.ts';
import { createIngestion } from '../inventory/index.ts';
import type { Services } from '../jobs/deps.ts';
import type { Logger } from '../log/logger.ts';
import { createProducts } from '../products/index.ts';
import { createRetention } from '../retention/index.ts';
import { createShipments } from '../shipments/index.ts';
import type { StateDb } from '../state/db.ts';
import { createStockSync } from '../sync/index.ts';
import type { SettingsFiles } from './settingsFiles.ts';

export interface ServiceParts {
  readonly config: Config;
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly client: PortalClient;
  /** Aborts on shutdown. */
  readonly signal: AbortSignal;
  readonly settingsFiles: SettingsFiles;
  /** How far sources' times are carried across jumps of the clock back (clockJumps.ts). */
  readonly carriedMs: () => number;
}

/**
 * The flows' services over one state.db and one portal client, each given only its edges: the
 * portal through the port api/ offers it, the settings it reads, state.db, the clock and the log.
 * Where one flow needs another (a full export reads the portal's stock; a first start waits for
 * the files of the start; confirmations' and creations' answers go into their files' reports; a
 * products file is checked against the references the products flow keeps; a product created
 * makes the stock that waited for it due), it is handed the other's operation, never the other
 * service.
 */
export function buildServices(parts: ServiceParts): Services {
  const { config, db, log, clock, client, signal } = parts;
  const { profiles, stockRules } = parts.settingsFiles;
  const retry = {
    baseMs: config.failureBackoffBaseMs,
    maxMs: config.failureBackoffMaxMs,
    notFoundMs: config.notFoundRetryMs,
  };
  const stock = createStockSync({
    db,
    log,
    clock,
    signal,
    portal: stockPortal(client),
    retry,
    reconcileMinIntervalMs: config.reconcileMinIntervalMs,
    mayDecideFirstStart: () => ingestion.startFilesApplied(),
  });
  const ingestion = createIngestion({
    db,
    log,
    clock,
    settings: config,
    distributionCentres: () => client.reference.distributionCentres({ lane: 'stock', signal }),
    readPortalStock: (kind) => stock.readWholeKind(kind),
    ...(profiles ? { profiles: () => profiles.current().profiles } : {}),
    locations: () => stockRules.current().locations,
    carriedMs: parts.carriedMs,
    productReferences: () => products.references(),
  });
  const products = createProducts({
    db,
    log,
    clock,
    signal,
    portal: productsPortal(client),
    stockRules: () => stockRules.current(),
    productsAppeared: (appeared) => stock.productsAppeared(appeared),
    onFilesAnswered: (fileIds) => ingestion.updateProductReports(fileIds),
    outboxDir: dataPaths(config.dataDir).outbox,
    reviewIntervalMs: config.catalogueReviewIntervalMs,
  });
  const shipments = createShipments({
    db,
    log,
    clock,
    signal,
    portal: shipmentsPortal(client),
    outbox: { dir: dataPaths(config.dataDir).outbox, format: config.outboxFormat },
    retry,
    watch: {
      timezone: config.timezone,
      deadline: config.shipmentsDeadline,
      confirmWarnMs: config.shipmentsConfirmWarnMs,
    },
    onFilesAnswered: (fileIds) => ingestion.updateConfirmationReports(fileIds),
  });
  const retention = createRetention({
    db,
    log,
    clock,
    retentionDays: config.retentionDays,
    pruneFiles: (cutoff, keep) => ingestion.pruneHandledFiles(cutoff, keep),
  });
  return { ingestion, stock, shipments, retention, products };
}
