import { availableParallelism } from 'node:os';
import Database, { type Statement } from 'better-sqlite3';

/**
 * The writing side of a scratch database (src/inventory/staging/stagingFile.ts): its schema, its connection
 * settings and the statements that stage rows. The same code runs in the thread that reads the
 * file and, for a large file, in a worker thread of its own (stagingWorker.ts).
 *
 * Tables (the seam other steps use, from the state connection where the file is ATTACHed as
 * `staged`):
 * - `rows (kind, dc, sku, quantity, line)`, primary key (kind, dc, sku): the set to apply;
 *   `kind` is 'factory' or 'dc', `dc` is '' for factory stock, `line` the line or record number
 *   (0 for a row added by a check, such as a full export's zeroed absent key);
 * - `raw (kind, dc, sku, quantity, line)`: rows of a file out of key order, appended as they come
 *   and moved into `rows` in key order by `settle()` (empty after it);
 * - `duplicates (id, kind, dc, sku, replaced, line)`: one row per replaced row, logged by a trigger;
 * - `named (kind, dc, sku)`: keys the file names without a row in `rows` (a row rejected for its
 *   quantity, a row a profile keeps as it is): a full export does not zero them.
 */
const SCHEMA = `
CREATE TABLE rows (
  kind     TEXT NOT NULL,
  dc       TEXT NOT NULL,
  sku      TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  line     INTEGER NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;
CREATE TABLE raw (
  kind     TEXT NOT NULL,
  dc       TEXT NOT NULL,
  sku      TEXT NOT NULL,
  quantity INTEGER NOT NULL,
  line     INTEGER NOT NULL
);
CREATE TABLE duplicates (
  id       INTEGER PRIMARY KEY,
  kind     TEXT NOT NULL,
  dc       TEXT NOT NULL,
  sku      TEXT NOT NULL,
  replaced INTEGER NOT NULL,
  line     INTEGER NOT NULL
);
CREATE TRIGGER rows_replaced AFTER UPDATE ON rows BEGIN
  INSERT INTO duplicates (kind, dc, sku, replaced, line) VALUES (old.kind, old.dc, old.sku, old.line, new.line);
END;
CREATE TABLE named (
  kind TEXT NOT NULL,
  dc   TEXT NOT NULL,
  sku  TEXT NOT NULL,
  PRIMARY KEY (kind, dc, sku)
) WITHOUT ROWID;
`;

/** Rows per INSERT statement: a multi-row VALUES list binds 3 (or 4) × 256 parameters per call. */
const ROWS_PER_INSERT = 256;
/**
 * What a row does to an earlier row of its key: replaces it (the last row wins), or, with `sum`
 * (a profile's `duplicates: "sum"`), adds its quantity (capped at the portal's largest) and keeps
 * the later line, whatever order they come in.
 */
const upsert = (sum: boolean) =>
  sum
    ? 'ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = min(quantity + excluded.quantity, 2147483647), line = max(line, excluded.line)'
    : 'ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = excluded.quantity, line = excluded.line';

/** The SQL that creates the `named` table, for a set staged before it existed. */
export const NAMED_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS named (kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL, PRIMARY KEY (kind, dc, sku)) WITHOUT ROWID';

/**
 * Buffered rows, flat: `factory` holds sku, quantity, line of each factory row; `dc` holds dc,
 * sku, quantity, line of each DC row. Each in file order.
 */
/** A connection to a scratch database of staged rows. */
export type ScratchDb = Database.Database;

export interface StockBatch {
  readonly factory: ReadonlyArray<string | number>;
  readonly dc: ReadonlyArray<string | number>;
}

/** A key the file names without a staged row: kind, dc, sku. */
export type NamedRow = readonly [string, string, string];

/**
 * Helper threads SQLite's sorter may use for a large sort on a scratch database (`settle()`'s
 * pass over the rows out of key order): as many as the machine has cores beside this thread, up
 * to 4. The thread that waits for it is a worker's (a large set), while the reading thread waits
 * for the worker: on two cores, one helper took a million shuffled rows' sort from 1.45 s to
 * about 0.9 s. (A larger page cache for the sort made it slower.)
 */
