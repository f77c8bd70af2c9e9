import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { dataPaths } from '../../config/dataPaths.ts';
import type { LedgerEntry } from '../../state/inbox/inboxLedger.ts';
import { storedName } from '../inbox/storedNames.ts';
import type { FileKind } from '../validate/kinds.ts';
import type { FileContext } from './fileContext.ts';
import { buildReport, type FileReport, type ReportInput } from './report.ts';

/** The ledger row of a file: its kind, content, size and the inode it was read from. */
export interface CommitRow {
  readonly kind: FileKind | null;
  /** Hex sha256 of the content; `special:<inode>` for a link or special file (never read). */
  readonly hash: string;
  readonly size: number;
  readonly ino: number;
}

export interface Committed {
  readonly entry: LedgerEntry;
  readonly report: FileReport;
}

/** What commit found: done, or another worker got there first (finished or mid-way). */
export type CommitResult = Committed | 'raced' | 'gone';

/**
 * What a commit writes beside the ledger row, in the same transaction (the data, a held entry),
 * and what its report is to say: given the new row's id and the name the file is stored under.
 */
export type CommitWrite = (row: {
  readonly ledgerId: number;
  readonly storedAs: string;
}) => ReportInput;

/**
 * The one write transaction of a file, exactly once: the ledger row, then `write` (the data), then
 * the report in the row. BEGIN IMMEDIATE, so two workers handling the same file serialize: inside
 * the lock the file must still be in inbox/ (same inode) and not committed by the other one.
 */
export function commit(ctx: FileContext, row: CommitRow, write: CommitWrite): CommitResult {
  const done = ctx.deps.db.transaction(() => commitRows(ctx, row, write)).immediate();
  if (typeof done === 'object') ctx.deps.hooks?.afterCommit?.();
  return done;
}

/** The inside of commit(): run within the caller's IMMEDIATE transaction. */
export function commitRows(ctx: FileContext, row: CommitRow, write: CommitWrite): CommitResult {
  const { ledger } = ctx;
  const still = lstatSync(ctx.path, { throwIfNoEntry: false });
  if (still === undefined || still.ino !== row.ino) return 'gone';
  if (!row.hash.startsWith('special:')) {
    const raced = ledger.committedByHash(row.hash);
    if (raced !== undefined && raced.name === ctx.name) return 'raced';
  }
  const id = ledger.insert({
    name: ctx.name,
    contentHash: row.hash,
    size: row.size,
    kind: row.kind,
    receivedAt: ctx.receivedAt,
    committedAt: ctx.clock.now(),
  });
  const storedAs = freshStoredName(ctx, id);
  const input = write({ ledgerId: id, storedAs });
  const report = buildReport(
    {
      file: ctx.name,
      receivedAt: ctx.receivedAt,
      now: ctx.clock.now(),
      profile: ctx.plan.profile?.match ?? null,
      ledgerId: id,
      storedAs,
      hash: row.hash,
      size: row.size,
    },
    input,
  );
  ledger.complete(id, storedAs, JSON.stringify(report));
  return { entry: ledger.get(id)!, report };
}

/** A name that exists in none of processed/, failed/ and held/. */
function freshStoredName(ctx: FileContext, id: number): string {
  const paths = dataPaths(ctx.deps.dataDir);
  let name = storedName(ctx.receivedAt, id, ctx.name);
  for (
    let n = 2;
    existsSync(join(paths.processed, name)) ||
    existsSync(join(paths.failed, name)) ||
    existsSync(join(paths.held, name));
    n++
  ) {
    name = storedName(ctx.receivedAt, id, `${n}-${ctx.name}`);
  }
  return name;
}
