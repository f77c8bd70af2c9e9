import type { Stats } from 'node:fs';
import type { LedgerEntry } from '../../state/inbox/inboxLedger.ts';
import { formatOf } from '../parse/records.ts';
import type { FileKind } from '../validate/kinds.ts';
import { specialReason } from './entryChecks.ts';
import type { FileContext, FileOutcome } from './fileContext.ts';
import { afterCommit } from './finishFile.ts';
import { commit } from './ledgerCommit.ts';
import type { FileReport, UnreadableRead } from './report.ts';

/**
 * The files committed with nothing applied: one that cannot be applied as a whole (unreadable,
 * unsupported, every row rejected, given up), a duplicate, a link or special file.
 */

export async function commitUnreadable(
  ctx: FileContext,
  st: Stats,
  hash: string,
  read: UnreadableRead,
): Promise<FileOutcome> {
  const committed = commit(
    ctx,
    { kind: read.kind ?? null, hash, size: st.size, ino: st.ino },
    () => ({ type: 'unreadable', read }),
  );
  return afterCommit(ctx, committed, st);
}

export async function commitDuplicate(
  ctx: FileContext,
  st: Stats,
  hash: string,
  prior: LedgerEntry,
): Promise<FileOutcome> {
  const priorReport = prior.report ? (JSON.parse(prior.report) as FileReport) : undefined;
  const kind = prior.kind as FileKind | null;
  const format = priorReport?.format ?? formatOf(ctx.name);
  const committed = commit(ctx, { kind, hash, size: st.size, ino: st.ino }, () => ({
    type: 'duplicate',
    prior,
    kind,
    format: format ?? undefined,
  }));
  return afterCommit(ctx, committed, st);
}

/** A link or special file: to failed/ with a report saying why, never followed or read. */
export async function commitSpecial(ctx: FileContext, st: Stats): Promise<FileOutcome> {
  const committed = commit(
    ctx,
    { kind: null, hash: `special:${st.ino}`, size: 0, ino: st.ino },
    () => ({ type: 'special', reason: specialReason(st) }),
  );
  return afterCommit(ctx, committed, st);
}
