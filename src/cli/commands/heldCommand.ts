import { setTimeout as sleep } from 'node:timers/promises';
import { performAsWriter } from '../../actions/requests.ts';
import type { Config } from '../../config/index.ts';
import { heldView } from '../../daemon/views.ts';
import { timesLine, when } from '../../domain/humanTime.ts';
import type { FileReport } from '../../inventory/index.ts';
import type { StateDb } from '../../state/db.ts';
import { HeldStore } from '../../state/inbox/heldStore.ts';
import { InboxLedger } from '../../state/inbox/inboxLedger.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, type CommandContext, ExitCode, nowOf } from '../command.ts';
import { commandActions } from '../nudge.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const heldUsage = `Usage: supplier-sync held [--json]

Lists the stock files and snapshot reads the guard rails hold (see GUARD_ZERO_PERCENT,
GUARD_DROP_PERCENT, GUARD_MIN_KEYS): id, file (or "snapshot"), when, and what tripped, with the
figures. Held files wait in held/ with their report; nothing of them reached the portal.
\`release ID\` applies one as it stands; \`reject ID\` moves a file to failed/ (a snapshot read is
dropped).

--json prints an array of objects: id, source (file|snapshot), file, kind, storedAs, reason,
heldAt (ISO 8601), tripped, figures, thresholds, examples.

Options:
  --json   machine-readable output
  --help   this text`;

const releaseUsage = `Usage: supplier-sync release ID [--wait SECONDS] [--json]

Applies what the guard rails hold under ID (see \`supplier-sync held\`) as it stands:
- a file goes back into inbox/ and the daemon applies it without the guard rails' check, then
  moves it to processed/. It keeps its modification time: keys that a newer file set since keep
  the newer values, and its report counts them (stock.supersededByNewerFile). The command waits
  up to --wait seconds (default 30; 0: do not wait) for the daemon to apply it and prints what
  its report says.
- a snapshot read is applied from state.db at once (keys a newer file set since keep the newer
  values), and the daemon is asked to push.

Exits 1 when nothing is held under ID, when it was released or rejected already, or when a held
file is no longer in held/ (moved or removed by hand: nothing is applied).

Options:
  --wait SECONDS   how long to wait for the daemon to apply a released file (default 30)
  --json           machine-readable output
  --help           this text`;

const rejectUsage = `Usage: supplier-sync reject ID [--json]

Rejects what the guard rails hold under ID (see \`supplier-sync held\`): a file moves from held/ to
failed/ with its report saying it was rejected; a snapshot read is dropped (the last applied
values stay). Nothing of it reaches the portal. Exits 1 when nothing is held under ID, or when
it was released or rejected already.

Options:
  --json   machine-readable output
  --help   this text`;

function parseId(positionals: readonly string[], command: string): number {
  if (positionals.length !== 1) throw new UsageError(`${command} takes exactly one ID`);
  const text = positionals[0]!;
  if (!/^\d+$/.test(text) || Number(text) < 1 || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`not a held id: '${text}' (the ids are the numbers \`held\` lists)`);
  }
  return Number(text);
}

export const heldCommand: Command = {
  name: 'held',
  usage: heldUsage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    if (positionals.length > 0) throw new UsageError('held takes no arguments');
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const entries = new HeldStore(db).open();
      if (values.json) {
        println(ctx.stdout, JSON.stringify(entries.map(heldView), null, 2));
        return ExitCode.ok;
      }
      const now = nowOf(ctx);
      printText(
        ctx.stdout,
        entries.length === 0
          ? 'nothing held by the guard rails'
          : `${entries.length} held by the guard rails (release ID applies one as it stands, reject ID drops it):`,
      );
      for (const e of entries) {
        const v = heldView(e);
        printText(
          ctx.stdout,
          `  ${e.id}  ${e.source === 'file' ? `${e.name} (held/${e.storedAs})` : 'snapshot read'}  held ${when(e.heldAt, now, config.timezone)}`,
        );
        printText(ctx.stdout, `     ${e.reason}`);
        if (v.figures) {
          const f = v.figures;
          printText(
            ctx.stdout,
            `     keys named ${f.keysNamed} (${f.keysUnknown} unknown to the portal), in stock ${f.keysInStock}, would be 0: ${f.keysZeroed}; sum ${f.sumBefore} → ${f.sumAfter}`,
          );
        }
        if (v.examples.length > 0) {
          printText(
            ctx.stdout,
            `     e.g. ${v.examples
              .slice(0, 5)
              .map((x) => `${x.key} ${x.portal}→${x.quantity}`)
              .join(', ')}`,
          );
        }
      }
      if (entries.length > 0) printText(ctx.stdout, timesLine(config.timezone, now));
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};

