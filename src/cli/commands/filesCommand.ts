import { filesList, MAX_FILES_LISTED } from '../../daemon/views.ts';
import { timesLine, when } from '../../domain/humanTime.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const usage = `Usage: supplier-sync files [--json] [--limit N]

The inbox files the daemon handled, newest first: when each came, what became of it (processed,
failed, held, duplicate, rejected: a held file an operator rejected; released: a held file an
operator released, read again and listed on its own; processing: being moved), its rows read,
accepted and rejected, why it failed or was held, and where its report is. Times are local
(SYNC_TIMEZONE). The file ledger keeps files for RETENTION_DAYS.

--json prints an array of objects: id, file, storedAs, kind, outcome, reason, receivedAt,
finishedAt (ISO 8601, null while processing), rowsRead, rowsAccepted, rowsRejected, reportPath
(null when there is no report) and heldId (the id \`release\` and \`reject\` take, while held).

Options:
  --limit N   how many files, at most ${MAX_FILES_LISTED} (default 20)
  --json      machine-readable output
  --help      this text`;

export const filesCommand: Command = {
  name: 'files',
  usage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      limit: { type: 'string', default: '20' },
    });
    if (positionals.length > 0) throw new UsageError('files takes no arguments');
    const limit = Number(values.limit);
    if (!/^\d+$/.test(values.limit) || limit < 1 || limit > MAX_FILES_LISTED)
      throw new UsageError(
        `--limit takes a whole number from 1 to ${MAX_FILES_LISTED}, not '${values.limit}'`,
      );
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const files = filesList(db, config.dataDir, limit);
      if (values.json) {
        println(ctx.stdout, JSON.stringify(files, null, 2));
        return ExitCode.ok;
      }
      if (files.length === 0) {
        printText(ctx.stdout, 'no inbox file handled yet');
        return ExitCode.ok;
      }
      const now = nowOf(ctx);
      for (const f of files) {
        const rows =
          f.outcome === 'duplicate'
            ? 'same content as a file applied before'
            : `${f.rowsRead} row(s) read, ${f.rowsAccepted} accepted, ${f.rowsRejected} rejected`;
        printText(
          ctx.stdout,
          `${when(Date.parse(f.receivedAt), now, config.timezone)}  ${f.outcome.padEnd(10)} ${f.file}  ${rows}`,
        );
        if (f.reason !== null) printText(ctx.stdout, `     ${f.reason}`);
        if (f.heldId !== null)
          printText(
            ctx.stdout,
            `     held id ${f.heldId}: \`release ${f.heldId}\` or \`reject ${f.heldId}\``,
          );
        if (f.reportPath !== null) printText(ctx.stdout, `     report: ${f.reportPath}`);
      }
      printText(ctx.stdout, timesLine(config.timezone, now));
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
