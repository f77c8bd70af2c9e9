import type { StateDb } from '../db.ts';

/**
 * What became of the inbox files, read from the file ledger (inbox_files) for `files`, the
 * status's last 24 h, the metrics and `explain`. Read only; the ledger itself is written by the
 * ingest (inboxFiles.ts).
 *
 * Outcomes as an operator reads them: `processed`, `failed`, `held`, `duplicate`; `rejected` (a
 * held file an operator rejected: in failed/); `released` (a held file an operator released: it
 * went back to inbox/ and was read again as a new file, listed on its own); `processing` (its
 * data committed, its move not finished yet).
 */
export type FileOutcomeName =
  | 'processed'
  | 'failed'
  | 'held'
  | 'duplicate'
  | 'rejected'
  | 'released'
  | 'processing';

export const FILE_OUTCOMES: readonly FileOutcomeName[] = [
  'processed',
  'failed',
  'held',
  'duplicate',
  'rejected',
  'released',
  'processing',
];

export interface FileRecord {
  /** The ledger id (unique, growing). */
  readonly id: number;
  /** The original name in inbox/. */
  readonly name: string;
  /** Its name in processed/, failed/ or held/; null while unknown. */
  readonly storedAs: string | null;
  /** factory_stock, dc_stock or shipment_confirmations; null when no kind was told. */
  readonly kind: string | null;
  readonly outcome: FileOutcomeName;
  /** Why it failed, was held or was a duplicate; null otherwise. */
  readonly reason: string | null;
  readonly receivedAt: number;
  /** When it was moved (or decided on, for a held file); null while processing. */
  readonly finishedAt: number | null;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
}

interface Row {
  id: number;
  name: string;
  dest_name: string | null;
  kind: string | null;
  outcome: FileOutcomeName;
  reason: string | null;
  received_at: number;
  finished_at: number | null;
  rows_read: number | null;
  rows_accepted: number | null;
  rows_rejected: number | null;
}

/** The outcome as shown; json_extract only on the few failed rows (CASE is evaluated lazily). */
const OUTCOME = `CASE
  WHEN status = 'committed' THEN 'processing'
  WHEN status = 'failed' THEN CASE WHEN json_extract(report, '$.rejectedAt') IS NULL THEN 'failed' ELSE 'rejected' END
  ELSE status END`;

const COLUMNS = `id, name, dest_name, kind, ${OUTCOME} AS outcome,
  CASE WHEN status IN ('failed', 'held', 'duplicate') THEN json_extract(report, '$.reason') END AS reason,
  received_at, finished_at, rows_read, rows_accepted, rows_rejected`;

const FINISHED = `status IN ('processed', 'failed', 'duplicate', 'held', 'released')`;

const toRecord = (r: Row): FileRecord => ({
  id: r.id,
  name: r.name,
  storedAs: r.dest_name,
  kind: r.kind,
  outcome: r.outcome,
  reason: r.reason,
  receivedAt: r.received_at,
  finishedAt: r.finished_at,
  rowsRead: r.rows_read ?? 0,
  rowsAccepted: r.rows_accepted ?? 0,
  rowsRejected: r.rows_rejected ?? 0,
});

/** The files of a window of time: counts by outcome, rejected rows, and the files to look at. */
export interface FileWindow {
  readonly since: number;
  readonly counts: Readonly<Record<FileOutcomeName, number>>;
  /** Rows rejected in the files processed or failed in the window. */
  readonly rowsRejected: number;
  /** Failed files and files processed with rejected rows, newest first (at most `problemLimit`). */
  readonly problems: readonly FileRecord[];
  /** How many there are in all. */
  readonly problemCount: number;
}

/** A rejected row of a file's report that names a key. */
export interface RejectedRowOfKey {
  readonly fileId: number;
  readonly file: string;
  readonly storedAs: string | null;
  readonly receivedAt: number;
  readonly line: number;
  readonly field: string;
  readonly reason: string;
  readonly value: string | null;
}

export class FileHistory {
  readonly #db: StateDb;

  constructor(db: StateDb) {
    this.#db = db;
  }

