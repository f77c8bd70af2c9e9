import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename } from 'node:path';
import { BatchSizes } from '../../api/index.ts';
import { dataPaths } from '../../config/dataPaths.ts';
import type { Profile } from '../../config/profiles.ts';
import { decideGuard, type GuardThresholds } from '../../domain/guard.ts';
import { keyString, type StockKind } from '../../domain/stock.ts';
import {
  compileStockRules,
  NO_STOCK_RULES,
  type OfferSummary,
  OfferTally,
  type StockRuleSet,
} from '../../domain/stockRules.ts';
import { openStateDbReadOnly, type StateDb } from '../../state/db.ts';
import { classifyConfirmations } from '../../state/shipments/confirmations.ts';
import { SharedStringsTable } from '../../state/staging/sharedStringsTable.ts';
import { portalStockRead } from '../../state/stock/absentStock.ts';
import { compareWithRemote } from '../../state/stock/desiredStock.ts';
import { compareRows } from '../../state/stock/guardFigures.ts';
import { absentKeys as keysOmitted } from '../apply/absentZeros.ts';
import { type GuardReport, guardReport } from '../apply/guardFile.ts';
import {
  type CollectedFile,
  collectFile,
  nothingToApply,
  type RejectedRow,
} from '../ingest/collect.ts';
import type { ReadingFields } from '../ingest/report.ts';
import {
  formatOf,
  type InboxFormat,
  type PositionUnit,
  positionUnit,
  SUPPORTED_EXTENSIONS,
} from '../parse/records.ts';
import { createDcDirectory } from '../validate/dcDirectory.ts';
import type { FileKind } from '../validate/kinds.ts';
import { describeRules, readPlanFor } from '../validate/readPlan.ts';
import { type ProductsPlan, planProducts, planReading } from './planProducts.ts';

export interface PlanOptions {
  readonly dataDir: string;
  readonly bulkBatchSize: number;
  readonly maxSkuLength: number;
  /** INBOX_MAX_RECORD_BYTES, as ingestion reads with it. */
  readonly maxRecordBytes?: number;
  /** The stock rules (STOCK_RULES_FILE) the daemon would apply; none: offered as is. */
  readonly rules?: StockRuleSet;
  /** The inbox profiles (INBOX_PROFILES_FILE); none: the defaults. */
  readonly profiles?: readonly Profile[];
  /** SYNC_TIMEZONE: a profile's `today()` is the date there. Default UTC. */
  readonly timeZone?: string;
  /** The guard rails' thresholds (GUARD_* settings); absent: not looked at. */
  readonly guard?: GuardThresholds;
  /** Products files: IMAGE_TYPE and CATALOGUE_MAX_NEW (absent: the guard rail not looked at). */
  readonly products?: { readonly imageType: string; readonly maxNew?: number };
}

export interface FilePlan extends Omit<ReadingFields, 'absentZeroed'> {
  readonly file: string;
  /** What the profile says beyond its columns, one phrase each (describeRules). */
  readonly profileRules: readonly string[];
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
  /** DC rows whose ERP location code the stock rules' `locations` mapped. */
  readonly locationsMapped: number;
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
    /** ERP and offered quantities under the stock rules; excluded keys are never compared. */
    readonly offers: OfferSummary;
    /**
     * Whether the guard rails would hold the file (`held`), why, and the figures, over the
     * offered quantities (a full export's zeroed keys included); null without a state.db
     * (nothing known of the portal: nothing to protect) or without thresholds.
     */
    readonly guard: GuardReport | null;
  };
  readonly confirmations?: {
    readonly new: number;
    readonly duplicate: number;
    readonly conflict: number;
    /** One call per new confirmation (shipment actions are single calls). */
    readonly calls: number;
  };
  readonly products?: ProductsPlan;
}

/**
 * A dry run of one file: the same parsing and checks as ingestion, compared with what state.db
 * knows (opened read-only; absent means nothing is known). Writes nothing anywhere.
 */
