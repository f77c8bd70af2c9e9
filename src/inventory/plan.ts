import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { BatchSizes } from '../api/batchSizes.ts';
import { dataPaths } from '../config/dataPaths.ts';
import type { Profile } from '../config/profiles.ts';
import type { StockKind } from '../domain/stock.ts';
import { portalStockRead } from '../state/absentStock.ts';
import { classifyConfirmations } from '../state/confirmations.ts';
import { openStateDbReadOnly, type StateDb } from '../state/db.ts';
import { compareWithRemote } from '../state/desiredStock.ts';
import { absentKeys as keysOmitted } from './absent.ts';
import { createDcDirectory } from './dcDirectory.ts';
import { type CollectedFile, collectFile, type RejectedRow } from './ingest/collect.ts';
import type { ReadingFields } from './ingest/report.ts';
import {
  formatOf,
  type InboxFormat,
  type PositionUnit,
  positionUnit,
  SUPPORTED_EXTENSIONS,
} from './parse/records.ts';
import { readPlanFor } from './profiles.ts';
import type { FileKind } from './validate/kinds.ts';

export interface PlanOptions {
  readonly dataDir: string;
  readonly bulkBatchSize: number;
  readonly maxSkuLength: number;
  /** The inbox profiles (INBOX_PROFILES_FILE); none: the defaults. */
  readonly profiles?: readonly Profile[];
}

export interface FilePlan extends Omit<ReadingFields, 'absentZeroed'> {
  readonly file: string;
  readonly readable: boolean;
  /** Why the file would go to failed/ (when not readable). */
  readonly reason?: string;
  readonly format: InboxFormat | null;
  readonly kind: FileKind | null;
  readonly positions: PositionUnit;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly rejected: readonly RejectedRow[];
  readonly rejectedOmitted: number;
  readonly duplicateRows: number;
  readonly ignoredColumns: readonly string[];
  /** Whether a state.db was found (without one nothing is known of the portal). */
  readonly stateDb: boolean;
  /** Whether DC codes were checked against the cached list (only when a list is cached). */
  readonly distributionCentresChecked: boolean;
  /** The file is a full export (its profile says `absent: "zero"`). */
  readonly fullExport: boolean;
  /**
   * Keys a full export would set to 0 by omission; null when the portal's stock of the kind was
   * never read (the daemon reads it first), or when nothing is known (no state.db).
   */
  readonly absentZeroed: number | null;
  readonly stock?: {
    readonly changed: number;
    readonly unchanged: number;
    readonly unknownToPortal: number;
    readonly batchSize: number;
    readonly calls: number;
  };
  readonly confirmations?: {
    readonly new: number;
    readonly duplicate: number;
    readonly conflict: number;
    /** One call per new confirmation (shipment actions are single calls). */
    readonly calls: number;
  };
}

/**
 * A dry run of one file: the same parsing and checks as ingestion, compared with what state.db
 * knows (opened read-only; absent means nothing is known). Writes nothing anywhere.
 */
export async function planFile(path: string, options: PlanOptions): Promise<FilePlan> {
  const name = basename(path);
  const format = formatOf(name);
  const read = readPlanFor(options.profiles ?? [], name);
  const db = openStateDbReadOnly(dataPaths(options.dataDir).stateDb);
  try {
    const base = {
      file: name,
      format: format ?? null,
      positions: format === undefined ? ('line' as const) : positionUnit(format),
      stateDb: db !== undefined,
      profile: read.profile?.match ?? null,
      fullExport: read.absent === 'zero',
    };
    const reading = (c?: Pick<CollectedFile, 'dialect' | 'headerRow' | 'clamped'>) => ({
      encoding: c?.dialect?.encoding ?? null,
      delimiter: c?.dialect?.delimiter ?? null,
      headerLine: c?.dialect?.headerLine ?? c?.headerRow ?? null,
      clamped: c?.clamped ?? 0,
      absentZeroed: read.absent === 'zero' ? null : 0,
    });
    const empty = {
      rowsRead: 0,
      rowsAccepted: 0,
      rowsRejected: 0,
      rejected: [],
      rejectedOmitted: 0,
      duplicateRows: 0,
      ignoredColumns: [],
      distributionCentresChecked: false,
    };
    if (!(await stat(path)).isFile()) {
      return {
        ...base,
        ...empty,
        ...reading(),
        readable: false,
        kind: null,
        reason: 'not a regular file',
      };
    }
    if (format === undefined) {
      return {
        ...base,
        ...empty,
        ...reading(),
        readable: false,
        kind: null,
        reason: `unsupported file extension: use ${SUPPORTED_EXTENSIONS}`,
      };
    }
    const dcs = db ? createDcDirectory({ db }) : undefined;
    const c = await collectFile(createReadStream(path), {
      format,
      maxSkuLength: options.maxSkuLength,
      plan: read,
      ...(dcs && dcs.size > 0 ? { dcDirectory: dcs } : {}),
    });
    if (!c.ok) {
      return {
        ...base,
        ...empty,
        ...reading(c),
        rowsRead: c.rowsRead,
        readable: false,
        kind: c.kind ?? null,
        reason: c.reason,
      };
    }
    const common = {
      ...base,
      readable: c.rowsAccepted > 0,
      ...(c.rowsAccepted > 0 ? {} : { reason: 'every row was rejected' }),
      kind: c.kind,
      rowsRead: c.rowsRead,
      rowsAccepted: c.rowsAccepted,
      rowsRejected: c.rowsRejected,
      rejected: c.rejected,
      rejectedOmitted: c.rejectedOmitted,
      duplicateRows: c.duplicates.rows,
      ignoredColumns: c.ignoredColumns,
      distributionCentresChecked: c.dcChecked,
      ...reading(c),
    };
    if (c.kind === 'shipment_confirmations') {
      return { ...common, absentZeroed: 0, confirmations: planConfirmations(db, c) };
    }
    const kind: StockKind = c.kind === 'dc_stock' ? 'dc' : 'factory';
    const cmp = db
      ? compareWithRemote(db, kind, c.stock.values())
      : { changed: 0, unchanged: 0, unknown: c.stock.size };
    const absentZeroed = read.absent === 'zero' ? absentKeys(db, kind, c) : 0;
    // The size the client sends now: configured, or what the portal was found to accept.
    const batchSize = db
      ? new BatchSizes(db, options.bulkBatchSize).max(kind)
      : options.bulkBatchSize;
    return {
      ...common,
      absentZeroed,
      stock: {
        changed: cmp.changed,
        unchanged: cmp.unchanged,
        unknownToPortal: cmp.unknown,
        batchSize,
        calls: Math.ceil((cmp.changed + cmp.unknown + (absentZeroed ?? 0)) / batchSize),
      },
    };
  } finally {
    db?.close();
  }
}

/** Keys a full export would zero, from what state.db knows; null when that is not enough. */
function absentKeys(db: StateDb | undefined, kind: StockKind, c: CollectedFile): number | null {
  if (db === undefined || !portalStockRead(db, kind)) return null;
  let n = 0;
  for (const _ of keysOmitted(db, kind, (dc, sku) => c.stock.has(dc, sku), c.stock.centres())) n++;
  return n;
}

function planConfirmations(db: StateDb | undefined, c: CollectedFile) {
  const outcomes = classifyConfirmations(db, c.confirmations);
  const tally = { new: 0, duplicate: 0, conflict: 0 };
  for (const o of outcomes) tally[o]++;
  return { ...tally, calls: tally.new };
}
