import type { StateDb } from '../db.ts';

/** A shipment as the portal lists it: only `order_number` is known for sure (the spec shows no more). */
export interface ShipmentRecord {
  readonly order_number: string;
  readonly [field: string]: unknown;
}

export interface PollOutcome {
  /** Orders on the list this time. */
  readonly listed: number;
  /** Orders seen for the first time. */
  readonly firstSeen: number;
  /** Orders that were on the list before and are not now (shipped elsewhere, cancelled). */
  readonly leftList: string[];
  /** Orders on the list that were never handed to the ERP and are not confirmed. */
  readonly toExport: ShipmentRecord[];
}

/** Every shipment seen on the ready-to-ship list, and what was handed to the ERP when. */
/** A shipment handed to the ERP and awaiting its confirmation. */
export interface AwaitingShipment {
  readonly orderNumber: string;
  readonly exportedAt: number;
  /** The outbox file that carried it. */
  readonly exportFile: string | null;
  /** When it was named in a `shipments.unconfirmed` warning; null: not yet. */
  readonly unconfirmedWarnedAt: number | null;
}

export class ShipmentStore {
  readonly #db: StateDb;
  readonly #upsert;
  readonly #exists;
  readonly #onList;
  readonly #leave;
  readonly #unexported;
  readonly #markExported;
  readonly #confirm;
  readonly #counts;
  readonly #exportedIn;
  readonly #awaitingSince;
  readonly #overdueUnwarned;
  readonly #markWarned;

