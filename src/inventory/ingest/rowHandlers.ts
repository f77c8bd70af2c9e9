import { type LocationMap, mapLocation } from '../../domain/stockRules.ts';
import type { ConfirmationInput } from '../../state/shipments/confirmations.ts';
import { showValue } from '../parse/records.ts';
import type { StagingFile } from '../staging/stagingFile.ts';
import { createDcCheck, type DcCheck, dcRejection } from '../validate/dcCheck.ts';
import type { DcDirectory } from '../validate/dcDirectory.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { QuantityOptions } from '../validate/quantity.ts';
import { applyRowRules, type RowRules, spreadRow } from '../validate/rowRules.ts';
import { type RowError, validateConfirmationRow, validateStockRow } from '../validate/rows.ts';
import { StockRows } from './stockRows.ts';

/** Most duplicate keys listed in a report (each with up to 10 lines); the rest are counted. */
export const MAX_DUPLICATE_KEYS_LISTED = 1000;
export const MAX_LINES_PER_DUPLICATE = 10;

export interface DuplicateKey {
  /** `factory:SKU` or `dc:CODE:SKU`. */
  readonly key: string;
  /** Lines (or elements) of every row with this key, in order; the last one won. */
  readonly lines: number[];
}

export interface Duplicates {
  readonly rows: number;
  readonly keys: DuplicateKey[];
  readonly keysOmitted: number;
}

/** What a handler needs from the collector: where a rejected row goes. */
export type Reject = (line: number, e: RowError) => void;

/** One kind of row: checks a row's fields, keeps it or rejects it. */
export interface RowHandler {
  /** A promise only when the row needs I/O (a DC list refresh). */
  take(line: number, fields: Record<string, unknown>): void | Promise<void>;
  /** End of a parsed batch (or a pause): hand buffered rows on. */
  flush(): void;
  readonly accepted: number;
}

export interface StockOptions {
  readonly maxSkuLength: number;
  /** Quantities as the file's profile says (decimal mark, negatives); see parseQuantity. */
  readonly quantity?: QuantityOptions;
  /** ERP location code → portal DC code, applied to DC rows before they are checked. */
  readonly locations?: LocationMap;
  readonly dcDirectory?: DcDirectory;
  readonly stage?: () => StagingFile;
  /** The profile's row rules (when, values, subtract, spread). */
  readonly rules?: RowRules | undefined;
  /** Rows of one key add up (`duplicates: "sum"`) instead of the last one winning. */
  readonly sum?: boolean;
  /** A key a row names without an accepted row (kept, or rejected for its quantity). */
  readonly nameKey?: (dc: string, sku: string) => void;
}

/**
 * Factory or DC stock rows: validated, DC codes checked (DC stock with a directory), kept by key
 * (the last row of a key wins) in a scratch database (`stage`) or in memory.
 */
export class StockHandler implements RowHandler {
  readonly #kind: 'factory_stock' | 'dc_stock';
  readonly #options: StockOptions;
  readonly #reject: Reject;
  readonly #dcCheck: DcCheck | undefined;
  readonly rows = new StockRows();
  staged: StagingFile | undefined;
  accepted = 0;
  /** Accepted rows whose negative quantity was taken as 0. */
  clamped = 0;
  /** DC rows whose location code was mapped to a portal DC code. */
  locationsMapped = 0;
  /** Rows the profile's rules left out (`skip`), and rows whose key keeps its value (`keep`). */
  skipped = 0;
  kept = 0;
  // In-memory duplicates (the scratch database logs its own).
  readonly #dupLines = new Map<string, number[]>();
  #dupRows = 0;
  #dupKeysOmitted = 0;

  constructor(
    kind: 'factory_stock' | 'dc_stock',
    options: StockOptions,
    reject: Reject,
    staged: StagingFile | undefined,
  ) {
    this.#kind = kind;
    this.#options = options;
    this.#reject = reject;
    this.staged = staged;
    const dcs = options.dcDirectory;
    this.#dcCheck = kind === 'dc_stock' && dcs !== undefined ? createDcCheck(dcs) : undefined;
  }

