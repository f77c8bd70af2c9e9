import type { StateDb } from '../db.ts';

/**
 * The portal's catalogue as the daemon knows it (table `catalogue`, migration 40): every SKU it
 * created, found by a read, or was told exists. Part of the contract's "products" listing reads
 * it; the review of new products updates its statuses.
 */
export interface CatalogueEntry {
  readonly sku: string;
  readonly platformSku: string | null;
  readonly name: string | null;
  readonly status: string | null;
  readonly platformStatus: string | null;
  readonly declinedReason: string | null;
  /** The daemon created it (through POST /products). */
  readonly createdByDaemon: boolean;
  /** When the daemon created it; null when it did not. */
  readonly createdAt: number | null;
  /** The inbox file that created it: its ledger id and original name. */
  readonly createdFileId: number | null;
  readonly createdBy: string | null;
  /** When the portal last showed it (an answer or a read). */
  readonly seenAt: number;
  /** When its statuses were last read; null: never after its creation's answer. */
  readonly statusAt: number | null;
}

/** What the portal said of a product (a creation's answer, a read of it). */
export interface ProductFacts {
  readonly sku: string;
  readonly platformSku?: string | null | undefined;
  readonly name?: string | null | undefined;
  readonly status?: string | null | undefined;
  readonly platformStatus?: string | null | undefined;
  readonly declinedReason?: string | null | undefined;
}

/** The daemon's creation of a product. */
export interface Creation {
  readonly at: number;
  readonly fileId: number;
  readonly fileName: string;
}

interface Row {
  sku: string;
  platform_sku: string | null;
  name: string | null;
  status: string | null;
  platform_status: string | null;
  declined_reason: string | null;
  created_by_daemon: number;
  created_at: number | null;
  created_file_id: number | null;
  created_by: string | null;
  seen_at: number;
  status_at: number | null;
}

const toEntry = (r: Row): CatalogueEntry => ({
  sku: r.sku,
  platformSku: r.platform_sku,
  name: r.name,
  status: r.status,
  platformStatus: r.platform_status,
  declinedReason: r.declined_reason,
  createdByDaemon: r.created_by_daemon === 1,
  createdAt: r.created_at,
  createdFileId: r.created_file_id,
  createdBy: r.created_by,
  seenAt: r.seen_at,
  statusAt: r.status_at,
});

export class Catalogue {
  readonly #db: StateDb;
  readonly #known;
  readonly #get;
  readonly #upsert;

