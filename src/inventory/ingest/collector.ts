import type { Readable } from 'node:stream';
import { looksLikeData, noHeaderReason } from '../parse/header.ts';
import {
  type ByteTap,
  type Dialect,
  type PositionUnit,
  positionUnit,
  readRecords,
  showValue,
} from '../parse/index.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import { type FileKind, ignoredColumns, objectKind } from '../validate/kinds.ts';
import {
  addConstants,
  detectKindWithProfile,
  type HeaderKeys,
  keyHeader,
  mapFields,
  objectKeyOf,
} from '../validate/mapping.ts';
import type { ReadPlan } from '../validate/readPlan.ts';
import type { RowError } from '../validate/rows.ts';
import type { CollectedFile, CollectOptions, RejectedRow, UnreadableFile } from './collectTypes.ts';
import { ProductHandler } from './productHandler.ts';
import { ConfirmationHandler, handlerFor, StockHandler } from './rowHandlers.ts';
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

/** What one file's reading has found so far: the kind, counts, rejected rows, ignored columns. */
export class Collector {
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
  /** The header as the profile maps it (a file with a header, read with a profile). */
  #keyed: HeaderKeys | undefined;
  /** JSON keys the profile's expressions read: used, not ignored. */
  readonly #reads: ReadonlySet<string>;
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
    this.#reads = new Set((options.plan?.reads ?? []).flatMap((ref) => objectKeyOf(ref) ?? []));
  }

  /** The records of the file, read as its plan says. */
  read(source: Readable, tap: ByteTap) {
    const plan = this.#options.plan;
    const mapping = this.#mapping;
    // Readers of a header key its columns once; their rows only get the constants added.
    const open = this.#options.format === 'xlsx';
    const keyHeaderOf =
      mapping === undefined || this.objects
        ? undefined
        : (names: readonly string[]) => {
            this.#keyed = keyHeader({ names, open }, mapping, plan?.reads ?? []);
            return this.#keyed.keys;
          };
    const max = this.#options.maxRecordBytes;
    const scratch = this.#options.workbook;
    return readRecords(this.#options.format, source, tap, {
      ...(max === undefined ? {} : { maxRecordBytes: max }),
      delimited: {
        ...plan?.delimited,
        ...(keyHeaderOf === undefined ? {} : { keyHeader: keyHeaderOf }),
        onDialect: (d) => {
          this.dialect = d;
        },
      },
      xlsx: {
        ...plan?.xlsx,
        ...(keyHeaderOf === undefined ? {} : { keyHeader: keyHeaderOf }),
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
    const detected = detectKindWithProfile(this.#keyed ?? columns, this.#mapping);
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
      // Fields the profile computes count as the object's (they are set once its kind is known).
      const computed = this.#mapping?.computed ?? [];
      const keys =
        computed.length === 0 ? Object.keys(fields) : [...Object.keys(fields), ...computed];
      let claims = objectKind(keys);
      // In a products file, an item with a SKU alone is a product without a name (rejected).
      if (
        this.kind === 'products' &&
        claims === 'factory_stock' &&
        !keys.includes('stock_quantity')
      )
        claims = 'products';
      if (claims === undefined) {
        this.reject(line, { field: '(row)', reason: 'names none of the known columns' });
        return undefined;
      }
      if (this.kind === undefined) this.#setKind(this.#mapping?.kind ?? claims);
      else if (claims !== this.kind) {
        return `mixed kinds: ${this.positions} ${line} is ${claims.replace('_', ' ')}, earlier rows are ${this.kind.replace('_', ' ')}`;
      }
      if (this.#ignored.size < MAX_IGNORED_COLUMNS) {
        this.#ignore(ignoredColumns(this.kind!, keys).filter((k) => !this.#reads.has(k)));
      }
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
        rules: this.#options.plan?.rulesFor(this.#keyed?.keyOf ?? objectKeyOf),
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