  take(line: number, fields: Record<string, unknown>): void | Promise<void> {
    const rules = this.#options.rules;
    if (rules === undefined || rules.spread.length === 0) return this.#takeRow(line, fields);
    // A wide export: one DC row per quantity column, in column order.
    let pending: Promise<void> | undefined;
    for (const row of spreadRow(fields, rules)) {
      if (pending !== undefined) pending = pending.then(() => this.#takeRow(line, row));
      else pending = this.#takeRow(line, row) ?? undefined;
    }
    return pending;
  }

  #takeRow(line: number, fields: Record<string, unknown>): void | Promise<void> {
    let rowFields = fields;
    // The profile's rules see the file's own values; the stock rules' locations come after.
    const rules = this.#options.rules;
    if (rules !== undefined) {
      const verdict = applyRowRules(rowFields, rules, this.#options.quantity ?? {});
      if (verdict.action === 'skip') {
        this.skipped++;
        return;
      }
      if (verdict.action === 'bad') {
        return this.#rejectNamed(line, verdict.fields ?? rowFields, verdict.error);
      }
      if (verdict.action === 'keep') {
        this.#keepAsIs(line, this.#located(verdict.fields ?? rowFields));
        return;
      }
      rowFields = verdict.fields;
    }
    rowFields = this.#located(rowFields);
    const r = validateStockRow(this.#kind, rowFields, this.#options);
    if (!r.ok) {
      if (r.named !== undefined) this.#options.nameKey?.(r.named.dc, r.named.sku);
      return this.#reject(line, r);
    }
    const { dc, sku, quantity } = r.row;
    const clamped = r.row.clamped === true;
    if (this.#dcCheck !== undefined) {
      const status = this.#dcCheck.status(dc);
      if (typeof status !== 'string') {
        return status.then((s) => this.#keep(line, dc, sku, quantity, clamped, s));
      }
      return this.#keep(line, dc, sku, quantity, clamped, status);
    }
    this.#keep(line, dc, sku, quantity, clamped, 'active');
  }

  /** A DC row with its ERP location code mapped to a portal centre (the stock rules' locations). */
  #located(fields: Record<string, unknown>): Record<string, unknown> {
    const locations = this.#options.locations;
    if (this.#kind !== 'dc_stock' || locations === undefined) return fields;
    const m = mapLocation(fields.distribution_centre_code, locations);
    if (!m.mapped) return fields;
    this.locationsMapped++;
    return { ...fields, distribution_centre_code: m.value };
  }

  /** A row the profile keeps as it stands: its key counts as named (a good SKU needed). */
  #keepAsIs(line: number, fields: Record<string, unknown>): void {
    const r = validateStockRow(this.#kind, { ...fields, stock_quantity: 0 }, this.#options);
    if (!r.ok) {
      this.#reject(line, r);
      return;
    }
    this.kept++;
    this.#options.nameKey?.(r.row.dc, r.row.sku);
  }

  /**
   * A row the profile's rules found a bad value in (a `subtract` column): rejected, its key still
   * named when its SKU (and centre) are good — in the report (RowError.key) and for a full export.
   */
  #rejectNamed(line: number, fields: Record<string, unknown>, error: RowError): void {
    const r = validateStockRow(
      this.#kind,
      { ...this.#located(fields), stock_quantity: 0 },
      this.#options,
    );
    if (!r.ok) {
      this.#reject(line, error);
      return;
    }
    const { dc, sku } = r.row;
    this.#options.nameKey?.(dc, sku);
    this.#reject(line, {
      ...error,
      key: this.#kind === 'dc_stock' ? `dc:${dc}:${sku}` : `factory:${sku}`,
    });
  }

  #keep(
    line: number,
    dc: string,
    sku: string,
    quantity: number,
    clamped: boolean,
    status: string,
  ): void {
    if (status !== 'active') {
      this.#reject(line, {
        key: `dc:${dc}:${sku}`,
        field: 'distribution_centre_code',
        reason: dcRejection(status as 'unknown' | 'inactive'),
        value: showValue(dc),
      });
      return;
    }
    this.accepted++;
    if (clamped) this.clamped++;
    const stage = this.#options.stage;
    if (stage !== undefined) {
      this.staged ??= stage();
      this.staged.put(this.#kind === 'dc_stock' ? 'dc' : 'factory', dc, sku, quantity, line);
      return;
    }
    const previous = this.#options.sum
      ? this.rows.add(dc, sku, quantity, line)
      : this.rows.put(dc, sku, quantity, line);
    if (previous !== undefined) this.#duplicate(dc, sku, previous, line);
  }

  #duplicate(dc: string, sku: string, previous: number, line: number): void {
    this.#dupRows++;
    const shown = this.#kind === 'dc_stock' ? `dc:${dc}:${sku}` : `factory:${sku}`;
    let lines = this.#dupLines.get(shown);
    if (lines === undefined) {
      if (this.#dupLines.size >= MAX_DUPLICATE_KEYS_LISTED) {
        this.#dupKeysOmitted++;
        return;
      }
      lines = [previous];
      this.#dupLines.set(shown, lines);
    }
    if (lines.length < MAX_LINES_PER_DUPLICATE) lines.push(line);
  }

  flush(): void {
    this.staged?.flush();
  }

  duplicates(): Duplicates {
    if (this.staged === undefined) {
      return {
        rows: this.#dupRows,
        keys: [...this.#dupLines].map(([key, lines]) => ({ key, lines })),
        keysOmitted: this.#dupKeysOmitted,
      };
    }
    const d = this.staged.duplicates(MAX_DUPLICATE_KEYS_LISTED, MAX_LINES_PER_DUPLICATE);
    return {
      rows: d.rows,
      keys: d.keys.map((k) => ({
        key: k.kind === 'dc' ? `dc:${k.dc}:${k.sku}` : `factory:${k.sku}`,
        lines: k.lines,
      })),
      keysOmitted: d.keysOmitted,
    };
  }
}

/** Shipment confirmation rows, validated and kept in file order. */
export class ConfirmationHandler implements RowHandler {
  readonly #reject: Reject;
  readonly #compute: RowRules['compute'];
  readonly rows: ConfirmationInput[] = [];

  constructor(reject: Reject, compute?: RowRules['compute']) {
    this.#reject = reject;
    this.#compute = compute;
  }

  get accepted(): number {
    return this.rows.length;
  }

  take(line: number, fields: Record<string, unknown>): void {
    if (this.#compute !== undefined) {
      const failed = this.#compute(fields);
      if (failed !== undefined) {
        this.#reject(line, failed);
        return;
      }
    }
    const r = validateConfirmationRow(fields);
    if (r.ok) this.rows.push({ ...r.row, line });
    else this.#reject(line, r);
  }

  flush(): void {}
}

export function handlerFor(
  kind: Exclude<FileKind, 'products'>,
  options: StockOptions,
  reject: Reject,
  staged: StagingFile | undefined,
): StockHandler | ConfirmationHandler {
  return kind === 'shipment_confirmations'
    ? new ConfirmationHandler(reject, options.rules?.compute)
    : new StockHandler(kind, options, reject, staged);
}