  constructor(db: StateDb) {
    this.#db = db;
    // A product holds stock: a factory stock row the portal answered or showed says it exists.
    this.#known = db
      .prepare<[string, string], number>(
        `SELECT EXISTS (SELECT 1 FROM catalogue WHERE sku = ?)
             OR EXISTS (SELECT 1 FROM remote_stock WHERE kind = 'factory' AND dc = '' AND sku = ?)`,
      )
      .pluck(true);
    this.#get = db.prepare<[string], Row>('SELECT * FROM catalogue WHERE sku = ?');
    this.#upsert = db.prepare(
      `INSERT INTO catalogue (sku, platform_sku, name, status, platform_status, declined_reason,
                              created_by_daemon, created_at, created_file_id, created_by, seen_at,
                              status_at)
       VALUES (@sku, @platformSku, @name, @status, @platformStatus, @declinedReason,
               @createdByDaemon, @createdAt, @createdFileId, @createdBy, @now, @statusAt)
       ON CONFLICT (sku) DO UPDATE SET
         platform_sku = COALESCE(excluded.platform_sku, catalogue.platform_sku),
         name = COALESCE(excluded.name, catalogue.name),
         status = COALESCE(excluded.status, catalogue.status),
         platform_status = COALESCE(excluded.platform_status, catalogue.platform_status),
         declined_reason = CASE WHEN excluded.platform_status IS NULL THEN catalogue.declined_reason
                                ELSE excluded.declined_reason END,
         created_by_daemon = MAX(catalogue.created_by_daemon, excluded.created_by_daemon),
         created_at = COALESCE(catalogue.created_at, excluded.created_at),
         created_file_id = COALESCE(catalogue.created_file_id, excluded.created_file_id),
         created_by = COALESCE(catalogue.created_by, excluded.created_by),
         seen_at = excluded.seen_at,
         status_at = COALESCE(excluded.status_at, catalogue.status_at)`,
    );
  }

  /** Whether the portal is known to have a product with this SKU. */
  knows(sku: string): boolean {
    return this.#known.get(sku, sku) === 1;
  }

  get(sku: string): CatalogueEntry | undefined {
    const r = this.#get.get(sku);
    return r && toEntry(r);
  }

  /** The portal has this product: what it said of it, and (when the daemon made it) its creation. */
  record(facts: ProductFacts, now: number, creation?: Creation): void {
    this.#upsert.run({
      sku: facts.sku,
      platformSku: facts.platformSku ?? null,
      name: facts.name ?? null,
      status: facts.status ?? null,
      platformStatus: facts.platformStatus ?? null,
      declinedReason: facts.declinedReason ?? null,
      createdByDaemon: creation === undefined ? 0 : 1,
      createdAt: creation?.at ?? null,
      createdFileId: creation?.fileId ?? null,
      createdBy: creation?.fileName ?? null,
      now,
      statusAt: facts.platformStatus == null ? null : now,
    });
  }

  /**
   * The products the daemon created that the platform's review has not decided yet (platform
   * status neither `active` nor `declined`), oldest first.
   */
  undecided(): CatalogueEntry[] {
    return this.#db
      .prepare<[], Row>(
        `SELECT * FROM catalogue WHERE created_by_daemon = 1
            AND (platform_status IS NULL OR platform_status NOT IN ('active', 'declined'))
          ORDER BY created_at, sku`,
      )
      .all()
      .map(toEntry);
  }

  /**
   * When the oldest undecided product the daemon created was created (its last sighting when the
   * time is unknown); null when none is undecided.
   */
  oldestUndecidedAt(): number | null {
    return (
      this.#db
        .prepare<[], { at: number | null }>(
          `SELECT MIN(COALESCE(created_at, seen_at)) AS at FROM catalogue WHERE created_by_daemon = 1
              AND (platform_status IS NULL OR platform_status NOT IN ('active', 'declined'))`,
        )
        .get()?.at ?? null
    );
  }

  /** How many products are known with each platform status (null: none read). */
  countByPlatformStatus(): Readonly<Record<string, number>> {
    const rows = this.#db
      .prepare<[], { status: string | null; n: number }>(
        'SELECT platform_status AS status, COUNT(*) AS n FROM catalogue GROUP BY platform_status',
      )
      .all();
    return Object.fromEntries(rows.map((r) => [r.status ?? 'null', r.n]));
  }

  /** How many products the daemon created, and how many of them the review has not decided. */
  createdCounts(): { readonly created: number; readonly undecided: number } {
    const r = this.#db
      .prepare<[], { created: number; undecided: number | null }>(
        `SELECT COUNT(*) AS created,
                SUM(platform_status IS NULL OR platform_status NOT IN ('active', 'declined')) AS undecided
           FROM catalogue WHERE created_by_daemon = 1`,
      )
      .get();
    return { created: r?.created ?? 0, undecided: r?.undecided ?? 0 };
  }

  /** Whether the catalogue holds any product at all. */
  isEmpty(): boolean {
    return this.#db.prepare('SELECT 1 FROM catalogue LIMIT 1').get() === undefined;
  }

  /**
   * The products the daemon created (`all`: every one it knows), newest first, optionally of one
   * platform status; at most `limit` (none: every one).
   */
  list(options: { all?: boolean; platformStatus?: string; limit?: number } = {}): CatalogueEntry[] {
    const where: string[] = [];
    const args: Array<string | number> = [];
    if (!options.all) where.push('created_by_daemon = 1');
    if (options.platformStatus !== undefined) {
      where.push('platform_status = ?');
      args.push(options.platformStatus);
    }
    args.push(options.limit ?? -1);
    return this.#db
      .prepare<typeof args, Row>(
        `SELECT * FROM catalogue ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY created_at IS NULL, created_at DESC, sku LIMIT ?`,
      )
      .all(...args)
      .map(toEntry);
  }
}