export async function planFile(path: string, options: PlanOptions): Promise<FilePlan> {
  const name = basename(path);
  const format = formatOf(name);
  const read = readPlanFor(options.profiles ?? [], name, {
    now: new Date(),
    timeZone: options.timeZone ?? 'UTC',
  });
  const db = openStateDbReadOnly(dataPaths(options.dataDir).stateDb);
  try {
    const base = {
      file: name,
      format: format ?? null,
      positions: format === undefined ? ('line' as const) : positionUnit(format),
      stateDb: db !== undefined,
      profile: read.profile?.match ?? null,
      profileRules: describeRules(read.profile),
      fullExport: read.absent === 'zero',
    };
    const reading = (
      c?: Pick<CollectedFile, 'dialect' | 'headerRow' | 'clamped' | 'skipped' | 'kept' | 'summed'>,
    ) => ({
      skipped: c?.skipped ?? 0,
      kept: c?.kept ?? 0,
      summed: c?.summed ?? 0,
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
      locationsMapped: 0,
    };
    /** A file not read at all: nothing of it known but why. */
    const unread = (reason: string) => ({
      ...base,
      ...empty,
      ...reading(),
      readable: false as const,
      kind: null,
      reason,
    });
    if (!(await stat(path)).isFile()) return unread('not a regular file');
    if (format === undefined) {
      return unread(`unsupported file extension: use ${SUPPORTED_EXTENSIONS}`);
    }
    const dcs = db ? createDcDirectory({ db }) : undefined;
    const rules = options.rules ?? NO_STOCK_RULES;
    const c = await collectFile(createReadStream(path), {
      format,
      maxSkuLength: options.maxSkuLength,
      maxRecordBytes: options.maxRecordBytes,
      locations: rules.locations,
      plan: read,
      products: planReading(db, options.products?.imageType ?? 'lifestyle'),
      ...(dcs && dcs.size > 0 ? { dcDirectory: dcs } : {}),
      workbook: { dir: tmpdir(), spill: () => SharedStringsTable.createIn(tmpdir()) },
    });
    if (!c.ok) {
      // As the failed file's report says it: the rows that were bad on their own are named.
      return {
        ...base,
        ...empty,
        ...reading(c),
        rowsRead: c.rowsRead,
        rowsRejected: c.rowsRejected ?? 0,
        rejected: c.rejected ?? [],
        rejectedOmitted: c.rejectedOmitted ?? 0,
        readable: false,
        kind: c.kind ?? null,
        reason: c.reason,
      };
    }
    const nothing = nothingToApply(c);
    const common = {
      ...base,
      readable: nothing === undefined,
      ...(nothing === undefined ? {} : { reason: nothing }),
      kind: c.kind,
      rowsRead: c.rowsRead,
      rowsAccepted: c.rowsAccepted,
      rowsRejected: c.rowsRejected,
      rejected: c.rejected,
      rejectedOmitted: c.rejectedOmitted,
      duplicateRows: c.duplicates.rows,
      ignoredColumns: c.ignoredColumns,
      distributionCentresChecked: c.dcChecked,
      locationsMapped: c.locationsMapped,
      ...reading(c),
    };
    if (c.kind === 'shipment_confirmations') {
      return { ...common, absentZeroed: 0, confirmations: planConfirmations(db, c) };
    }
    if (c.kind === 'products') {
      const products = planProducts(db, c.products!, Date.now(), options.products?.maxNew);
      return { ...common, absentZeroed: 0, products };
    }
    const kind: StockKind = c.kind === 'dc_stock' ? 'dc' : 'factory';
    // As before the apply: a full export's rows gain the keys it sets to 0 by omission, so they
    // are offered, compared (and checked) like the rows it names.
    const absentZeroed = read.absent === 'zero' ? addAbsentZeros(db, kind, c) : 0;
    // What the daemon would offer: the same rules, evaluated here rather than in SQL.
    const compiled = compileStockRules(rules.rules);
    const tally = new OfferTally();
    const offered: Array<{ dc: string; sku: string; quantity: number }> = [];
    for (const row of c.stock.values()) {
      const offer = compiled.offer(kind, row.dc, row.sku, row.quantity);
      tally.add(keyString({ kind, dc: row.dc, sku: row.sku }), row.quantity, offer);
      if (!offer.excluded) offered.push({ dc: row.dc, sku: row.sku, quantity: offer.quantity });
    }
    const cmp = db
      ? compareWithRemote(db, kind, offered)
      : { changed: 0, unchanged: 0, unknown: offered.length };
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
        calls: Math.ceil((cmp.changed + cmp.unknown) / batchSize),
        offers: tally.summary(),
        guard: db && options.guard ? guardOf(db, kind, offered, options.guard) : null,
      },
    };
  } finally {
    db?.close();
  }
}

/**
 * Adds the keys a full export would zero to its rows (quantity 0, line 0), from what state.db
 * knows; how many, or null when the portal's stock of the kind was never read (then none).
 */
function addAbsentZeros(db: StateDb | undefined, kind: StockKind, c: CollectedFile): number | null {
  if (db === undefined || !portalStockRead(db, kind)) return null;
  const { stock, namedByRejected: named } = c;
  const centres = new Set([...stock.centres(), ...named.centres()]);
  const names = (dc: string, sku: string) => stock.has(dc, sku) || named.has(dc, sku);
  const zeroed = [...keysOmitted(db, kind, names, centres)];
  for (const key of zeroed) stock.put(key.dc, key.sku, 0, 0);
  return zeroed.length;
}

/** The guard rails' verdict on the rows as the daemon would offer them (read-only). */
function guardOf(
  db: StateDb,
  kind: StockKind,
  offered: ReadonlyArray<{ dc: string; sku: string; quantity: number }>,
  t: GuardThresholds,
): GuardReport {
  const cmp = compareRows(db, [{ kind, rows: offered }]);
  return guardReport(cmp, decideGuard(cmp, t), t);
}

function planConfirmations(db: StateDb | undefined, c: CollectedFile) {
  const outcomes = classifyConfirmations(db, c.confirmations);
  const tally = { new: 0, duplicate: 0, conflict: 0 };
  for (const o of outcomes) tally[o]++;
  return { ...tally, calls: tally.new };
}
