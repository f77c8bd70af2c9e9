import type { StateDb } from '../db.ts';
import type { InboxFileRow, LedgerStatus } from './inboxTables.ts';

/**
 * The file ledger: one row per inbox file handled. A row is written 'committed' in the same
 * transaction as the file's data, then set to its final status once the file has been moved:
 * 'processed', 'failed', 'duplicate' or 'held' (the guard rails stopped it: in held/, nothing
 * applied). A row still 'committed' after a crash says "the data is in (or the file is held);
 * finish the move". An operator's decision on a held file sets 'released' (it goes back to inbox/
 * and is read again as a new file) or 'failed' (rejected: moved to failed/).
 */
export type { LedgerStatus } from './inboxTables.ts';

/** What the file's handling decided; kept in the report, so also in a 'committed' row. */
export type LedgerOutcome = 'processed' | 'failed' | 'duplicate' | 'held';

export interface LedgerEntry {
  readonly id: number;
  readonly name: string;
  readonly contentHash: string;
  readonly size: number;
  readonly kind: string | null;
  readonly status: LedgerStatus;
  readonly outcome: LedgerOutcome | null;
  readonly destName: string | null;
  readonly report: string | null;
  readonly receivedAt: number;
  readonly committedAt: number | null;
  readonly finishedAt: number | null;
}

/** A ledger row as read, with the outcome its report says. */
type Row = InboxFileRow & { readonly outcome: LedgerOutcome | null };

const COLUMNS = `id, name, content_hash, size, kind, status, json_extract(report, '$.outcome') AS outcome,
  dest_name, report, received_at, committed_at, finished_at`;

/**
 * A 'committed' row whose report says processed, or a finished 'processed' row: data applied.
 * `alias` qualifies the columns (`n` gives `n.status` …) for statements joining the ledger.
 */
export function appliedCondition(alias?: string): string {
  const c = alias ? `${alias}.` : '';
  return `(${c}status = 'processed' OR (${c}status = 'committed' AND json_extract(${c}report, '$.outcome') = 'processed'))`;
}
const APPLIED = appliedCondition();

function toEntry(r: Row): LedgerEntry {
  return {
    id: r.id,
    name: r.name,
    contentHash: r.content_hash,
    size: r.size,
    kind: r.kind,
    status: r.status,
    outcome: r.outcome,
    destName: r.dest_name,
    report: r.report,
    receivedAt: r.received_at,
    committedAt: r.committed_at,
    finishedAt: r.finished_at,
  };
}

export interface NewLedgerRow {
  readonly name: string;
  readonly contentHash: string;
  readonly size: number;
  readonly kind: string | null;
  readonly receivedAt: number;
  readonly committedAt: number;
}

export class InboxLedger {
  readonly #db: StateDb;
  readonly #committedByHash;
  readonly #appliedByHash;
  readonly #latestApplied;
  readonly #insert;
  readonly #complete;
  readonly #finish;
  readonly #open;
  readonly #get;
  readonly #setReportField;
  readonly #remove;