const SORT_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

/**
 * Opens a scratch database: no journal and no syncing while rows arrive (it is thrown away when
 * the process dies before the apply is decided; it is fsynced before the commit point), one
 * connection at a time, a small page cache (2 MiB: the set lives in the file and the OS cache,
 * not in the heap; a larger one staged neither sorted nor shuffled rows faster), sorts on
 * SORT_THREADS helper threads. `create` makes its tables.
 */
export function openStagingDb(path: string, create: boolean): ScratchDb {
  const db = new Database(path, { fileMustExist: !create });
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -2048');
  db.pragma('temp_store = FILE');
  db.pragma(`threads = ${SORT_THREADS}`);
  if (create) db.exec(SCHEMA);
  return db;
}

interface Insert {
  readonly many: Statement;
  readonly one: Statement;
  /** Binds the centre once per statement (DC rows), or not at all (factory rows). */
  readonly dc: boolean;
}

/**
 * Where a writer stands in the file's key order: the last SKU staged of each kind and dc (keyed
 * `kind` NUL `dc`), and whether rows have started going to `raw`. Handed to a worker thread
 * that takes over, so that it goes on where the reading thread stopped.
 */
export interface StagingOrder {
  readonly raw: boolean;
  readonly last: ReadonlyArray<readonly [string, string]>;
  /** Rows of one key add up (`duplicates: "sum"`) instead of the last replacing the others. */
  readonly sum?: boolean;
}

/**
 * Stages rows into an open scratch database.
 *
 * Rows in key order (SKUs rising within each kind and dc, as ERPs mostly export them, however
 * the centres interleave) are upserted into `rows` as they come: each goes at the right edge of
 * its range of the B-tree, a page already in the cache. From the first row out of that order on,
 * rows are appended to `raw` instead, and `settle()` moves them into `rows` in one sorted pass:
 * upserted one by one, a shuffled file cost ten times a sorted one (5.2 s against 0.45 s for 1M
 * rows), appended and sorted about three times. Every row in `raw` comes later in the file than
 * every row of its key in `rows`, so moving them in key-then-line order keeps "the last line of a
 * key wins", and the trigger logs each replaced row as before.
 */
export class StagingWriter {
  readonly db: Database.Database;
  readonly #factory: Insert;
  readonly #dc: Insert;
  readonly #rawFactory: Insert;
  readonly #rawDc: Insert;
  readonly #name: Statement<[string]>;
  readonly #sum: boolean;
  readonly #settle: Statement;
  readonly #clearRaw: Statement;
  readonly #last: Map<string, string>;
  #raw: boolean;