  constructor(db: StateDb) {
    this.#db = db;
    this.#exists = db.prepare<[string], { n: number }>(
      'SELECT 1 AS n FROM shipments WHERE order_number = ?',
    );
    this.#upsert = db.prepare<[string, string, number, number]>(
      `INSERT INTO shipments (order_number, record, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (order_number) DO UPDATE SET record = excluded.record, last_seen_at = excluded.last_seen_at,
         left_list_at = NULL`,
    );
    this.#onList = db.prepare<[], { order_number: string }>(
      'SELECT order_number FROM shipments WHERE left_list_at IS NULL AND confirmed_at IS NULL',
    );
    this.#leave = db.prepare<[number, string]>(
      'UPDATE shipments SET left_list_at = ? WHERE order_number = ?',
    );
    this.#unexported = db.prepare<[string], { record: string }>(
      `SELECT record FROM shipments WHERE order_number = ? AND exported_at IS NULL AND confirmed_at IS NULL`,
    );
    this.#markExported = db.prepare<[number, string, string]>(
      'UPDATE shipments SET exported_at = ?, export_file = ? WHERE order_number = ? AND exported_at IS NULL',
    );
    this.#confirm = db.prepare<[number, string]>(
      'UPDATE shipments SET confirmed_at = COALESCE(confirmed_at, ?) WHERE order_number = ?',
    );
    // Each count reads an index (migration 7), never the whole table: shipments grow with time.
    // The open ones are read from the partial index that holds them only (named: the planner
    // may otherwise prefer the handed-over ones, which are many more).
    this.#counts = db.prepare<[], { open: number; exported: number; awaiting: number }>(
      `SELECT (SELECT COUNT(*) FROM shipments INDEXED BY shipments_open
                WHERE left_list_at IS NULL AND confirmed_at IS NULL) AS open,
              (SELECT COUNT(*) FROM shipments WHERE exported_at IS NOT NULL) AS exported,
              (SELECT COUNT(*) FROM shipments INDEXED BY shipments_open
                WHERE left_list_at IS NULL AND confirmed_at IS NULL AND exported_at IS NOT NULL) AS awaiting`,
    );
    this.#exportedIn = db.prepare<[string], { order_number: string }>(
      'SELECT order_number FROM shipments WHERE export_file = ? ORDER BY order_number',
    );
    const awaiting = 'exported_at IS NOT NULL AND confirmed_at IS NULL AND left_list_at IS NULL';
    this.#awaitingSince = db.prepare<[number], { order_number: string }>(
      `SELECT order_number FROM shipments WHERE ${awaiting} AND exported_at >= ? ORDER BY exported_at, order_number`,
    );
    this.#overdueUnwarned = db.prepare<[number], { order_number: string; exported_at: number }>(
      `SELECT order_number, exported_at FROM shipments
        WHERE ${awaiting} AND exported_at < ? AND unconfirmed_warned_at IS NULL
        ORDER BY exported_at, order_number`,
    );
    this.#markWarned = db.prepare<[number, string]>(
      'UPDATE shipments SET unconfirmed_warned_at = ? WHERE order_number = ? AND unconfirmed_warned_at IS NULL',
    );
  }

  /** Records one poll of the ready-to-ship list, in one transaction (or a savepoint of the caller's). */
  recordPoll(records: readonly ShipmentRecord[], now: number): PollOutcome {
    return this.#db.transaction((): PollOutcome => {
      const listed = new Set(records.map((r) => r.order_number));
      const leftList: string[] = [];
      for (const { order_number } of this.#onList.all()) {
        if (!listed.has(order_number)) {
          this.#leave.run(now, order_number);
          leftList.push(order_number);
        }
      }
      let firstSeen = 0;
      const toExport: ShipmentRecord[] = [];
      for (const r of records) {
        if (this.#exists.get(r.order_number) === undefined) firstSeen++;
        this.#upsert.run(r.order_number, JSON.stringify(r), now, now);
        if (this.#unexported.get(r.order_number)) toExport.push(r);
      }
      return { listed: listed.size, firstSeen, leftList, toExport };
    })();
  }

  /** The hand-over mark: once this commits, these orders are never exported again. */
  markExported(orders: readonly string[], file: string, now: number): void {
    this.#db.transaction(() => {
      for (const o of orders) this.#markExported.run(now, file, o);
    })();
  }

  /** Orders recorded as exported in a file (to finish a hand-over a crash interrupted). */
  exportedIn(file: string): string[] {
    return this.#exportedIn.all(file).map((r) => r.order_number);
  }

  /** The order is confirmed on the portal: it leaves the ready-to-ship view at once. */
  markConfirmed(order: string, now: number): void {
    this.#confirm.run(now, order);
  }

  /** Orders handed to the ERP since `since` and not confirmed on the portal (nor gone from the list). */
  awaitingSince(since: number): string[] {
    return this.#awaitingSince.all(since).map((r) => r.order_number);
  }

  /**
   * Orders handed to the ERP before `before`, still awaiting confirmation and never named for it:
   * marked as named now (in one transaction, so two processes never name one twice).
   */
  takeUnconfirmedBefore(
    before: number,
    now: number,
  ): Array<{ orderNumber: string; exportedAt: number }> {
    return this.#db.transaction(() =>
      this.#overdueUnwarned
        .all(before)
        .filter((r) => this.#markWarned.run(now, r.order_number).changes > 0)
        .map((r) => ({ orderNumber: r.order_number, exportedAt: r.exported_at })),
    )();
  }

  /**
   * Orders handed to the ERP and not confirmed (nor gone from the list), oldest hand-over first,
   * at most `limit` (the console's shipments page); through the shipments_awaiting index.
   */
  awaiting(limit: number): AwaitingShipment[] {
    return this.#db
      .prepare<
        [number],
        {
          order_number: string;
          exported_at: number;
          export_file: string | null;
          unconfirmed_warned_at: number | null;
        }
      >(
        `SELECT order_number, exported_at, export_file, unconfirmed_warned_at FROM shipments
          WHERE exported_at IS NOT NULL AND confirmed_at IS NULL AND left_list_at IS NULL
          ORDER BY exported_at, order_number LIMIT ?`,
      )
      .all(limit)
      .map((r) => ({
        orderNumber: r.order_number,
        exportedAt: r.exported_at,
        exportFile: r.export_file,
        unconfirmedWarnedAt: r.unconfirmed_warned_at,
      }));
  }

  counts(): { open: number; exported: number; awaitingConfirmation: number } {
    const r = this.#counts.get();
    return {
      open: r?.open ?? 0,
      exported: r?.exported ?? 0,
      awaitingConfirmation: r?.awaiting ?? 0,
    };
  }
}
