import type { Readable } from 'node:stream';
import { looksLikeData, noHeaderReason } from '../parse/header.ts';
import {
  ByteTap,
  type Dialect,
  FileFormatError,
  type PositionUnit,
  positionUnit,
  readRecords,
  showValue,
} from '../parse/index.ts';
import { createYielder } from '../parse/yielder.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import { type FileKind, ignoredColumns, objectKind } from '../validate/kinds.ts';
import { addConstants, columnKey, detectKindWithProfile, mapFields } from '../validate/mapping.ts';
import type { ReadPlan } from '../validate/readPlan.ts';
import type { RowError } from '../validate/rows.ts';
import type { CollectedFile, CollectOptions, RejectedRow, UnreadableFile } from './collectTypes.ts';
import { ProductHandler } from './productHandler.ts';
import { ConfirmationHandler, type DuplicateKey, handlerFor, StockHandler } from './rowHandlers.ts';
import { StockRows } from './stockRows.ts';

/**
 * Most rejected rows listed in a report (and by `plan`): the first ones, in file order; the rest
 * are counted in `rejectedOmitted`. A report is read by a person fixing the export: the first
 * thousand show what is wrong, a million would only make the report as large as the file.
 */
export const MAX_REJECTED_LISTED = 1000;
/**
 * Most bytes of the rejected rows listed (as JSON): the list ends at whichever of this and
 * MAX_REJECTED_LISTED comes first. With values cut to 100 characters a row takes 100–400 bytes,
 * so the cap holds a report under 512 KiB even for rows with long SKUs and reasons.
 */
export const MAX_REJECTED_BYTES = 256 * 1024;
/** Most ignored columns listed in a report, each cut like a rejected value (100 characters). */
const MAX_IGNORED_COLUMNS = 50;

export type { CollectedFile, CollectOptions, DuplicateKey, RejectedRow, UnreadableFile };

/**
 * Reads, checks and gathers one inbox file: no I/O but reading `source` (and a DC list refresh).
 * A small driver: the header or the first object sets the kind, then each row goes to the
 * handler of its kind (rowHandlers.ts: stock, confirmations). Returns the accepted rows, the
 * rejected ones with their reasons, duplicates, ignored columns; or why the whole file cannot be
 * taken. Throws only for I/O errors and DcListUnavailableError.
 */
export async function collectFile(
  source: Readable,
  options: CollectOptions,
): Promise<CollectedFile | UnreadableFile> {
  const tap = new ByteTap();
  const c = new Collector(options);
  const yielder = createYielder();
  // The rows are all staged (a worker thread writing them is done) before the result is made.
  const staged = async () => {
    try {
      await c.staged?.finish();
    } catch (err) {
      c.staged?.discard();
      throw err;
    }
  };
  const fail = async (reason: string): Promise<UnreadableFile> => {
    // A workbook read from its open file never reads `source`; destroying a stream of a
    // FileHandle would close the handle under its owner.
    if (options.workbook?.file === undefined || options.format !== 'xlsx') source.destroy();
    await staged();
    return c.unreadable(reason, undefined);
  };
  // The clock is read every 32 records, not each one (a million reads of it cost 30–40 ms).
  let events = 0;
  try {
    for await (const batch of c.read(source, tap)) {
      for (const event of batch) {
        if ((++events & 31) === 0 && yielder.due()) {
          c.flush();
          await yielder.pause();
        }
        if (event.type === 'columns') {
          const problem = c.header(event.columns);
          if (problem !== undefined) return await fail(problem);
          continue;
        }
        c.rowsRead++;
        if (options.onProgress && c.rowsRead % 10_000 === 0) options.onProgress(c.rowsRead);
        if (event.type === 'bad') {
          const { line, field, reason, value } = event;
          c.reject(line, value === undefined ? { field, reason } : { field, reason, value });
          continue;
        }
        const fields = c.mapped(event.fields);
        const handler = c.handlerOf(event.line, fields);
        if (typeof handler === 'string') return await fail(handler);
        if (handler === undefined) continue;
        const pending = handler.take(event.line, fields);
        if (pending !== undefined) await pending;
      }
      c.flush();
      // A worker thread staging the rows may ask the reader to wait for it.
      const staging = c.staged?.ready();
      if (staging !== undefined) await staging;
    }
  } catch (err) {
    if (err instanceof FileFormatError) {
      await staged();
      return c.unreadable(tap.bytes === 0 ? 'empty file' : err.message, undefined);
    }
    c.staged?.discard();
    throw err;
  }
  await staged();
  const hash = tap.digest();
  if (tap.bytes === 0) return c.unreadable('empty file', hash);
  if (c.kind === undefined || c.handler === undefined) {
    if (options.format === 'xlsx')
      return c.unreadable('no header row (the first worksheet holds only blank rows)', hash);
    if (!c.objects) return c.unreadable('no header row (the file holds only blank lines)', hash);
    if (c.rowsRead === 0) return c.unreadable('no data rows', hash);
    return c.unreadable('no row names a kind', hash);
  }
  return c.collected(hash);
}

