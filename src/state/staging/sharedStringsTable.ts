import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database, { type Statement } from 'better-sqlite3';
import { scratchName, stagingDir } from './scratchFiles.ts';

/**
 * A workbook's shared strings past what its reader keeps in memory: a scratch SQLite file under
 * `<data dir>/staging/` (named after this process, so a crash leaves nothing that the start-up
 * clean-up of that folder does not remove), its page cache bounded at 2 MiB, gone once the
 * workbook is read. Implements the workbook reader's StringSpill.
 */
export class SharedStringsTable {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #insert: Statement<[number, string]>;
  readonly #range: Statement<[number, number], string>;

  private constructor(path: string) {
    this.path = path;
    const db = new Database(path);
    try {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('cache_size = -2048');
      db.pragma('temp_store = FILE');
      db.exec('CREATE TABLE strings (i INTEGER PRIMARY KEY, s TEXT NOT NULL)');
    } catch (err) {
      // A full disk: the file SQLite made is not left behind empty.
      db.close();
      for (const p of [path, `${path}-journal`]) rmSync(p, { force: true });
      throw err;
    }
    this.#db = db;
    // A batch goes in as one JSON array (one bound value, unpacked by SQLite): faster than
    // binding two values a string.
    this.#insert = db.prepare<[number, string]>(
      'INSERT INTO strings (i, s) SELECT ? + key, value FROM json_each(?)',
    );
    this.#range = db
      .prepare<[number, number], string>('SELECT s FROM strings WHERE i >= ? AND i < ? ORDER BY i')
      .pluck();
  }

  /** A new table in `<dataDir>/staging/`. */
  static create(dataDir: string): SharedStringsTable {
    return SharedStringsTable.createIn(stagingDir(dataDir));
  }

  /** A new table in `dir` (a command without a data dir uses the system's temp folder). */
  static createIn(dir: string): SharedStringsTable {
    mkdirSync(dir, { recursive: true });
    return new SharedStringsTable(
      join(dir, scratchName(randomBytes(6).toString('hex'), '.strings.db')),
    );
  }

  /** Stores `strings` at indices `first`, `first + 1`, … (one statement). */
  append(first: number, strings: readonly string[]): void {
    this.#insert.run(first, JSON.stringify(strings));
  }

  range(from: number, to: number): string[] {
    return this.#range.all(from, to);
  }

  discard(): void {
    if (this.#db.open) this.#db.close();
    for (const p of [this.path, `${this.path}-journal`]) rmSync(p, { force: true });
  }
}
