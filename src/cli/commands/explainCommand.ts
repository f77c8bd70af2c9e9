import {
  type Explanation,
  explainKey,
  explanationJson,
  parseExplainKey,
  type ShipmentExplanation,
  type StockExplanation,
} from '../../daemon/explain.ts';
import { keyString } from '../../domain/stock.ts';
import { commandConfig, parseCommand, println } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { when } from '../format.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const usage = `Usage: supplier-sync explain KEY [--json]

The story of one key, from state.db: for a stock key (factory:SKU, dc:CODE:SKU) what the ERP
asked for and where it came from (file and line, or the snapshot, and when), the stock rule
applied and the quantity offered, what the portal is known to hold, whether a push is owed, the
last push and its answer, a stored failure, and a held file naming it; for a shipment
(shipment:ORDER) the shipment as last listed, the outbox file that carried it to the ERP, and
each confirmation with its outcome. Times are local (SYNC_TIMEZONE). Exits 1 when nothing is
known of the key.

--json prints one object (times as ISO 8601, null where unknown): for stock keys key, kind, dc,
sku, erpQuantity, offeredQuantity, excluded, portalQuantity, portalSeenAt, pending, pendingSince,
source ({file, line, at, appliedAt, fileId, storedAs} or {snapshot: true, at, appliedAt}), rule,
failure ({error, attempts, nextAttemptAt, quantity, notFound, firstFailedAt, lastFailedAt}),
lastPush ({at, outcome: updated|rejected, quantity, portalHeld, error}) and held; for shipments
key, orderNumber, shipment (the record as listed), listed, outboxFile ({name, at, inOutbox}),
confirmedAt, unconfirmedWarnedAt and confirmations ([{action, carrier, trackingNumber,
isCollected, outcome, error, attempts, nextAttemptAt, file, line, receivedAt, confirmedAt}]).

Options:
  --json   machine-readable output
  --help   this text`;

export const explainCommand: Command = {
  name: 'explain',
  summary: 'the story of one key: where its value came from, what was pushed, what failed',
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
      else for (const line of describe(e, Date.now(), config.timezone)) println(ctx.stdout, line);
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};

type At = (t: number | null | undefined) => string;

function describe(e: Explanation, now: number, tz: string): string[] {
  const at: At = (t) => when(t === 0 ? null : t, now, tz);
  return e.type === 'stock' ? describeStock(e, at) : describeShipment(e, at);
}

const row = (label: string, text: string) => `  ${(label ? `${label}:` : '').padEnd(12)}${text}`;

function describeStock(e: StockExplanation, at: At): string[] {
  const { desired: d, file, remote, pendingSince, failure, lastPush } = e.facts;
  const out = [keyString(e.key)];
  if (d === null) out.push(row('ERP', 'never named this key (no file or snapshot row).'));
  else {
    const from =
      d.sourceFileId === null
        ? 'the ERP snapshot'
        : `${d.sourceLine === null ? '' : `line ${d.sourceLine} of `}${file?.name ?? `file #${d.sourceFileId} (no longer in the ledger)`}`;
    out.push(
      row(
        'ERP',
        `asks for ${d.erpQuantity}, from ${from}, written ${at(d.sourceAt)}, applied ${at(d.appliedAt)}.`,
      ),
    );
    if (file?.storedAs) out.push(row('', `The file is kept as ${file.storedAs}.`));
    out.push(
      row(
        'Offered',
        d.excluded
          ? `nothing, never pushed: excluded by ${d.rule ?? 'a stock rule'}.`
          : d.rule === null
            ? `${d.quantity} (no stock rule applies).`
            : `${d.quantity}, by ${d.rule}.`,
      ),
    );
  }
  out.push(
    row(
      'Portal',
      remote === null
        ? 'nothing known (never read, nothing pushed that landed).'
        : `holds ${remote.quantity}, as of ${at(remote.seenAt)}.`,
    ),
  );
  out.push(
    row(
      'Push',
      pendingSince === null
        ? 'none owed.'
        : `owed since ${at(pendingSince)}${failure === null ? '' : ' (waiting for the next attempt below)'}.`,
    ),
  );
  out.push(
    row(
      'Last push',
      lastPush === null
        ? 'never.'
        : lastPush.outcome === 'updated'
          ? `${at(lastPush.at)}: sent ${lastPush.quantity}, the portal took it${lastPush.held === null ? '' : ` and says it holds ${lastPush.held}`}.`
          : `${at(lastPush.at)}: sent ${lastPush.quantity}, the portal refused it: ${lastPush.error}.`,
    ),
  );
  out.push(
    row(
      'Failure',
      failure === null
        ? 'none.'
        : `${failure.quantity} refused: ${failure.error}; ${failure.attempts} attempt(s) since ${at(failure.firstFailedAt)}, next attempt ${at(failure.nextAttemptAt)}.`,
    ),
  );
  out.push(
    row(
      'Held',
      e.held === null
        ? 'no held file names it.'
        : `${e.heldFile === null || e.heldFile.name === 'snapshot' ? 'a snapshot read' : e.heldFile.name} (held id ${e.held}) names it${e.heldFile ? `, held because ${e.heldFile.reason}` : ''}; \`release ${e.held}\` applies it, \`reject ${e.held}\` drops it.`,
    ),
  );
  return out;
}

