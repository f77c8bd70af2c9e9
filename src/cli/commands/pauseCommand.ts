import { performAsWriter } from '../../actions/requests.ts';
import { when } from '../../domain/humanTime.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { commandActions } from '../nudge.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const pauseUsage = `Usage: supplier-sync pause [--reason TEXT] [--json]

Pauses the pushes: nothing is written to the portal until \`supplier-sync resume\` (during the
ERP's maintenance, say). Meanwhile files are still read, checked and applied to what the daemon
wants on the portal (the differences wait as pending), snapshot reads and reconciliation reads go
on, and shipment polls and confirmations go on. A push in flight stops after its current batch.
The pause is kept in state.db: it survives restarts. \`status\`, \`health --json\`, the console and
/metrics (supplier_sync_paused) say since when and why. Pausing again only changes the reason.

--json prints {since (ISO 8601), reason, already}.

Options:
  --reason TEXT   why (shown by status and the console)
  --json          machine-readable output
  --help          this text`;

const resumeUsage = `Usage: supplier-sync resume [--json]

Ends a pause (see \`supplier-sync pause\`): the daemon pushes what waited. Resuming when nothing is
paused does nothing and says so.

--json prints {pause: {since (ISO 8601), reason} | null, daemonNudged}.

Options:
  --json   machine-readable output
  --help   this text`;

const iso = (t: number) => new Date(t).toISOString();

export const pauseCommand: Command = {
  name: 'pause',
  usage: pauseUsage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      reason: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError('pause takes no arguments (--reason TEXT)');
    const reason = values.reason?.trim() || null;
    if (reason !== null && reason.length > 500)
      throw new UsageError('--reason takes at most 500 characters');
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const r = await performAsWriter(
        commandActions(config, db),
        { action: 'pause', reason },
        { dataDir: config.dataDir, signal: ctx.signal },
      );
      if (values.json)
        println(
          ctx.stdout,
          JSON.stringify({ since: iso(r.since), reason: r.reason, already: r.already }),
        );
      else
        printText(
          ctx.stdout,
          `${r.already ? 'already paused' : 'paused'} since ${when(r.since, nowOf(ctx), config.timezone)}${r.reason ? ` (${r.reason})` : ''}: nothing is written to the portal until \`supplier-sync resume\``,
        );
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  usage: resumeUsage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    if (positionals.length > 0) throw new UsageError('resume takes no arguments');
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const r = await performAsWriter(
        commandActions(config, db),
        { action: 'resume' },
        { dataDir: config.dataDir, signal: ctx.signal },
      );
      if (values.json) {
        const pause = r.pause && { since: iso(r.pause.since), reason: r.pause.reason };
        println(ctx.stdout, JSON.stringify({ pause, daemonNudged: r.daemonNudged }));
      } else if (r.pause === null) printText(ctx.stdout, 'not paused: nothing to resume');
      else {
        printText(
          ctx.stdout,
          `resumed: pushes paused since ${when(r.pause.since, nowOf(ctx), config.timezone)} start again`,
        );
        if (!r.daemonNudged)
          printText(
            ctx.stdout,
            'Redis not reachable: the daemon pushes at its next periodic check.',
          );
      }
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
