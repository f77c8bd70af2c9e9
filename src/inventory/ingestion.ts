import { dataPaths, inboxFilePath } from '../config/dataPaths.ts';
import type { Config } from '../config/index.ts';
import type { Profile } from '../config/profiles.ts';
import type { CatalogueReferences } from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import type { PrunedFiles } from '../domain/prunedFiles.ts';
import type { StockKind } from '../domain/stock.ts';
import type { LocationMap } from '../domain/stockRules.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import { KeyValueStore } from '../state/kv.ts';
import { Catalogue } from '../state/products/catalogueStore.ts';
import type { DistributionCentreRecord } from '../state/stock/distributionCentres.ts';
import { resumeStagedApplies } from './apply/applyStaged.ts';
import { guardThresholds } from './apply/guardFile.ts';
import { pruneHandledFiles } from './inbox/fileRetention.ts';
import { startFilesApplied } from './inbox/startFiles.ts';
import { ingestInboxFile } from './ingest/attempts.ts';
import { updateConfirmationReports } from './ingest/confirmationReports.ts';
import { updateProductReports } from './ingest/productReports.ts';
import { readSnapshot } from './snapshot/read.ts';
import { SnapshotReadError } from './snapshot/snapshotFailure.ts';
import { type SourceEvents, type Sources, startSources } from './sources.ts';
import { createDcDirectory } from './validate/dcDirectory.ts';

/** The settings ingestion reads (never the whole configuration). */
export type IngestionSettings = Pick<
  Config,
  | 'dataDir'
  | 'maxSkuLength'
  | 'inboxMaxRecordBytes'
  | 'inboxStabilityMs'
  | 'inboxPolling'
  | 'inboxPollIntervalMs'
  | 'inboxScanIntervalMs'
  | 'guardZeroPercent'
  | 'guardDropPercent'
  | 'guardMinKeys'
  | 'snapshotDb'
  | 'snapshotFactoryQuery'
  | 'snapshotDcQuery'
  | 'snapshotAbsent'
  | 'timezone'
  | 'catalogueMaxNew'
  | 'imageType'
>;

/** What ingestion needs from around it. */
export interface IngestionEdges {
  readonly db: StateDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly settings: IngestionSettings;
  /** The portal's distribution centres (rows naming a centre the cached list lacks refresh it). */
  readonly distributionCentres: () => Promise<readonly DistributionCentreRecord[]>;
  /**
   * Reads the portal's whole stock of a kind; a full export (`absent: "zero"`,
   * SNAPSHOT_ABSENT=zero) of a kind never read waits for it.
   */
  readonly readPortalStock: (kind: StockKind) => Promise<boolean>;
  /** The inbox profiles in force (re-read when their file changes); unset: none. */
  readonly profiles?: () => readonly Profile[];
  /** The stock rules' `locations` in force (ERP location code → portal DC code). */
  readonly locations: () => LocationMap;
  /**
   * The portal's sites, tax rates and centres, fresh (the products flow keeps them): a products
   * file's rows are checked against them. Unset: not checked.
   */
  readonly productReferences?: () => Promise<CatalogueReferences>;
  /**
   * How far the clock has gone back in all, as the daemon noticed it (ms): files' and snapshot
   * reads' times are carried by it (domain/sourceTime.ts). Unset: 0.
   */
  readonly carriedMs?: () => number;
}

/** What reading an inbox file tells the job that asked for it. */
export interface IngestResult {
  readonly status: string;
  /** Stock rows were stored: a push may have work. */
  readonly stockChanged: boolean;
  /** Confirmations were stored: their sending may have work. */
  readonly confirmationsAdded: boolean;
  /** Products were queued for creation. */
  readonly productsQueued: boolean;
}

