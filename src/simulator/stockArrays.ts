import { HttpError } from './httpError.ts';
import { ACTIVE_DC_CODES, type ProductSeed } from './seed.ts';

/** Largest quantity accepted (quantities are stored as 32-bit integers). */
export const MAX_QUANTITY = 2_147_483_647;

/**
 * The stock of every product by position, in typed arrays: factory stock, and stock in every
 * active distribution centre at the flat index position · dcCount + DC index; each a quantity and
 * an allocation. A quantity set below the allocation lowers the allocation (free stock is never
 * negative).
 */
export class StockLevels {
  readonly dcCount = ACTIVE_DC_CODES.length;
  #factoryQty: Int32Array;
  #factoryAlloc: Int32Array;
  #dcQty: Int32Array;
  #dcAlloc: Int32Array;

  /** Room for `capacity` products; the first `seeded` hold the seed's stock. */
  constructor(capacity: number, seed: ProductSeed, seeded: number) {
    this.#factoryQty = new Int32Array(capacity);
    this.#factoryAlloc = new Int32Array(capacity);
    this.#dcQty = new Int32Array(capacity * this.dcCount);
    this.#dcAlloc = new Int32Array(capacity * this.dcCount);
    for (let i = 0; i < seeded; i++) {
      const f = seed.factoryStock(i);
      this.#factoryQty[i] = f.quantity;
      this.#factoryAlloc[i] = f.allocated;
      for (let d = 0; d < this.dcCount; d++) {
        const s = seed.dcStock(i, d);
        this.#dcQty[i * this.dcCount + d] = s.quantity;
        this.#dcAlloc[i * this.dcCount + d] = s.allocated;
      }
    }
  }

  /** Room for `capacity` products, what is held kept. */
  grow(capacity: number): void {
    this.#factoryQty = grown(this.#factoryQty, capacity);
    this.#factoryAlloc = grown(this.#factoryAlloc, capacity);
    this.#dcQty = grown(this.#dcQty, capacity * this.dcCount);
    this.#dcAlloc = grown(this.#dcAlloc, capacity * this.dcCount);
  }

  /** A new product's stock: its factory quantity, nothing in the centres, nothing allocated. */
  clear(position: number, factory: number): void {
    this.#factoryQty[position] = factory;
    this.#factoryAlloc[position] = 0;
    for (let d = 0; d < this.dcCount; d++) {
      this.#dcQty[position * this.dcCount + d] = 0;
      this.#dcAlloc[position * this.dcCount + d] = 0;
    }
  }

  factory(position: number): { readonly quantity: number; readonly allocated: number } {
    return { quantity: this.#factoryQty[position]!, allocated: this.#factoryAlloc[position]! };
  }

  setFactory(position: number, quantity: number, allocated?: number): void {
    this.#factoryQty[position] = quantity;
    if (allocated !== undefined) this.#factoryAlloc[position] = allocated;
    else if (this.#factoryAlloc[position]! > quantity) this.#factoryAlloc[position] = quantity;
  }

  /** The stock at a flat DC index. */
  dc(index: number): { readonly quantity: number; readonly allocated: number } {
    return { quantity: this.#dcQty[index]!, allocated: this.#dcAlloc[index]! };
  }

  setDc(index: number, quantity: number, allocated?: number): void {
    this.#dcQty[index] = quantity;
    if (allocated !== undefined) this.#dcAlloc[index] = allocated;
    else if (this.#dcAlloc[index]! > quantity) this.#dcAlloc[index] = quantity;
  }
}

function grown(old: Int32Array, n: number): Int32Array {
  const next = new Int32Array(n);
  next.set(old);
  return next;
}

/** A test helper's quantity and allocation: whole, within bounds, allocation ≤ quantity. */
export function checkQuantity(quantity: number, allocated: number | undefined): void {
  const ok = (n: number) => Number.isInteger(n) && n >= 0 && n <= MAX_QUANTITY;
  if (!ok(quantity))
    throw new HttpError(400, 'invalid_parameter', 'bad quantity', 'stock_quantity');
  if (allocated !== undefined && (!ok(allocated) || allocated > quantity)) {
    throw new HttpError(400, 'invalid_parameter', 'bad allocation', 'stock_quantity_allocated');
  }
}