/**
 * Why a read file has nothing to apply, or undefined when it has: no row accepted and none kept
 * (a row a profile keeps names its key, which counts for a full export).
 */
export function nothingToApply(c: CollectedFile): string | undefined {
  if (c.rowsAccepted > 0 || (c.kept ?? 0) > 0) return undefined;
  return (c.skipped ?? 0) > 0
    ? 'no row to apply: every row was rejected or left out by the profile'
    : 'every row was rejected';
}

/** What one file's reading has found so far: the kind, counts, rejected rows, ignored columns. */
class Collector {
  readonly #options: CollectOptions;
  readonly positions: PositionUnit;
  /** The scratch database of the file (CollectOptions.stage), made at once. */
  readonly staged: StagingFile | undefined;
  kind: FileKind | undefined;
  handler: StockHandler | ConfirmationHandler | ProductHandler | undefined;
  rowsRead = 0;
  rowsRejected = 0;
  readonly rejected: RejectedRow[] = [];
  #rejectedBytes = 0;
  /** Keys named only by rejected rows, when nothing is staged (a full export keeps them). */
  readonly namedByRejected = new StockRows();
  readonly #ignored = new Set<string>();
  /** JSON and JSONL: rows name their own fields; the others have a header. */
  readonly objects: boolean;
  readonly #mapping: ReadPlan['mapping'];
  readonly #constants: boolean;
  dialect: Dialect | undefined;
  headerRow: number | undefined;

  constructor(options: CollectOptions) {
    this.#options = options;
    this.positions = positionUnit(options.format);
    this.objects = options.format === 'json' || options.format === 'jsonl';
    this.#mapping = options.plan?.mapping;
    this.#constants =
      this.#mapping !== undefined && Object.keys(this.#mapping.constants).length > 0;
    this.staged = options.stage?.();
  }