  constructor(db: StateDb) {
    this.#db = db;
    this.#setReportField = db.prepare<[string, string, number]>(
      'UPDATE inbox_files SET report = json_set(report, ?, json(?)) WHERE id = ?',
    );
    this.#remove = db.prepare<[number]>(
      "DELETE FROM inbox_files WHERE id = ? AND status = 'committed'",
    );
    this.#committedByHash = db.prepare<[string], Row>(
      `SELECT ${COLUMNS} FROM inbox_files WHERE content_hash = ? AND status = 'committed' ORDER BY id DESC LIMIT 1`,
    );
    this.#appliedByHash = db.prepare<[string], Row>(
      `SELECT ${COLUMNS} FROM inbox_files WHERE content_hash = ? AND ${APPLIED} ORDER BY id DESC LIMIT 1`,
    );
    this.#latestApplied = db
      .prepare<[string]>(
        `SELECT id FROM inbox_files WHERE kind = ? AND ${APPLIED} ORDER BY id DESC LIMIT 1`,
      )
      .pluck(true);
    this.#insert = db.prepare(
      `INSERT INTO inbox_files (name, content_hash, size, kind, status, received_at, committed_at)
       VALUES (?, ?, ?, ?, 'committed', ?, ?)`,
    );
    // The row counts are kept beside the report (migration 17), read from it here once.
    this.#complete = db.prepare<[{ dest: string; report: string; id: number }]>(
      `UPDATE inbox_files SET dest_name = @dest, report = @report,
              rows_read = json_extract(@report, '$.rowsRead'),
              rows_accepted = json_extract(@report, '$.rowsAccepted'),
              rows_rejected = json_extract(@report, '$.rowsRejected')
        WHERE id = @id`,
    );
    this.#finish = db.prepare<[LedgerStatus, number, number]>(
      `UPDATE inbox_files SET status = ?, finished_at = ? WHERE id = ? AND status = 'committed'`,
    );
    this.#open = db.prepare<[], Row>(
      `SELECT ${COLUMNS} FROM inbox_files WHERE status = 'committed' ORDER BY id`,
    );
    this.#get = db.prepare<[number], Row>(`SELECT ${COLUMNS} FROM inbox_files WHERE id = ?`);
  }

  /** The newest row with this content still waiting for its move. */
  committedByHash(hash: string): LedgerEntry | undefined {
    const r = this.#committedByHash.get(hash);
    return r && toEntry(r);
  }

  /** The newest row with this content whose data was applied. */
  appliedByHash(hash: string): LedgerEntry | undefined {
    const r = this.#appliedByHash.get(hash);
    return r && toEntry(r);
  }

  /** Id of the newest file of this kind whose data was applied. */
  latestAppliedId(kind: string): number | undefined {
    return this.#latestApplied.get(kind) as number | undefined;
  }

  /** Inserts a 'committed' row (inside the caller's transaction); returns its id. */
  insert(row: NewLedgerRow): number {
    return Number(
      this.#insert.run(
        row.name,
        row.contentHash,
        row.size,
        row.kind,
        row.receivedAt,
        row.committedAt,
      ).lastInsertRowid,
    );
  }

  /** Stores where the file goes and its report (the report's `outcome` decides the folder). */
  complete(id: number, destName: string, report: string): void {
    this.#complete.run({ dest: destName, report, id });
  }

  /** Sets one top-level field of the stored report (`field` must be a plain name). */
  setReportField(id: number, field: string, value: unknown): void {
    this.#setReportField.run(`$.${field}`, JSON.stringify(value), id);
  }

  /** Forgets a row still 'committed', so that its file is read again from the start. */
  forget(id: number): void {
    this.#remove.run(id);
  }

  /**
   * Final status once the file has been moved; a no-op on a row already finished. True when it
   * changed the row.
   */
  finish(id: number, status: Exclude<LedgerStatus, 'committed'>, now: number): boolean {
    return this.#finish.run(status, now, id).changes > 0;
  }

  /**
   * An operator's decision on a held file's row: 'released' (it is read again as a new file) or
   * 'failed' (rejected), with the report to keep. A no-op unless the row is 'held'.
   */
  decideHeld(id: number, status: 'released' | 'failed', report: string, now: number): boolean {
    return (
      this.#db
        .prepare<[string, string, number, number]>(
          `UPDATE inbox_files SET status = ?, report = ?, finished_at = ? WHERE id = ? AND status = 'held'`,
        )
        .run(status, report, now, id).changes > 0
    );
  }

  /** The newest row with this content, whatever its status. */
  newestByHash(hash: string): LedgerEntry | undefined {
    const r = this.#db
      .prepare<[string], Row>(
        `SELECT ${COLUMNS} FROM inbox_files WHERE content_hash = ? ORDER BY id DESC LIMIT 1`,
      )
      .get(hash);
    return r && toEntry(r);
  }

  /** Every row still 'committed' (for recovery at start). */
  committed(): LedgerEntry[] {
    return this.#open.all().map(toEntry);
  }

  get(id: number): LedgerEntry | undefined {
    const r = this.#get.get(id);
    return r && toEntry(r);
  }
}