  constructor(db: Database.Database, order?: StagingOrder) {
    this.db = db;
    this.#sum = order?.sum ?? false;
    const UPSERT = upsert(this.#sum);
    this.#last = new Map(order?.last);
    this.#raw = order?.raw ?? false;
    // Rows of one statement go in the order given, so a later line of a key replaces an earlier.
    // A row binds only its SKU, quantity and line: the kind is written into the statement, and a
    // DC row's centre is bound once per statement (a batch's DC rows are grouped by centre first).
    // Binding the same strings with every row cost as much as the rest of the row.
    const insert = (table: string, kind: 'factory' | 'dc'): Insert => {
      const values = kind === 'factory' ? "('factory', '', ?, ?, ?)" : "('dc', @dc, ?, ?, ?)";
      const sql = (n: number) =>
        `INSERT INTO ${table} (kind, dc, sku, quantity, line) VALUES ${Array(n).fill(values).join(', ')} ${table === 'rows' ? UPSERT : ''}`;
      return { many: db.prepare(sql(ROWS_PER_INSERT)), one: db.prepare(sql(1)), dc: kind === 'dc' };
    };
    this.#factory = insert('rows', 'factory');
    this.#dc = insert('rows', 'dc');
    this.#rawFactory = insert('raw', 'factory');
    this.#rawDc = insert('raw', 'dc');
    this.#name = db.prepare<[string]>(
      `INSERT OR IGNORE INTO named (kind, dc, sku)
       SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)`,
    );
    this.#settle = db.prepare(
      `INSERT INTO rows (kind, dc, sku, quantity, line)
       SELECT kind, dc, sku, quantity, line FROM raw WHERE true ORDER BY kind, dc, sku, line
       ${UPSERT}`,
    );
    this.#clearRaw = db.prepare('DELETE FROM raw');
  }

  /** Where this writer stands (for a worker thread taking over). */
  order(): StagingOrder {
    return { raw: this.#raw, last: [...this.#last], sum: this.#sum };
  }

  /** Stages a batch in one transaction (deduplicated by key: the last row wins). */
  stage(batch: StockBatch): void {
    this.db.transaction(() => {
      this.#stageGroup('factory', '', batch.factory, this.#factory, this.#rawFactory);
      for (const [dc, rows] of byCentre(batch.dc)) {
        this.#stageGroup('dc', dc, rows, this.#dc, this.#rawDc);
      }
    })();
  }

  /** Moves the rows out of key order into `rows` (call once every row is staged). */
  settle(): void {
    if (!this.#raw) return;
    this.db.transaction(() => {
      this.#settle.run();
      this.#clearRaw.run();
    })();
  }

  /** Keeps keys the file names without a staged row. */
  name(rows: readonly NamedRow[]): void {
    if (rows.length > 0) this.#name.run(JSON.stringify(rows));
  }

  /** Rows of one kind and centre (sku, quantity, line each), in file order. */
  #stageGroup(
    kind: 'factory' | 'dc',
    dc: string,
    rows: ReadonlyArray<string | number>,
    sorted: Insert,
    raw: Insert,
  ): void {
    const inOrder = this.#raw ? 0 : this.#inOrder(`${kind}\0${dc}`, rows);
    if (inOrder > 0) {
      stageAll(sorted, inOrder === rows.length ? rows : rows.slice(0, inOrder), dc);
    }
    if (inOrder < rows.length) {
      this.#raw = true;
      stageAll(raw, inOrder === 0 ? rows : rows.slice(inOrder), dc);
    }
  }

  /** How many of the group's rows, from its start, keep its SKUs rising. */
  #inOrder(group: string, rows: ReadonlyArray<string | number>): number {
    let last = this.#last.get(group);
    for (let i = 0; i < rows.length; i += 3) {
      const sku = rows[i] as string;
      if (last !== undefined && sku < last) return i;
      last = sku;
    }
    if (last !== undefined) this.#last.set(group, last);
    return rows.length;
  }
}

/** A batch's DC rows (dc, sku, quantity, line each) by centre, each in file order, without the dc. */
function byCentre(rows: ReadonlyArray<string | number>): Map<string, Array<string | number>> {
  const out = new Map<string, Array<string | number>>();
  for (let i = 0; i < rows.length; i += 4) {
    const dc = rows[i] as string;
    let group = out.get(dc);
    if (group === undefined) {
      group = [];
      out.set(dc, group);
    }
    group.push(rows[i + 1]!, rows[i + 2]!, rows[i + 3]!);
  }
  return out;
}

function stageAll(insert: Insert, rows: ReadonlyArray<string | number>, dc: string): void {
  const per = ROWS_PER_INSERT * 3;
  const named = insert.dc ? [{ dc }] : [];
  let i = 0;
  for (; i + per <= rows.length; i += per) insert.many.run(rows.slice(i, i + per), ...named);
  for (; i < rows.length; i += 3) insert.one.run(rows.slice(i, i + 3), ...named);
}

/** Rows in a staged set (distinct keys). */
export function countStagedRows(db: ScratchDb): number {
  return db.prepare('SELECT COUNT(*) FROM rows').pluck(true).get() as number;
}
