import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Database, { type Statement } from 'better-sqlite3';
import type { StockKind } from '../domain/stock.ts';

/**
 * The scratch database of one staged set (a file's or a snapshot's stock rows): its own SQLite
 * file under `<data dir>/staging/`, its own connection, no journal and no syncing while rows
 * arrive (it is thrown away when the process dies before the apply is decided). Rows are
 * deduplicated as they arrive (last line of a key wins), and every replaced row is logged in
 * `duplicates` by a trigger, so the report can list them without holding anything in memory.
 *
 * Tables (the seam other steps use, from the state connection where the file is ATTACHed as
 * `staged`):
 * - `rows (kind, dc, sku, quantity, line)`, primary key (kind, dc, sku): the set to apply;
 *   `kind` is 'factory' or 'dc', `dc` is '' for factory stock, `line` the line or record number
 *   (0 for a row added by a check, such as a full export's zeroed absent key);
 * - `duplicates (id, kind, dc, sku, replaced, line)`: one row per replaced row;
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

/** Rows buffered in JavaScript before they are staged (in one transaction). */
const BATCH = 4096;
/** Rows per INSERT statement: a multi-row VALUES list binds 3 (or 4) × 256 parameters per call. */
const ROWS_PER_INSERT = 256;
const UPSERT =
  'ON CONFLICT (kind, dc, sku) DO UPDATE SET quantity = excluded.quantity, line = excluded.line';

/** The folder of scratch databases under the data dir. */
export function stagingDir(dataDir: string): string {
  return join(dataDir, 'staging');
}

export interface StagedDuplicates {
  /** Rows replaced by a later row with the same key. */
  readonly rows: number;
  /** The first `maxKeys` keys by their first repeat, each with up to `maxLines` lines. */
  readonly keys: Array<{ kind: StockKind; dc: string; sku: string; lines: number[] }>;
  readonly keysOmitted: number;
}

export interface StagedRejection {
  readonly line: number;
  readonly field: string;
  readonly reason: string;
  readonly value?: string | undefined;
}

/**
 * Writes one staged set. `put` buffers; a full buffer is staged in one transaction of multi-row
 * upserts (rows in file order, so the last line of a key wins). `close()` stages the rest and
 * closes the connection; `sync()` makes the file durable, after which it can be ATTACHed to the
 * state connection.
 */
export class StagingFile {
  readonly name: string;
  readonly path: string;
  #db: Database.Database | undefined;
  /** A read-only connection, for reading the rejected rows back after close(). */
  #reader: Database.Database | undefined;
  /** Flat, per kind: sku, quantity, line of each buffered factory row; dc first for DC rows. */
  #factory: Array<string | number> = [];
  #dc: Array<string | number> = [];
  #rejects: Array<[number, string, string, string | null]> = [];
  readonly #stage: Record<StockKind, { many: Statement; one: Statement; width: number }>;
  readonly #reject;

