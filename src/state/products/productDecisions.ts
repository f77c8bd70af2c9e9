import { perConnection, type StateDb } from '../db.ts';

/**
 * The platform's decisions on the products the daemon created (tables `product_decisions` and
 * `declined_files`, migration 41): each noticed once, and each `products-declined-*.json`
 * hand-over to the ERP with its exact content until the file is in `outbox/`.
 */
export type ReviewDecision = 'active' | 'declined';

export interface DecisionRecord {
  readonly id: number;
  readonly sku: string;
  readonly decision: ReviewDecision;
  /** The platform's reason (declined only). */
  readonly reason: string | null;
  /** When the daemon noticed it. */
  readonly noticedAt: number;
  /** The outbox file that carried it to the ERP (declined only). */
  readonly outboxFile: string | null;
}

/** A declined-products file: committed with its decisions, put in `outbox/` afterwards. */
export interface DeclinedFile {
  readonly name: string;
  readonly content: string;
  readonly products: number;
  readonly createdAt: number;
  /** When it was in place in `outbox/`; null until then. */
  readonly writtenAt: number | null;
}

/** A product declined recently and still declined, as `status` names it. */
export interface RecentlyDeclined {
  readonly sku: string;
  readonly reason: string | null;
  readonly noticedAt: number;
  readonly outboxFile: string | null;
}

interface DecisionRow {
  id: number;
  sku: string;
  decision: ReviewDecision;
  reason: string | null;
  noticed_at: number;
  outbox_file: string | null;
}

interface FileRow {
  name: string;
  content: string;
  products: number;
  created_at: number;
  written_at: number | null;
}

const toDecision = (r: DecisionRow): DecisionRecord => ({
  id: r.id,
  sku: r.sku,
  decision: r.decision,
  reason: r.reason,
  noticedAt: r.noticed_at,
  outboxFile: r.outbox_file,
});

const toFile = (r: FileRow): DeclinedFile => ({
  name: r.name,
  content: r.content,
  products: r.products,
  createdAt: r.created_at,
  writtenAt: r.written_at,
});

/** A product declined since `@since` whose latest decision is that refusal and that is declined still. */
const STILL_DECLINED = `
  FROM product_decisions d JOIN catalogue c ON c.sku = d.sku
 WHERE d.decision = 'declined' AND d.noticed_at >= @since AND c.platform_status = 'declined'
   AND d.id = (SELECT MAX(id) FROM product_decisions l WHERE l.sku = d.sku)`;

const statements = perConnection((db) => ({
  insert: db.prepare<[string, ReviewDecision, string | null, number], { id: number }>(
    `INSERT INTO product_decisions (sku, decision, reason, noticed_at) VALUES (?, ?, ?, ?)
     RETURNING id`,
  ),
  assign: db.prepare<[string, number]>('UPDATE product_decisions SET outbox_file = ? WHERE id = ?'),
  latest: db.prepare<[string], DecisionRow>(
    'SELECT * FROM product_decisions WHERE sku = ? ORDER BY id DESC LIMIT 1',
  ),
  insertFile: db.prepare<[string, string, number, number]>(
    'INSERT INTO declined_files (name, content, products, created_at) VALUES (?, ?, ?, ?)',
  ),
  unwritten: db.prepare<[], FileRow>(
    'SELECT * FROM declined_files WHERE written_at IS NULL ORDER BY created_at, name',
  ),
  unwrittenCount: db
    .prepare<[], number>('SELECT COUNT(*) FROM declined_files WHERE written_at IS NULL')
    .pluck(true),
  file: db.prepare<[string], FileRow>('SELECT * FROM declined_files WHERE name = ?'),
  written: db.prepare<[number, string]>(
    'UPDATE declined_files SET written_at = ? WHERE name = ? AND written_at IS NULL',
  ),
  recent: db.prepare<{ since: number; limit: number }, DecisionRow>(
    `SELECT d.* ${STILL_DECLINED} ORDER BY d.noticed_at DESC, d.id DESC LIMIT @limit`,
  ),
  recentCount: db
    .prepare<{ since: number }, number>(`SELECT COUNT(*) ${STILL_DECLINED}`)
    .pluck(true),
}));

export class ProductDecisions {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /** Records a decision noticed (inside the caller's transaction); returns its id. */
  record(sku: string, decision: ReviewDecision, reason: string | null, noticedAt: number): number {
    return statements(this.#db).insert.get(sku, decision, reason, noticedAt)!.id;
  }

  /** The decisions `ids` go to the ERP in the file `file` (recorded beside it, in one transaction). */
  recordFile(file: Omit<DeclinedFile, 'writtenAt'>, ids: readonly number[]): void {
    const s = statements(this.#db);
    s.insertFile.run(file.name, file.content, file.products, file.createdAt);
    for (const id of ids) s.assign.run(file.name, id);
  }

  /** The latest decision on a product; undefined when none was noticed. */
  latest(sku: string): DecisionRecord | undefined {
    const r = statements(this.#db).latest.get(sku);
    return r && toDecision(r);
  }

  /** Hand-overs whose file may not be in `outbox/` yet, oldest first. */
  unwrittenFiles(): DeclinedFile[] {
    return statements(this.#db).unwritten.all().map(toFile);
  }

  /** How many hand-overs wait for their file. */
  unwrittenCount(): number {
    return statements(this.#db).unwrittenCount.get() ?? 0;
  }

  file(name: string): DeclinedFile | undefined {
    const r = statements(this.#db).file.get(name);
    return r && toFile(r);
  }

  /** The file is in place in `outbox/`. */
  fileWritten(name: string, now: number): void {
    statements(this.#db).written.run(now, name);
  }

  /**
   * Products declined since `since` that are declined still (a later decision, an admin's
   * activation, ends it), newest first, at most `limit`; and how many there are in all.
   */
  declinedSince(
    since: number,
    limit: number,
  ): { readonly count: number; readonly products: RecentlyDeclined[] } {
    const s = statements(this.#db);
    const count = s.recentCount.get({ since }) ?? 0;
    if (count === 0) return { count, products: [] };
    const products = s.recent.all({ since, limit }).map((r) => ({
      sku: r.sku,
      reason: r.reason,
      noticedAt: r.noticed_at,
      outboxFile: r.outbox_file,
    }));
    return { count, products };
  }
}
