import type { BirthStock, CatalogueReferences, ProductDraft } from '../../domain/catalogue.ts';
import type { LocationMap } from '../../domain/stockRules.ts';
import { validateProductRow } from '../validate/productRow.ts';
import type { QuantityOptions } from '../validate/quantity.ts';
import {
  type Duplicates,
  MAX_DUPLICATE_KEYS_LISTED,
  MAX_LINES_PER_DUPLICATE,
  type Reject,
  type RowHandler,
} from './rowHandlers.ts';

/** Most SKUs a report lists of those the portal already has (the rest are counted). */
export const MAX_EXISTING_LISTED = 1000;

/** One accepted row of a products file whose SKU the portal is not known to have. */
export interface ProductRow {
  readonly line: number;
  readonly draft: ProductDraft;
  readonly stock: BirthStock;
  readonly shortDescription: boolean;
}

/** What a products file's rows come to. */
export interface ProductsRead {
  /** One row per SKU the portal is not known to have (the last row of a SKU wins), in file order. */
  readonly toCreate: readonly ProductRow[];
  /** Accepted SKUs the portal is known to have: never sent (it cannot change a product). */
  readonly existing: number;
  /** The first MAX_EXISTING_LISTED of them. */
  readonly existingSkus: readonly string[];
  /** Rows to create whose description is under 100 characters. */
  readonly shortDescription: number;
  /** Whether sites, tax rates and centres were checked against the portal's lists. */
  readonly referencesChecked: boolean;
}

/** How a products file is read, beyond its profile (CollectOptions.products). */
export interface ProductReading {
  /** IMAGE_TYPE. */
  readonly imageType: string;
  /**
   * The portal's references, fresh (read once per file, when its first row comes); undefined:
   * none known, codes not checked (a dry run without them). Throws when they are needed and
   * cannot be read: the file waits in inbox/.
   */
  readonly references: () => Promise<CatalogueReferences | undefined>;
  /** Whether the portal is known to have a product with this SKU (state.db). */
  readonly exists: (sku: string) => boolean;
}

export interface ProductOptions {
  readonly maxSkuLength: number;
  readonly quantity?: QuantityOptions;
  readonly decimal?: '.' | ',';
  readonly locations?: LocationMap;
  readonly reading?: ProductReading | undefined;
}

/**
 * Rows of a products file: checked (validate/productRow.ts) against the portal's references,
 * split into products to create and products the portal already has, one row per SKU.
 */
export class ProductHandler implements RowHandler {
  readonly #options: ProductOptions;
  readonly #reject: Reject;
  #references: CatalogueReferences | undefined;
  #loaded = false;
  /** By SKU: the row to create, or 'existing'; with the lines of every row that named it. */
  readonly #bySku = new Map<string, { row: ProductRow | 'existing'; lines: number[] }>();
  #duplicateRows = 0;
  accepted = 0;

  constructor(options: ProductOptions, reject: Reject) {
    this.#options = options;
    this.#reject = reject;
  }

  take(line: number, fields: Record<string, unknown>): void | Promise<void> {
    if (this.#loaded) return this.#take(line, fields);
    return (async () => {
      this.#references = await this.#options.reading?.references();
      this.#loaded = true;
      this.#take(line, fields);
    })();
  }

  #take(line: number, fields: Record<string, unknown>): void {
    const o = this.#options;
    const r = validateProductRow(fields, {
      maxSkuLength: o.maxSkuLength,
      imageType: o.reading?.imageType ?? 'lifestyle',
      references: this.#references,
      ...(o.decimal === undefined ? {} : { decimal: o.decimal }),
      ...(o.quantity === undefined ? {} : { quantity: o.quantity }),
      ...(o.locations === undefined ? {} : { locations: o.locations }),
    });
    if (!r.ok) {
      this.#reject(line, r);
      return;
    }
    this.accepted++;
    const sku = r.row.draft.sku;
    const known = o.reading?.exists(sku) === true;
    const row: ProductRow | 'existing' = known ? 'existing' : { line, ...r.row };
    const before = this.#bySku.get(sku);
    if (before === undefined) {
      this.#bySku.set(sku, { row, lines: [line] });
      return;
    }
    // The last row of a SKU wins, as in every other file; the earlier ones are duplicates.
    this.#duplicateRows++;
    this.#bySku.delete(sku);
    this.#bySku.set(sku, { row, lines: [...before.lines, line] });
  }

  flush(): void {}

  duplicates(): Duplicates {
    const keys = [...this.#bySku]
      .filter(([, v]) => v.lines.length > 1)
      .map(([sku, v]) => ({
        key: `product:${sku}`,
        lines: v.lines.slice(0, MAX_LINES_PER_DUPLICATE),
      }));
    return {
      rows: this.#duplicateRows,
      keys: keys.slice(0, MAX_DUPLICATE_KEYS_LISTED),
      keysOmitted: Math.max(0, keys.length - MAX_DUPLICATE_KEYS_LISTED),
    };
  }

  read(): ProductsRead {
    const toCreate: ProductRow[] = [];
    const existingSkus: string[] = [];
    let existing = 0;
    for (const [sku, { row }] of this.#bySku) {
      if (row !== 'existing') toCreate.push(row);
      else if (existing++ < MAX_EXISTING_LISTED) existingSkus.push(sku);
    }
    toCreate.sort((a, b) => a.line - b.line);
    return {
      toCreate,
      existing,
      existingSkus,
      shortDescription: toCreate.filter((r) => r.shortDescription).length,
      referencesChecked: this.#references !== undefined,
    };
  }
}
