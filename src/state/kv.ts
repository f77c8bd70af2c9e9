import type { StateDb } from './db.ts';

/** Small named facts (cursors, learnt sizes, heartbeats, last-run outcomes) as JSON values. */
export class KeyValueStore {
  readonly #get;
  readonly #set;
  readonly #delete;

  constructor(db: StateDb) {
    this.#get = db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
    this.#set = db.prepare<[string, string, number]>(
      `INSERT INTO kv (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.#delete = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
  }

  get<T>(key: string): T | undefined {
    const row = this.#get.get(key);
    return row === undefined ? undefined : (JSON.parse(row.value) as T);
  }

  set(key: string, value: unknown, now: number = Date.now()): void {
    this.#set.run(key, JSON.stringify(value), now);
  }

  delete(key: string): void {
    this.#delete.run(key);
  }
}
