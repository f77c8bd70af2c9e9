import type { StateDb } from '../db.ts';

/** A committed hand-over whose file may still have to be put in place. */
export interface Handover {
  readonly name: string;
  readonly content: string;
  /** Orders it carries. */
  readonly orders: number;
  readonly createdAt: number;
}

/** Typed queries on outbox_handovers (see migration 5). */
export class OutboxHandovers {
  readonly #insert;
  readonly #all;
  readonly #delete;

  constructor(db: StateDb) {
    this.#insert = db.prepare<[string, string, number, number]>(
      'INSERT INTO outbox_handovers (name, content, orders, created_at) VALUES (?, ?, ?, ?)',
    );
    this.#all = db.prepare<
      [],
      { name: string; content: string; orders: number; created_at: number }
    >('SELECT name, content, orders, created_at FROM outbox_handovers ORDER BY name');
    this.#delete = db.prepare<[string]>('DELETE FROM outbox_handovers WHERE name = ?');
  }

  /** Records a hand-over (call it in the transaction that marks its orders exported). */
  record(h: Handover): void {
    this.#insert.run(h.name, h.content, h.orders, h.createdAt);
  }

  /** Hand-overs whose file may not be in place, oldest first (names sort by time). */
  unfinished(): Handover[] {
    return this.#all.all().map((r) => ({
      name: r.name,
      content: r.content,
      orders: r.orders,
      createdAt: r.created_at,
    }));
  }

  /** The file is in place: nothing left to finish. */
  finished(name: string): void {
    this.#delete.run(name);
  }
}