  /** The records of the file, read as its plan says. */
  read(source: Readable, tap: ByteTap) {
    const plan = this.#options.plan;
    const mapping = this.#mapping;
    // Readers of a header rename its columns once; their rows only get the constants added.
    const renameColumn = mapping === undefined || this.objects ? undefined : columnKey(mapping);
    const max = this.#options.maxRecordBytes;
    const scratch = this.#options.workbook;
    return readRecords(this.#options.format, source, tap, {
      ...(max === undefined ? {} : { maxRecordBytes: max }),
      delimited: {
        ...plan?.delimited,
        ...(renameColumn === undefined ? {} : { renameColumn }),
        onDialect: (d) => {
          this.dialect = d;
        },
      },
      xlsx: {
        ...plan?.xlsx,
        ...(renameColumn === undefined ? {} : { renameColumn }),
        onHeader: (row) => {
          this.headerRow = row;
        },
        ...(scratch === undefined ? {} : { scratchDir: scratch.dir, spillStrings: scratch.spill }),
        ...(scratch?.file === undefined ? {} : { file: scratch.file }),
      },
    });
  }

  /** A row's fields under the API's names (a profile's mapping and constants applied). */
  mapped(fields: Record<string, unknown>): Record<string, unknown> {
    const mapping = this.#mapping;
    if (mapping === undefined) return fields;
    if (this.objects) return mapFields(fields, mapping);
    if (this.#constants) addConstants(fields, mapping);
    return fields;
  }

  /** A header: sets the kind, or says why the file cannot be read. */
  header(columns: readonly string[]): string | undefined {
    const detected = detectKindWithProfile(columns, this.#mapping);
    if (!detected.ok) return looksLikeData(columns) ? noHeaderReason(columns) : detected.reason;
    this.#setKind(detected.kind);
    this.#ignore(detected.ignored);
    return undefined;
  }

  /**
   * The handler for a row: by the header's kind (CSV), or by the names of the row's fields (JSON,
   * JSONL: the first row naming a kind sets it). undefined when the row was rejected; a string
   * when the file fails (mixed kinds).
   */
  handlerOf(line: number, fields: Record<string, unknown>) {
    if (this.objects) {
      const keys = Object.keys(fields);
      let claims = objectKind(keys);
      // In a products file, an item with a SKU alone is a product without a name (rejected).
      if (this.kind === 'products' && claims === 'factory_stock' && !('stock_quantity' in fields))
        claims = 'products';
      if (claims === undefined) {
        this.reject(line, { field: '(row)', reason: 'names none of the known columns' });
        return undefined;
      }
      if (this.kind === undefined) this.#setKind(this.#mapping?.kind ?? claims);
      else if (claims !== this.kind) {
        return `mixed kinds: ${this.positions} ${line} is ${claims.replace('_', ' ')}, earlier rows are ${this.kind.replace('_', ' ')}`;
      }
      if (this.#ignored.size < MAX_IGNORED_COLUMNS) this.#ignore(ignoredColumns(this.kind!, keys));
    }
    return this.handler;
  }

  #setKind(kind: FileKind): void {
    this.kind = kind;
    const plan = this.#options.plan;
    if (kind === 'products') {
      this.handler = new ProductHandler(
        {
          maxSkuLength: this.#options.maxSkuLength,
          quantity: plan?.quantity ?? {},
          ...(plan?.quantity.decimal === undefined ? {} : { decimal: plan.quantity.decimal }),
          ...(this.#options.locations === undefined ? {} : { locations: this.#options.locations }),
          reading: this.#options.products,
        },
        (line, e) => this.reject(line, e),
      );
      return;
    }
    this.handler = handlerFor(
      kind,
      {
        maxSkuLength: this.#options.maxSkuLength,
        quantity: this.#options.plan?.quantity ?? {},
        ...(this.#options.locations === undefined ? {} : { locations: this.#options.locations }),
        ...(this.#options.dcDirectory === undefined
          ? {}
          : { dcDirectory: this.#options.dcDirectory }),
        ...(this.staged === undefined ? {} : { stage: () => this.staged! }),
        rules: this.#options.plan?.rules,
        sum: this.#options.plan?.duplicates === 'sum',
        nameKey: (dc, sku) => this.nameKey(dc, sku),
      },
      (line, e) => this.reject(line, e),
      this.staged,
    );
  }

  #ignore(columns: Iterable<string>): void {
    for (const c of columns) {
      if (this.#ignored.size >= MAX_IGNORED_COLUMNS) return;
      this.#ignored.add(showValue(c) ?? c);
    }
  }

  /**
   * Every rejected row is counted; the first are kept here (and listed in the report), up to
   * MAX_REJECTED_LISTED rows and MAX_REJECTED_BYTES. The rest are not kept anywhere: a file of
   * millions of bad rows costs neither memory nor scratch space.
   */
  reject(line: number, e: RowError): void {
    this.rowsRejected++;
    if (this.rejected.length >= MAX_REJECTED_LISTED || this.#rejectedBytes >= MAX_REJECTED_BYTES) {
      return;
    }
    const row: RejectedRow = {
      line,
      ...(e.key === undefined ? {} : { key: e.key }),
      field: e.field,
      reason: e.reason,
      ...(e.value === undefined ? {} : { value: e.value }),
    };
    this.#rejectedBytes += JSON.stringify(row).length;
    this.rejected.push(row);
  }

  /**
   * A key the file names without an accepted row (rejected for its quantity, kept by the
   * profile): staged, or kept here when nothing is staged (plan).
   */
  nameKey(dc: string, sku: string): void {
    if (this.staged === undefined) this.namedByRejected.put(dc, sku, 0, 0);
    else this.staged.nameKey(this.kind === 'dc_stock' ? 'dc' : 'factory', dc, sku);
  }

  flush(): void {
    this.handler?.flush();
    this.staged?.flush();
  }

  unreadable(reason: string, hash: string | undefined): UnreadableFile {
    this.flush();
    return {
      ok: false,
      format: this.#options.format,
      positions: this.positions,
      kind: this.kind,
      reason,
      rowsRead: this.rowsRead,
      hash,
      rowsRejected: this.rowsRejected,
      rejected: this.rejected,
      rejectedOmitted: this.rowsRejected - this.rejected.length,
      ...this.#readAs(),
      ...(this.staged === undefined ? {} : { staged: this.staged }),
    };
  }

  #readAs() {
    const h = this.handler;
    const stock = h !== undefined && 'clamped' in h;
    return {
      clamped: stock ? h.clamped : 0,
      skipped: stock ? h.skipped : 0,
      kept: stock ? h.kept : 0,
      summed: 0,
      ...(this.dialect === undefined ? {} : { dialect: this.dialect }),
      ...(this.headerRow === undefined ? {} : { headerRow: this.headerRow }),
    };
  }

  collected(hash: string | undefined): CollectedFile | UnreadableFile {
    const h = this.handler!;
    if (this.rowsRead === 0) return this.unreadable('no data rows', hash);
    this.flush();
    const stock = h instanceof StockHandler;
    const duplicates =
      h instanceof ConfirmationHandler ? { rows: 0, keys: [], keysOmitted: 0 } : h.duplicates();
    return {
      ok: true,
      format: this.#options.format,
      positions: this.positions,
      kind: this.kind!,
      rowsRead: this.rowsRead,
      rowsAccepted: h.accepted,
      rowsRejected: this.rowsRejected,
      rejected: this.rejected,
      rejectedOmitted: this.rowsRejected - this.rejected.length,
      ignoredColumns: [...this.#ignored].sort(),
      stock: stock ? h.rows : new StockRows(),
      namedByRejected: this.namedByRejected,
      ...(this.staged === undefined ? {} : { staged: this.staged }),
      confirmations: h instanceof ConfirmationHandler ? h.rows : [],
      ...(h instanceof ProductHandler ? { products: h.read() } : {}),
      duplicates,
      dcChecked: this.#options.dcDirectory !== undefined,
      locationsMapped: stock ? h.locationsMapped : 0,
      hash,
      ...this.#readAs(),
      summed: this.#options.plan?.duplicates === 'sum' ? duplicates.rows : 0,
    };
  }
}