/**
 * A record's fields on one line, without raw JSON: scalars as they are (nulls left out), a list
 * by its length, a nested object by its plain values.
 */
const fields = (record: unknown): string =>
  typeof record === 'object' && record !== null
    ? Object.entries(record)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) =>
          Array.isArray(v)
            ? `${k} (${v.length})`
            : typeof v === 'object'
              ? `${k} (${Object.values(v as object)
                  .filter((x) => x !== null && typeof x !== 'object')
                  .join(', ')})`
              : `${k} ${String(v)}`,
        )
        .join(', ')
    : String(record);

function describeShipment(e: ShipmentExplanation, at: At): string[] {
  const { orderNumber, shipment: s, confirmations } = e.facts;
  const out = [`shipment:${orderNumber}`];
  if (s === null) out.push(row('Listed', 'never seen on the ready-to-ship list.'));
  else {
    out.push(
      row(
        'Listed',
        `first ${at(s.firstSeenAt)}, last ${at(s.lastSeenAt)}${s.leftListAt === null ? '' : `; left the list ${at(s.leftListAt)}`}.`,
      ),
    );
    out.push(row('Record', fields(s.record)));
    out.push(
      row(
        'To the ERP',
        s.exportFile === null
          ? 'not handed over.'
          : `${at(s.exportedAt)} in ${s.exportFile}${s.exportUnfinished ? ' (committed; the file is put in outbox/ at the next start)' : ''}.`,
      ),
    );
    out.push(
      row(
        'Confirmed',
        s.confirmedAt !== null
          ? `on the portal ${at(s.confirmedAt)}.`
          : `not yet${s.unconfirmedWarnedAt === null ? '' : `; named as unconfirmed ${at(s.unconfirmedWarnedAt)}`}.`,
      ),
    );
  }
  if (confirmations.length === 0) out.push(row('From ERP', 'no confirmation received.'));
  for (const c of confirmations) {
    const from =
      c.file === null ? '' : ` from ${c.line === null ? '' : `line ${c.line} of `}${c.file.name}`;
    const outcome =
      c.status === 'confirmed'
        ? `confirmed ${at(c.confirmedAt)}`
        : c.status === 'pending'
          ? `pending, ${c.attempts} attempt(s), next ${at(c.nextAttemptAt)}${c.error ? ` (last: ${c.error})` : ''}`
          : `${c.status}${c.error ? `: ${c.error}` : ''}`;
    out.push(
      row(
        'From ERP',
        `${c.action} with ${c.carrier} ${c.trackingNumber}${from}, received ${at(c.receivedAt)}: ${outcome}.`,
      ),
    );
  }
  return out;
}
