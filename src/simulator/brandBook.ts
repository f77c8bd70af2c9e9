import { alreadyExists, notFound } from './httpError.ts';
import type { Brand } from './model.ts';

/** The simulator's brands: the seeded ones and those added, by id; names unique in any case. */
export class BrandBook {
  readonly #brands = new Map<number, Brand>();
  #nextId: number;

  constructor(seeded: readonly Brand[]) {
    for (const b of seeded) this.#brands.set(b.id, { ...b });
    this.#nextId = seeded.length + 1;
  }

  list(): Brand[] {
    return [...this.#brands.values()].map((b) => ({ ...b }));
  }

  get(id: number): Brand | undefined {
    const b = this.#brands.get(id);
    return b && { ...b };
  }

  byName(name: string): Brand | undefined {
    const lower = name.toLowerCase();
    for (const b of this.#brands.values()) if (b.name.toLowerCase() === lower) return { ...b };
    return undefined;
  }

  /** Throws 422 already_exists when another brand has the name (case-insensitive). */
  add(name: string, description: string | null): Brand {
    if (this.byName(name)) throw alreadyExists('name', `The brand ${name} already exists.`);
    const brand: Brand = { id: this.#nextId++, name, description, image: null };
    this.#brands.set(brand.id, brand);
    return { ...brand };
  }

  update(id: number, name: string, description: string | null | undefined): Brand {
    const brand = this.#brands.get(id);
    if (!brand) throw notFound('id', `Brand ${id} not found.`);
    const other = this.byName(name);
    if (other && other.id !== id) throw alreadyExists('name', `The brand ${name} already exists.`);
    brand.name = name;
    if (description !== undefined) brand.description = description;
    return { ...brand };
  }

  delete(id: number): void {
    if (!this.#brands.delete(id)) throw notFound('id', `Brand ${id} not found.`);
  }
}
