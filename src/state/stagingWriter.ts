import Database, { type Statement } from 'better-sqlite3';

/**
 * The writing side of a scratch database (src/state/staging.ts): its schema, its connection
 * settings and the statements that stage rows. The same code runs in the thread that reads the
 * file and, for a large file, in a worker thread of its own (stagingWorker.ts).
 *
 * Tables (the seam other steps use, from the state connection where the file is ATTACHed as
 * `staged`):
 * - `rows (kind, dc, sku, quantity, line)`, primary key (kind, dc, sku): the set to apply;
 *   `kind` is 'factory' or 'dc', `dc` is '' for factory stock, `line` the line or record number
 *   (0 for a row added by a check, such as a full export's zeroed absent key);
 * - `duplicates (id, kind, dc, sku, replaced, line)`: one row per replaced row, logged by a trigger;
 * - `rejected (id, line, field, reason, value)`: every rejected row, for the report.
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
CREATE TABLE rejected (
  id     INTEGER PRIMARY KEY,
  line   INTEGER NOT NULL,
  field  TEXT NOT NULL,
  reason TEXT NOT NULL,
  value  TEXT
);
`;

/** Rows per INSERT statement: a multi-row VALUES list binds 3 (or 4) × 256 parameters per call. */
const ROWS_PER_INSERT = 256;
const UPSERT =
  'ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = excluded.quantity, line = excluded.line';

/**
 * Buffered rows, flat: `factory` holds sku, quantity, line of each factory row; `dc` holds dc,
 * sku, quantity, line of each DC row. Each in file order.
 */
export interface StockBatch {
  readonly factory: ReadonlyArray<string | number>;
  readonly dc: ReadonlyArray<string | number>;
}

/** A rejected row: line, field, reason, value (or null). */
export type RejectRow = readonly [number, string, string, string | null];

/**
 * Opens a scratch database: no journal and no syncing while rows arrive (it is thrown away when
 * the process dies before the apply is decided; it is fsynced before the commit point), one
 * connection at a time, a small page cache (2 MiB: the set lives in the file and the OS cache,
 * not in the heap; a larger one staged neither sorted nor shuffled rows faster). `create` makes
 * its tables.
 */
export function openStagingDb(path: string, create: boolean): Database.Database {
  const db = new Database(path, { fileMustExist: !create });
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('locking_mode = EXCLUSIVE');
  db.pragma('cache_size = -2048');
  db.pragma('temp_store = FILE');
  if (create) db.exec(SCHEMA);
  return db;
}

interface Insert {
  readonly many: Statement;
  readonly one: Statement;
  /** Values a row binds. */
  readonly width: number;
}

/** Stages rows into an open scratch database. */
export class StagingWriter {
  readonly db: Database.Database;
  readonly #factory: Insert;
  readonly #dc: Insert;
  readonly #reject: Statement<[string]>;

  constructor(db: Database.Database) {
    this.db = db;
    // Rows of one statement go in the order given, so a later line of a key replaces an earlier.
    // The kind (and a factory row's empty dc) is written into the statement, not bound per row:
    // binding two constant strings a row cost as much as the rest of the row.
    const insert = (values: string, rows: number) =>
      db.prepare(
        `INSERT INTO rows (kind, dc, sku, quantity, line) VALUES ${Array(rows).fill(values).join(', ')} ${UPSERT}`,
      );
    const factory = "('factory', '', ?, ?, ?)";
    const dc = "('dc', ?, ?, ?, ?)";
    this.#factory = { many: insert(factory, ROWS_PER_INSERT), one: insert(factory, 1), width: 3 };
    this.#dc = { many: insert(dc, ROWS_PER_INSERT), one: insert(dc, 1), width: 4 };
    this.#reject = db.prepare<[string]>(
      `INSERT INTO rejected (line, field, reason, value)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
    );
  }

  /** Stages a batch in one transaction (deduplicated by key: the last row wins). */
  stage(batch: StockBatch): void {
    this.db.transaction(() => {
      stageAll(this.#factory, batch.factory);
      stageAll(this.#dc, batch.dc);
    })();
  }

  /** Keeps rejected rows for the report. */
  reject(rows: readonly RejectRow[]): void {
    if (rows.length > 0) this.#reject.run(JSON.stringify(rows));
  }
}

function stageAll(insert: Insert, rows: ReadonlyArray<string | number>): void {
  const per = ROWS_PER_INSERT * insert.width;
  let i = 0;
  for (; i + per <= rows.length; i += per) insert.many.run(rows.slice(i, i + per));
  for (; i < rows.length; i += insert.width) insert.one.run(rows.slice(i, i + insert.width));
}