/** Ingestion: the ERP's files and snapshot into desired stock and confirmations, exactly once. */
export interface Ingestion {
  /**
   * Reads one inbox file by its name in inbox/ (parse, validate, apply, move, report), recorded
   * as `last.ingest`. A name that is not a plain file name throws.
   */
  ingestFile(name: string): Promise<IngestResult>;
  /** Reads the ERP snapshot (SNAPSHOT_DB) into desired stock; true when keys now differ. */
  readSnapshot(): Promise<boolean>;
  /** Refreshes the cached list of the portal's distribution centres. */
  refreshDistributionCentres(): Promise<void>;
  /**
   * Finishes what a crash left (files half handled, held decisions half done), then watches the
   * inbox and the snapshot, telling `events` of work.
   */
  startSources(events: SourceEvents): Promise<Sources>;
  /** Finishes applies a crash cut short (no Redis needed). */
  resumeStagedApplies(): Promise<number>;
  /**
   * True once every file that was in the inbox when this service was made has left it (or a
   * bounded wait has passed): only then is a first start decided.
   */
  startFilesApplied(): boolean;
  /** Handled files received before `cutoff` (epoch ms), but those whose reports are still owed. */
  pruneHandledFiles(cutoff: number, keep: ReadonlySet<number>): Promise<PrunedFiles>;
  /** Adds the portal's answers to the reports of these confirmations files (by ledger id). */
  updateConfirmationReports(fileIds: readonly number[]): Promise<void>;
  /** Adds the portal's answers to the reports of these products files (by ledger id). */
  updateProductReports(fileIds: readonly number[]): Promise<void>;
}

export function createIngestion(edges: IngestionEdges): Ingestion {
  const { db, log, clock, settings } = edges;
  const dataDir = settings.dataDir;
  const dcDirectory = createDcDirectory({
    db,
    log,
    clock,
    fetchDistributionCentres: edges.distributionCentres,
  });
  const guard = guardThresholds(settings);
  const kv = new KeyValueStore(db);
  const applied = startFilesApplied(dataPaths(dataDir).inbox, clock.now);
  const catalogue = new Catalogue(db);
  const products = {
    imageType: settings.imageType,
    maxNew: settings.catalogueMaxNew,
    references: edges.productReferences ?? (async () => undefined),
    exists: (sku: string) => catalogue.knows(sku),
  };

  return {
    async ingestFile(name) {
      const outcome = await ingestInboxFile(inboxFilePath(dataPaths(dataDir), name), {
        db,
        log,
        dataDir,
        dcDirectory,
        clock,
        maxSkuLength: settings.maxSkuLength,
        maxRecordBytes: settings.inboxMaxRecordBytes,
        locations: edges.locations,
        guard,
        ...(edges.profiles ? { profiles: edges.profiles } : {}),
        readPortalStock: edges.readPortalStock,
        timeZone: settings.timezone,
        products,
        ...(edges.carriedMs ? { carriedMs: edges.carriedMs } : {}),
      });
      kv.set('last.ingest', { at: clock.now(), file: name, outcome: outcome.status });
      return {
        status: outcome.status,
        stockChanged: (outcome.pendingKeys ?? 0) > 0,
        confirmationsAdded: (outcome.confirmations?.new ?? 0) > 0,
        productsQueued: (outcome.productsQueued ?? 0) > 0,
      };
    },

    async readSnapshot() {
      if (!settings.snapshotDb) return false;
      const outcome = await readSnapshot({
        db,
        log,
        clock,
        snapshotDb: settings.snapshotDb,
        factoryQuery: settings.snapshotFactoryQuery,
        dcQuery: settings.snapshotDcQuery,
        dcDirectory,
        maxSkuLength: settings.maxSkuLength,
        locations: edges.locations(),
        absent: settings.snapshotAbsent,
        readPortalStock: edges.readPortalStock,
        dataDir,
        guard,
        ...(edges.carriedMs ? { carriedMs: edges.carriedMs } : {}),
      });
      // A failed read throws, so that its job is retried with back-off; a held read changed
      // nothing (read again on the next change or schedule).
      if (outcome.status === 'failed') throw new SnapshotReadError(outcome.code, outcome.reason);
      if (outcome.status === 'held') return false;
      return outcome.pendingKeys > 0;
    },

    refreshDistributionCentres: () => dcDirectory.refresh(),

    startSources: (events) =>
      startSources(
        {
          db,
          log,
          clock,
          dataDir,
          snapshotDb: settings.snapshotDb,
          watch: {
            stabilityMs: settings.inboxStabilityMs,
            polling: settings.inboxPolling,
            pollIntervalMs: settings.inboxPollIntervalMs,
            scanIntervalMs: settings.inboxScanIntervalMs,
          },
        },
        events,
      ),

    resumeStagedApplies: () => resumeStagedApplies({ db, log, dataDir }),
    startFilesApplied: applied,
    pruneHandledFiles: (cutoff, keep) => pruneHandledFiles({ dataDir, cutoff, keep }),
    updateConfirmationReports: (fileIds) => updateConfirmationReports(db, dataDir, fileIds, log),
    updateProductReports: (fileIds) => updateProductReports(db, dataDir, fileIds, log, clock.now()),
  };
}
