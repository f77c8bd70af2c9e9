/** The row kept for one stock key (the last one in the file). */
export interface StockEntry {
  readonly dc: string;
  readonly sku: string;
  readonly quantity: number;
  readonly line: number;
}

/**
 * Stock rows of one file by key, the last row of a key winning. Kept as parallel arrays indexed
 * through one Map of key → slot: a million rows cost a million small integers, not a million
 * objects for the garbage collector to trace.
 */
export class StockRows {
  readonly #slot = new Map<string, number>();
  readonly #dcs: string[] = [];
  readonly #skus: string[] = [];
  readonly #quantities: number[] = [];
  readonly #lines: number[] = [];

  get size(): number {
    return this.#skus.length;
  }

  /** Whether a row of this key was stored. */
  has(dc: string, sku: string): boolean {
    return this.#slot.has(dc === '' ? sku : `${dc}\u0000${sku}`);
  }

  /** The distribution centres the rows name ('' for factory rows). */
  centres(): Set<string> {
    return new Set(this.#dcs);
  }

  /** Stores a row; returns the line of the row it replaces, if the key was seen before. */
  put(dc: string, sku: string, quantity: number, line: number): number | undefined {
    const key = dc === '' ? sku : `${dc}\u0000${sku}`;
    const slot = this.#slot.get(key);
    if (slot !== undefined) {
      const previous = this.#lines[slot];
      this.#quantities[slot] = quantity;
      this.#lines[slot] = line;
      return previous;
    }
    this.#slot.set(key, this.#skus.length);
    this.#dcs.push(dc);
    this.#skus.push(sku);
    this.#quantities.push(quantity);
    this.#lines.push(line);
    return undefined;
  }

  /**
   * Adds a row's quantity to its key's (a profile's `duplicates: "sum"`), capped at the portal's
   * largest, the later line kept; returns the line of the row it adds to, if any.
   */
  add(dc: string, sku: string, quantity: number, line: number): number | undefined {
    const slot = this.#slot.get(dc === '' ? sku : `${dc}\u0000${sku}`);
    if (slot === undefined) return this.put(dc, sku, quantity, line);
    const previous = this.#lines[slot];
    this.#quantities[slot] = Math.min(this.#quantities[slot]! + quantity, 2_147_483_647);
    this.#lines[slot] = Math.max(previous!, line);
    return previous;
  }

  /** The kept rows, in the order their keys first appeared. */
  *values(): Generator<StockEntry> {
    for (let i = 0; i < this.#skus.length; i++) {
      yield {
        dc: this.#dcs[i]!,
        sku: this.#skus[i]!,
        quantity: this.#quantities[i]!,
        line: this.#lines[i]!,
      };
    }
  }
}