/** Waits for the daemon to handle the released file; its report, or undefined at the deadline. */
async function appliedReport(
  db: StateDb,
  contentHash: string,
  afterFileId: number | null,
  waitMs: number,
  signal: AbortSignal,
): Promise<FileReport | undefined> {
  const ledger = new InboxLedger(db);
  const deadline = Date.now() + waitMs;
  while (!signal.aborted) {
    const row = ledger.newestByHash(contentHash);
    if (row && row.id > (afterFileId ?? 0) && row.status !== 'committed' && row.report) {
      return JSON.parse(row.report) as FileReport;
    }
    if (Date.now() >= deadline) return undefined;
    await sleep(200, undefined, { signal }).catch(() => {});
  }
  return undefined;
}

async function release(
  ctx: CommandContext,
  config: Config,
  id: number,
  waitMs: number,
  json: boolean,
) {
  const db = openExistingState(config);
  try {
    // A signal does not cut an apply this command does itself: it goes on to its end.
    const onSignal = () =>
      printText(
        ctx.stderr,
        'the release goes on to its end; a second Ctrl-C stops at once and leaves what is left of its apply to the daemon (at its start, or within a minute while it runs)',
      );
    ctx.signal.addEventListener('abort', onSignal, { once: true });
    const result = await performAsWriter(
      commandActions(config, db),
      { action: 'release', id },
      { dataDir: config.dataDir, signal: ctx.signal },
    ).finally(() => ctx.signal.removeEventListener('abort', onSignal));
    if (result.source === 'snapshot') {
      const nudged = result.daemonNudged;
      if (json) println(ctx.stdout, JSON.stringify(result));
      else {
        printText(
          ctx.stdout,
          `released snapshot read ${id}: ${result.keys} keys applied, ${result.superseded} superseded by newer files, ${result.pendingKeys} differ from the portal${result.resumed ? ' (finishing an interrupted apply)' : ''}`,
        );
        if (!nudged)
          printText(
            ctx.stdout,
            'Redis not reachable: the daemon pushes at its next periodic check.',
          );
      }
      return ExitCode.ok;
    }
    const entry = new HeldStore(db).get(id)!;
    if (!json) {
      printText(
        ctx.stdout,
        `released held file ${id} (${result.file}): back in inbox/ as ${result.inboxName}${result.resumed ? ' (finishing an interrupted release)' : ''}`,
      );
    }
    const report =
      waitMs > 0
        ? await appliedReport(db, result.contentHash, entry.fileId, waitMs, ctx.signal)
        : undefined;
    if (json) {
      println(ctx.stdout, JSON.stringify({ ...result, applied: report ?? null }));
      return ExitCode.ok;
    }
    if (report === undefined) {
      printText(
        ctx.stdout,
        waitMs > 0
          ? `not applied within ${waitMs / 1000} s: is the daemon running? It applies it when it reads inbox/.`
          : 'the daemon applies it when it reads inbox/',
      );
    } else if (report.outcome === 'processed' && report.products !== undefined) {
      const p = report.products;
      println(
        ctx.stdout,
        `applied: ${p.toCreate} products to create, ${p.existingAtRead} the portal has (processed/${report.storedAs})`,
      );
    } else if (report.outcome === 'processed') {
      const s = report.stock;
      printText(
        ctx.stdout,
        `applied: ${s?.keys ?? 0} keys, ${s?.supersededByNewerFile ?? 0} superseded by newer files, ${s?.differingFromPortal ?? 0} differ from the portal (processed/${report.storedAs})`,
      );
    } else {
      printText(
        ctx.stdout,
        `handled as ${report.outcome}: ${report.reason ?? ''} (${report.storedAs})`,
      );
    }
    return ExitCode.ok;
  } finally {
    db.close();
  }
}

export const releaseCommand: Command = {
  name: 'release',
  usage: releaseUsage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      wait: { type: 'string', default: '30' },
    });
    const id = parseId(positionals, 'release');
    if (!/^\d+$/.test(values.wait))
      throw new UsageError(`--wait takes whole seconds, not '${values.wait}'`);
    const config = commandConfig(ctx, configFlags);
    return release(ctx, config, id, Number(values.wait) * 1000, values.json);
  },
};

export const rejectCommand: Command = {
  name: 'reject',
  usage: rejectUsage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    const id = parseId(positionals, 'reject');
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const result = await performAsWriter(
        commandActions(config, db),
        { action: 'reject', id },
        { dataDir: config.dataDir, signal: ctx.signal },
      );
      if (values.json) println(ctx.stdout, JSON.stringify(result));
      else if (result.source === 'snapshot')
        printText(
          ctx.stdout,
          `rejected snapshot read ${id}: dropped; the last applied values stay`,
        );
      else
        printText(
          ctx.stdout,
          `rejected held file ${id} (${result.file}): ${result.destination === null ? 'it was no longer in held/' : `moved to failed/ with its report`}${result.resumed ? ' (finishing an interrupted reject)' : ''}`,
        );
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
