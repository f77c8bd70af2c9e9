import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { systemClock } from '../../domain/clock.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { KeyValueStore } from '../../state/kv.ts';
import { stagingDir } from '../../state/staging/scratchFiles.ts';
import { SharedStringsTable } from '../../state/staging/sharedStringsTable.ts';
import { formatOf, type InboxFormat, SUPPORTED_EXTENSIONS } from '../parse/records.ts';
import { StagingFile } from '../staging/stagingFile.ts';
import { readPlanFor } from '../validate/readPlan.ts';
import { collectFile, nothingToApply } from './collect.ts';
import { commitConfirmations } from './confirmationsCommit.ts';
import { checkEntry } from './entryChecks.ts';
import type { FileContext, FileOutcome, IngestDeps } from './fileContext.ts';
import { finishCommitted } from './finishFile.ts';
import { hashHandle } from './hash.ts';
import { FileChangedError } from './ingestErrors.ts';
import { commitProducts } from './productsCommit.ts';
import { type RouteFacts, routeFile } from './route.ts';
import { commitStock } from './stockCommit.ts';
import { commitDuplicate, commitSpecial, commitUnreadable } from './unappliedCommit.ts';

export type { FileOutcome, IngestDeps } from './fileContext.ts';
export { FileChangedError, PortalStockUnknownError } from './ingestErrors.ts';

const PROGRESS_EVERY_MS = 5000;

/**
 * Handles one inbox file, exactly once across crashes (see docs/inbox.md):
 * look at the entry (entryChecks.ts) → hash → route it (route.ts: finish an interrupted file,
 * give up, record a duplicate, refuse an extension, or read it) → one transaction with the
 * accepted rows and the ledger row (ledgerCommit.ts; stock, held and confirmations commits) →
 * report written beside the destination → file renamed into processed/, failed/ or held/ →
 * ledger row finished (finishFile.ts).
 * Throws (leaving the file in inbox/ for a later try) on I/O errors, FileChangedError,
 * PortalStockUnknownError and DcListUnavailableError; every other problem is a failed file or a
 * rejected row.
 */
export async function processInboxFile(path: string, deps: IngestDeps): Promise<FileOutcome> {
  const clock = deps.clock ?? systemClock;
  const name = basename(path);
  const ctx: FileContext = {
    path,
    name,
    deps,
    clock,
    ledger: new InboxLedger(deps.db),
    receivedAt: clock.now(),
    plan: readPlanFor(deps.profiles?.() ?? [], name, {
      now: new Date(clock.now()),
      timeZone: deps.timeZone ?? 'UTC',
    }),
    again: () => processInboxFile(path, deps),
  };
  const entry = await checkEntry(ctx);
  if (entry.type === 'done') return entry.outcome;
  if (entry.type === 'special') return commitSpecial(ctx, entry.st);
  try {
    return await processRegular(ctx, entry.handle, entry.st);
  } finally {
    await entry.handle.close();
  }
}

async function processRegular(
  ctx: FileContext,
  handle: FileHandle,
  st: Stats,
): Promise<FileOutcome> {
  const hash = await hashHandle(handle);
  const route = routeFile(routeFacts(ctx, hash, st));
  switch (route.type) {
    case 'resume':
      ctx.deps.log.info(
        { event: 'file.resumed', file: ctx.name, ledgerId: route.entry.id },
        'finishing a file committed before a restart',
      );
      return finishCommitted(ctx, route.entry, st);
    case 'give_up':
      return commitUnreadable(ctx, st, hash, {
        ok: false,
        format: formatOf(ctx.name),
        kind: undefined,
        reason: route.reason,
        rowsRead: 0,
        clamped: 0,
      });
    case 'duplicate':
      return commitDuplicate(ctx, st, hash, route.prior);
    case 'unsupported':
      return commitUnreadable(ctx, st, hash, {
        ok: false,
        format: undefined,
        kind: undefined,
        reason: `unsupported file extension: use ${SUPPORTED_EXTENSIONS}`,
        rowsRead: 0,
        clamped: 0,
      });
    case 'read':
      return readAndCommit(ctx, handle, st, hash, route.format);
  }
}

/** What routeFile decides on, read from the ledger, the attempts and kv beforehand. */
function routeFacts(ctx: FileContext, hash: string, st: Stats): RouteFacts {
  const { ledger, deps } = ctx;
  const applied = ledger.appliedByHash(hash);
  return {
    name: ctx.name,
    committed: ledger.committedByHash(hash),
    givenUp: deps.giveUp?.(st),
    applied,
    latestAppliedOfKind: applied?.kind == null ? undefined : ledger.latestAppliedId(applied.kind),
    snapshotAppliedAt: new KeyValueStore(deps.db).get('snapshot.applied_at'),
    format: formatOf(ctx.name),
  };
}

/** Reads and checks the file (staging stock rows), then commits what it holds. */
async function readAndCommit(
  ctx: FileContext,
  handle: FileHandle,
  st: Stats,
  hash: string,
  format: InboxFormat,
): Promise<FileOutcome> {
  const { deps, name } = ctx;
  deps.beforeRead?.(st);
  let lastProgress = ctx.clock.now();
  const collected = await collectFile(handle.createReadStream({ start: 0, autoClose: false }), {
    format,
    maxSkuLength: deps.maxSkuLength,
    maxRecordBytes: deps.maxRecordBytes,
    dcDirectory: deps.dcDirectory,
    ...(deps.locations ? { locations: deps.locations() } : {}),
    plan: ctx.plan,
    ...(deps.products === undefined ? {} : { products: deps.products }),
    stage: () => StagingFile.create(deps.dataDir, { sum: ctx.plan.duplicates === 'sum' }),
    workbook: {
      file: handle,
      dir: stagingDir(deps.dataDir),
      spill: () => SharedStringsTable.create(deps.dataDir),
    },
    onProgress: (rows) => {
      const now = ctx.clock.now();
      if (now - lastProgress < PROGRESS_EVERY_MS) return;
      lastProgress = now;
      deps.log.info({ event: 'file.progress', file: name, rows }, `read ${rows} rows of ${name}`);
    },
  });
  const staged = collected.staged;
  if (collected.hash !== undefined && collected.hash !== hash) {
    staged?.discard();
    throw new FileChangedError(name);
  }
  try {
    if (!collected.ok) return await commitUnreadable(ctx, st, hash, collected);
    const reason = nothingToApply(collected);
    if (reason !== undefined) {
      return await commitUnreadable(ctx, st, hash, { ...collected, ok: false, reason });
    }
    if (collected.kind === 'products') return await commitProducts(ctx, st, hash, collected);
    if (collected.kind !== 'shipment_confirmations' && staged !== undefined) {
      return await commitStock(ctx, st, hash, collected, staged);
    }
    return await commitConfirmations(ctx, st, hash, collected);
  } finally {
    staged?.discard();
  }
}
