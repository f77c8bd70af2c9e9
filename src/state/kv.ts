import type { StateDb } from './db.ts';
import { KV_KEYS, type KvKey, type KvValue } from './kvKeys.ts';

/**
 * Small named facts (cursors, learnt sizes, heartbeats, last-run outcomes) as JSON values, each
 * key with the value shape listed in kvKeys.ts.
 */
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

  /** The value, or undefined when absent or not of its key's shape. */
  get<K extends KvKey>(key: K): KvValue<K> | undefined {
    const row = this.#get.get(key);
    if (row === undefined) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(row.value);
    } catch {
      return undefined;
    }
    const parsed = KV_KEYS[key].safeParse(raw);
    return parsed.success ? (parsed.data as KvValue<K>) : undefined;
  }

  set<K extends KvKey>(key: K, value: KvValue<K>, now: number = Date.now()): void {
    this.#set.run(key, JSON.stringify(value), now);
  }

  /** Sets `key` to `change(value)` when it has a value and the change differs from it. */
  update<K extends KvKey>(
    key: K,
    change: (value: KvValue<K>) => KvValue<K>,
    now: number = Date.now(),
  ): void {
    const value = this.get(key);
    if (value === undefined) return;
    const next = change(value);
    if (JSON.stringify(next) !== JSON.stringify(value)) this.set(key, next, now);
  }

  delete(key: KvKey): void {
    this.#delete.run(key);
  }
}
