import { parseFailureKeys } from '../../actions/operator.ts';
import { performAsWriter } from '../../actions/requests.ts';
import { failuresView } from '../../daemon/views.ts';
import { timesLine, when } from '../../domain/humanTime.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { commandActions } from '../nudge.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const usage = `Usage: supplier-sync failures [--json]
       supplier-sync failures retry (--all | KEY...)

Lists the items the portal rejected, with their error, attempts and next attempt (local time,
SYNC_TIMEZONE), and the shipment confirmations it refused; 'retry' puts them back in line at once.
--json prints {stock, confirmations}, times as ISO 8601 (UTC), dc null for factory keys.

Keys: factory:SKU, dc:CODE:SKU (stock), shipment:ORDER:shipped|collected (confirmations).

Options:
  --json   machine-readable output
  --all    with 'retry': every failure
  --help   this text`;

export const failuresCommand: Command = {
  name: 'failures',
  usage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
    });
    const config = commandConfig(ctx, configFlags);
    const [sub, ...keys] = positionals;
    if (sub !== undefined && sub !== 'retry') throw new UsageError(`unknown sub-command '${sub}'`);
    const db = openExistingState(config);
    try {
      if (sub === 'retry') {
        if (values.all === keys.length > 0)
          throw new UsageError('retry takes --all or one or more KEYs (not both)');
        const parsed = parseFailureKeys(keys);
        if (parsed.invalid.length > 0)
          throw new UsageError(`not a failure key: '${parsed.invalid[0]}'`);
        const result = await performAsWriter(
          commandActions(config, db),
          { action: 'retry', target: values.all ? 'all' : parsed },
          { dataDir: config.dataDir, signal: ctx.signal },
        );
        const { stock: stockFound, confirmations: confirmFound, daemonNudged: nudged } = result;
        if (values.json) println(ctx.stdout, JSON.stringify(result));
        else {
          printText(
            ctx.stdout,
            `put back in line: ${stockFound} stock items, ${confirmFound} confirmations`,
          );
          if (!nudged)
            printText(
              ctx.stdout,
              'Redis not reachable: the daemon picks them up at its next periodic check.',
            );
        }
        const missing = values.all ? 0 : keys.length - stockFound - confirmFound;
        if (missing > 0) {
          ctx.stderr.write(`${missing} of the given keys are not failures\n`);
          return ExitCode.failure;
        }
        return ExitCode.ok;
      }
      const { stock, confirmations } = failuresView(db);
      if (values.json) {
        println(ctx.stdout, JSON.stringify({ stock, confirmations }, null, 2));
        return ExitCode.ok;
      }
      const now = nowOf(ctx);
      printText(ctx.stdout, `${stock.length} stock items rejected by the portal`);
      for (const f of stock) {
        printText(
          ctx.stdout,
          `  ${f.key}  quantity ${f.quantity}  attempts ${f.attempts}  next ${when(Date.parse(f.nextAttemptAt), now, config.timezone)}  ${f.error}`,
        );
      }
      printText(
        ctx.stdout,
        `${confirmations.length} shipment confirmations refused or in conflict`,
      );
      for (const c of confirmations) {
        printText(
          ctx.stdout,
          `  ${c.key}  ${c.status}  carrier ${c.carrier}  tracking ${c.trackingNumber}  ${c.error ?? ''}`,
        );
      }
      if (stock.length > 0) printText(ctx.stdout, timesLine(config.timezone, now));
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