  /** The newest `limit` files, newest first. */
  recent(limit: number): FileRecord[] {
    return this.#db
      .prepare<[number], Row>(`SELECT ${COLUMNS} FROM inbox_files ORDER BY id DESC LIMIT ?`)
      .all(limit)
      .map(toRecord);
  }

  /** One file with its stored report (JSON text; null when none). */
  get(id: number): (FileRecord & { readonly report: string | null }) | undefined {
    const r = this.#db
      .prepare<[number], Row & { report: string | null }>(
        `SELECT ${COLUMNS}, report FROM inbox_files WHERE id = ?`,
      )
      .get(id);
    return r && { ...toRecord(r), report: r.report };
  }

  /** Files finished (moved, or decided on) since `since`; indexed by (status, finished_at). */
  window(since: number, problemLimit = 10): FileWindow {
    const counts = Object.fromEntries(FILE_OUTCOMES.map((o) => [o, 0])) as Record<
      FileOutcomeName,
      number
    >;
    let rowsRejected = 0;
    const groups = this.#db
      .prepare<[number], { outcome: FileOutcomeName; n: number; rejected: number | null }>(
        `SELECT ${OUTCOME} AS outcome, count(*) AS n, sum(rows_rejected) AS rejected
           FROM inbox_files WHERE ${FINISHED} AND finished_at >= ? GROUP BY 1`,
      )
      .all(since);
    for (const g of groups) {
      counts[g.outcome] = g.n;
      if (g.outcome === 'processed' || g.outcome === 'failed') rowsRejected += g.rejected ?? 0;
    }
    const problemWhere = `finished_at >= @since
      AND (status = 'failed' OR (status = 'processed' AND rows_rejected > 0))
      AND NOT (status = 'failed' AND json_extract(report, '$.rejectedAt') IS NOT NULL)`;
    const problems = this.#db
      .prepare<[{ since: number; limit: number }], Row>(
        `SELECT ${COLUMNS} FROM inbox_files WHERE ${problemWhere}
          ORDER BY finished_at DESC, id DESC LIMIT @limit`,
      )
      .all({ since, limit: problemLimit })
      .map(toRecord);
    const problemCount =
      problems.length < problemLimit
        ? problems.length
        : (this.#db
            .prepare<[{ since: number }], number>(
              `SELECT count(*) FROM inbox_files WHERE ${problemWhere}`,
            )
            .pluck()
            .get({ since }) ?? 0);
    return { since, counts, rowsRejected, problems, problemCount };
  }

  /**
   * Rejected rows naming `key` (`factory:SKU`, `dc:CODE:SKU`, `shipment:ORDER`) in the reports of
   * the newest `files` files that rejected rows, newest first, at most `limit`. Bounded: a report
   * in the ledger lists at most the first 1,000 rejected rows of its file (the report file beside
   * it lists every one).
   */
  rejectedRowsOfKey(key: string, files = 100, limit = 10): RejectedRowOfKey[] {
    return this.#db
      .prepare<
        [{ key: string; files: number; limit: number }],
        {
          id: number;
          name: string;
          dest_name: string | null;
          received_at: number;
          line: number;
          field: string;
          reason: string;
          value: string | null;
        }
      >(
        `SELECT f.id, f.name, f.dest_name, f.received_at,
                json_extract(j.value, '$.line') AS line, json_extract(j.value, '$.field') AS field,
                json_extract(j.value, '$.reason') AS reason, json_extract(j.value, '$.value') AS value
           FROM (SELECT id FROM inbox_files WHERE rows_rejected > 0 ORDER BY id DESC LIMIT @files) AS recent
           JOIN inbox_files f ON f.id = recent.id
           JOIN json_each(f.report, '$.rejected') AS j
          WHERE json_extract(j.value, '$.key') = @key
          ORDER BY f.id DESC, j.id DESC
          LIMIT @limit`,
      )
      .all({ key, files, limit })
      .map((r) => ({
        fileId: r.id,
        file: r.name,
        storedAs: r.dest_name,
        receivedAt: r.received_at,
        line: r.line,
        field: r.field,
        reason: r.reason,
        value: r.value,
      }));
  }
}
