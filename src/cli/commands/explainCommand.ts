import { explainKey, explanationJson, parseExplainKey } from '../../daemon/explain.ts';
import { describeExplanation } from '../../daemon/explainText.ts';
import { timesLine } from '../../domain/humanTime.ts';
import { keyString } from '../../domain/stock.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode, nowOf } from '../command.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const usage = `Usage: supplier-sync explain KEY [--json]

The story of one key, from state.db: for a stock key (factory:SKU, dc:CODE:SKU) what the ERP
asked for and where it came from (file and line, or the snapshot, and when), the stock rule
applied and the quantity offered, what the portal is known to hold, whether a push is owed, the
last push and its answer, a stored failure, and a held file naming it; for a shipment
(shipment:ORDER) the shipment as last listed, the outbox file that carried it to the ERP, and
each confirmation with its outcome; and rows of recent files that named the key but were rejected
as bad values (looked for in the ledger's reports of the newest 100 files that rejected rows).
Times are local (SYNC_TIMEZONE). Exits 1 when nothing is known of the key.

--json prints one object (times as ISO 8601, null where unknown): for stock keys key, kind, dc,
sku, erpQuantity, offeredQuantity, excluded, portalQuantity, portalSeenAt, pending, pendingSince,
source ({file, line, at, appliedAt, fileId, storedAs} or {snapshot: true, at, appliedAt}), rule,
failure ({error, attempts, nextAttemptAt, quantity, notFound, firstFailedAt, lastFailedAt}),
lastPush ({at, outcome: updated|rejected, quantity, portalHeld, error}), held and rejectedRows
([{file, storedAs, fileId, receivedAt, line, field, reason, value}]); for shipments
key, orderNumber, shipment (the record as listed), listed, outboxFile ({name, at, inOutbox}),
confirmedAt, unconfirmedWarnedAt and confirmations ([{action, carrier, trackingNumber,
isCollected, outcome, error, attempts, nextAttemptAt, file, line, receivedAt, confirmedAt}]) and
rejectedRows.

Options:
  --json   machine-readable output
  --help   this text`;

export const explainCommand: Command = {
  name: 'explain',
  usage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
    });
    if (positionals.length !== 1) throw new UsageError('explain takes exactly one KEY');
    const text = positionals[0]!;
    const target = parseExplainKey(text);
    if (target === undefined) {
      throw new UsageError(
        `not a key: '${text}' (expected factory:SKU, dc:CODE:SKU or shipment:ORDER)`,
      );
    }
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const e = explainKey(db, target);
      if (e === undefined) {
        ctx.stderr.write(
          target.type === 'shipment'
            ? `supplier-sync explain: nothing is known of order ${target.orderNumber}: never on the ready-to-ship list, never in a confirmation file\n`
            : `supplier-sync explain: nothing is known of ${keyString(target.key)}: the ERP never named it, and it was never read from or pushed to the portal\n`,
        );
        return ExitCode.failure;
      }
      if (values.json) println(ctx.stdout, JSON.stringify(explanationJson(e), null, 2));
      else {
        const now = nowOf(ctx);
        for (const line of describeExplanation(e, now, config.timezone))
          printText(ctx.stdout, line);
        printText(ctx.stdout, timesLine(config.timezone, now));
      }
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};
