import { brandKey } from '../../domain/catalogue.ts';
import type { StateDb } from '../db.ts';
import { markRefreshed } from './referenceTables.ts';

/**
 * The portal's brands as the daemon knows them (table `brands`, migration 40), by name as the
 * portal compares it (trimmed, any case): `listed` (the last GET /brands showed it), `created`
 * (the daemon's POST /brands was answered), or `sending` (recorded before that call: a brand
 * found so is looked for in the portal's list before it is sent again).
 */
export class BrandCache {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /** Whether the portal is known to have a brand of this name. */
  knows(name: string): boolean {
    return (
      this.#db
        .prepare<[string], { n: number }>(
          `SELECT COUNT(*) AS n FROM brands WHERE key = ? AND state IN ('listed', 'created')`,
        )
        .get(brandKey(name))?.n === 1
    );
  }

  /** Names whose creation was sent without its answer recorded. */
  unanswered(): string[] {
    return this.#db
      .prepare<[], { name: string }>(`SELECT name FROM brands WHERE state = 'sending' ORDER BY key`)
      .all()
      .map((r) => r.name);
  }

  /**
   * The portal's whole list (GET /brands): each becomes `listed`; a `sending` brand it lacks is
   * forgotten (its creation did not land: it is sent again when needed).
   */
  storeList(brands: ReadonlyArray<{ id: number; name: string }>, now: number): void {
    const upsert = this.#db.prepare<[string, string, number, number]>(
      `INSERT INTO brands (key, name, brand_id, state, seen_at) VALUES (?, ?, ?, 'listed', ?)
       ON CONFLICT (key) DO UPDATE SET name = excluded.name, brand_id = excluded.brand_id,
         state = 'listed', sent_at = NULL, seen_at = excluded.seen_at`,
    );
    this.#db.transaction(() => {
      for (const b of brands) upsert.run(brandKey(b.name), b.name, b.id, now);
      this.#db
        .prepare<[number]>(`DELETE FROM brands WHERE state = 'sending' AND seen_at < ?`)
        .run(now);
      markRefreshed(this.#db, 'brands', now);
    })();
  }

  /** The intent, committed before POST /brands. */
  markSending(name: string, now: number): void {
    this.#db
      .prepare<[string, string, number, number]>(
        `INSERT INTO brands (key, name, state, sent_at, seen_at) VALUES (?, ?, 'sending', ?, ?)
         ON CONFLICT (key) DO UPDATE SET state = 'sending', sent_at = excluded.sent_at`,
      )
      .run(brandKey(name), name.trim(), now, 0);
  }

  /** The portal has it: answered created, or refused as a name it already has. */
  markCreated(name: string, brandId: number | null, now: number): void {
    this.#db
      .prepare<[string, string, number | null, number]>(
        `INSERT INTO brands (key, name, brand_id, state, seen_at) VALUES (?, ?, ?, 'created', ?)
         ON CONFLICT (key) DO UPDATE SET state = 'created', brand_id = COALESCE(excluded.brand_id, brands.brand_id),
           sent_at = NULL, seen_at = excluded.seen_at`,
      )
      .run(brandKey(name), name.trim(), brandId, now);
  }

  /** The call did not go (a budget or login wait): nothing to resolve. */
  forget(name: string): void {
    this.#db
      .prepare<[string]>(`DELETE FROM brands WHERE key = ? AND state = 'sending'`)
      .run(brandKey(name));
  }
}