  private constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.name = `${process.pid}-${randomBytes(6).toString('hex')}.db`;
    this.path = join(dir, this.name);
    const db = new Database(this.path);
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.pragma('locking_mode = EXCLUSIVE');
    // A bounded page cache (16 MiB): the set lives in the file and the OS cache, not in the heap.
    db.pragma('cache_size = -16384');
    db.pragma('temp_store = FILE');
    db.exec(SCHEMA);
    this.#db = db;
    // Rows of one statement go in the order given, so a later line of a key replaces an earlier.
    // The kind (and a factory row's empty dc) is written into the statement, not bound per row:
    // binding two constant strings a row cost as much as the rest of the row.
    const insert = (values: string, rows: number) =>
      db.prepare(
        `INSERT INTO rows (kind, dc, sku, quantity, line) VALUES ${Array(rows).fill(values).join(', ')} ${UPSERT}`,
      );
    const factory = "('factory', '', ?, ?, ?)";
    const dc = "('dc', ?, ?, ?, ?)";
    this.#stage = {
      factory: { many: insert(factory, ROWS_PER_INSERT), one: insert(factory, 1), width: 3 },
      dc: { many: insert(dc, ROWS_PER_INSERT), one: insert(dc, 1), width: 4 },
    };
    this.#reject = db.prepare<[string]>(
      `INSERT INTO rejected (line, field, reason, value)
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?)`,
    );
  }

  /** A new scratch database in `<dataDir>/staging/`. */
  static create(dataDir: string): StagingFile {
    return new StagingFile(stagingDir(dataDir));
  }

  /** Stages a stock row; a later row with the same key replaces it. */
  put(kind: StockKind, dc: string, sku: string, quantity: number, line: number): void {
    if (kind === 'factory') {
      this.#factory.push(sku, quantity, line);
      if (this.#factory.length >= BATCH * 3) this.#flushStock();
    } else {
      this.#dc.push(dc, sku, quantity, line);
      if (this.#dc.length >= BATCH * 4) this.#flushStock();
    }
  }

  /** Keeps a rejected row for the report. */
  reject(r: StagedRejection): void {
    this.#rejects.push([r.line, r.field, r.reason, r.value ?? null]);
    if (this.#rejects.length >= BATCH) this.#flushRejects();
  }

  /** Stages what is buffered (called at the end of each parsed batch, and by close()). */
  flush(): void {
    this.#flushStock();
    this.#flushRejects();
  }

  #flushStock(): void {
    if (this.#factory.length === 0 && this.#dc.length === 0) return;
    this.#open().transaction(() => {
      this.#stageAll(this.#stage.factory, this.#factory);
      this.#stageAll(this.#stage.dc, this.#dc);
    })();
    this.#factory = [];
    this.#dc = [];
  }

  #stageAll(stage: { many: Statement; one: Statement; width: number }, rows: unknown[]): void {
    const per = ROWS_PER_INSERT * stage.width;
    let i = 0;
    for (; i + per <= rows.length; i += per) stage.many.run(rows.slice(i, i + per));
    for (; i < rows.length; i += stage.width) stage.one.run(rows.slice(i, i + stage.width));
  }

  #flushRejects(): void {
    if (this.#rejects.length === 0) return;
    this.#reject.run(JSON.stringify(this.#rejects));
    this.#rejects = [];
  }

  #open(): Database.Database {
    if (this.#db === undefined) throw new Error(`staging file ${this.name} is closed`);
    return this.#db;
  }

  /** Rows in the staged set (distinct keys). */
  count(): number {
    this.flush();
    return this.#open().prepare('SELECT COUNT(*) FROM rows').pluck(true).get() as number;
  }

  /** The replaced rows, for the report. */
  duplicates(maxKeys: number, maxLines: number): StagedDuplicates {
    this.flush();
    const db = this.#open();
    const rows = db.prepare('SELECT COUNT(*) FROM duplicates').pluck(true).get() as number;
    if (rows === 0) return { rows: 0, keys: [], keysOmitted: 0 };
    db.exec('CREATE INDEX IF NOT EXISTS duplicates_key ON duplicates (kind, dc, sku, id)');
    const keyCount = db
      .prepare('SELECT COUNT(*) FROM (SELECT 1 FROM duplicates GROUP BY kind, dc, sku)')
      .pluck(true)
      .get() as number;
    const first = db.prepare<[number], { kind: StockKind; dc: string; sku: string }>(
      `SELECT kind, dc, sku FROM duplicates GROUP BY kind, dc, sku ORDER BY MIN(id) LIMIT ?`,
    );
    const lines = db.prepare<[string, string, string, number], { replaced: number; line: number }>(
      'SELECT replaced, line FROM duplicates WHERE kind = ? AND dc = ? AND sku = ? ORDER BY id LIMIT ?',
    );
    const keys = first.all(maxKeys).map((k) => {
      const seen = lines.all(k.kind, k.dc, k.sku, maxLines);
      const list = [seen[0]!.replaced, ...seen.map((s) => s.line)].slice(0, maxLines);
      return { ...k, lines: list };
    });
    return { rows, keys, keysOmitted: keyCount - keys.length };
  }

  /** Replaced rows by kind. */
  duplicateCounts(): Record<StockKind, number> {
    this.flush();
    const out: Record<StockKind, number> = { factory: 0, dc: 0 };
    const rows = this.#open()
      .prepare<[], { kind: StockKind; n: number }>(
        'SELECT kind, COUNT(*) AS n FROM duplicates GROUP BY kind',
      )
      .all();
    for (const r of rows) out[r.kind] = r.n;
    return out;
  }

  /** Rejected rows in the order they were kept, read a page at a time (for streamed reports). */
  *rejections(pageSize = 10_000): Generator<StagedRejection> {
    if (this.#db !== undefined) this.flush();
    this.#reader ??= this.#db ?? new Database(this.path, { readonly: true, fileMustExist: true });
    const page = this.#reader.prepare<
      [number, number],
      { id: number; line: number; field: string; reason: string; value: string | null }
    >('SELECT id, line, field, reason, value FROM rejected WHERE id > ? ORDER BY id LIMIT ?');
    let after = 0;
    for (;;) {
      const rows = page.all(after, pageSize);
      for (const r of rows) {
        yield r.value === null
          ? { line: r.line, field: r.field, reason: r.reason }
          : { line: r.line, field: r.field, reason: r.reason, value: r.value };
      }
      if (rows.length < pageSize) return;
      after = rows.at(-1)!.id;
    }
  }

  /** Stages the rest and closes the connection (the file stays, for ATTACH). */
  close(): void {
    if (this.#db === undefined) return;
    this.flush();
    if (this.#reader === this.#db) this.#reader = undefined;
    this.#db.close();
    this.#db = undefined;
  }

  /** Makes the file and its name durable (fsync of the file and its folder, off the event loop). */
  async sync(): Promise<void> {
    for (const p of [this.path, dirname(this.path)]) {
      const handle = await open(p, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    }
  }

  /** Closes (without syncing) and deletes the file. */
  discard(): void {
    if (this.#reader !== this.#db) this.#reader?.close();
    this.#reader = undefined;
    this.#db?.close();
    this.#db = undefined;
    removeStagingFile(this.path);
  }
}

export function removeStagingFile(path: string): void {
  for (const p of [path, `${path}-journal`]) rmSync(p, { force: true });
}

/**
 * Deletes scratch databases nobody needs: not named by a `staged_applies` row and not written by
 * another live process (a crash before the apply was decided leaves such files behind). Called at
 * start, when this process is staging nothing yet.
 */
export function removeOrphanStagingFiles(dataDir: string, keep: ReadonlySet<string>): number {
  const dir = stagingDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const base = name.replace(/-journal$/, '');
    if (keep.has(base)) continue;
    const pid = Number(/^(\d+)-/.exec(base)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    rmSync(join(dir, name), { force: true });
    removed++;
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}
