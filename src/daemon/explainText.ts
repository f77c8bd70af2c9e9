import { when } from '../domain/humanTime.ts';
import { keyString } from '../domain/stock.ts';
import type { RejectedRowOfKey } from '../state/inbox/fileHistory.ts';
import type {
  Explanation,
  ProductFacts,
  ShipmentExplanation,
  StockExplanation,
} from './explain.ts';

type At = (t: number | null | undefined) => string;

/** `explain KEY` without --json: the key's story in a few plain sentences, times local. */
export function describeExplanation(e: Explanation, now: number, tz: string): string[] {
  const at: At = (t) => when(t === 0 ? null : t, now, tz);
  return e.type === 'stock' ? describeStock(e, at) : describeShipment(e, at);
}

const row = (label: string, text: string) => `  ${(label ? `${label}:` : '').padEnd(12)}${text}`;

function describeStock(e: StockExplanation, at: At): string[] {
  const { desired: d, file, remote, pendingSince, failure, lastPush } = e.facts;
  const out = [keyString(e.key)];
  if (d === null)
    out.push(
      row(
        'ERP',
        e.rejectedRows.length === 0
          ? 'never named this key (no file or snapshot row).'
          : 'named this key only in rejected rows (below): nothing of them was applied.',
      ),
    );
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
  if (e.product !== null) out.push(...productLines(e.key.sku, e.product, at));
  else if (failure?.notFound)
    out.push(
      row(
        'Product',
        `the portal has no product ${e.key.sku} and no products file asked for it: a products file creates it.`,
      ),
    );
  out.push(...rejectedLines(e.rejectedRows, at));
  return out;
}

/** The key's product: what a products file asked for, whether the key waits for it, its review. */
function productLines(sku: string, p: ProductFacts, at: At): string[] {
  const out: string[] = [];
  const r = p.request;
  const from = r === null ? '' : `line ${r.line} of ${r.fileName}`;
  if (p.waits && r !== null) {
    out.push(
      row(
        'Product',
        r.state === 'queued'
          ? `the key WAITS FOR ITS PRODUCT: ${from} asks for ${sku}, queued to be created (${r.attempts} attempt(s) so far); its stock is pushed once it exists.`
          : r.state === 'sending'
            ? `the key WAITS FOR ITS PRODUCT: ${from} asks for ${sku}; its creation was sent, the portal's answer is awaited.`
            : `the key WAITS FOR ITS PRODUCT, which the portal lacks: its creation from ${from} was refused${r.error ? `: ${r.error}` : ''}.`,
      ),
    );
  }
  const c = p.portal;
  if (c === null) return out;
  const made =
    c.createdByDaemon && c.createdAt !== null
      ? `created by the daemon ${at(c.createdAt)}${c.createdBy === null ? '' : ` from ${c.createdBy}`}`
      : 'on the portal, not created by the daemon';
  out.push(
    row(out.length === 0 ? 'Product' : '', `${made} (platform SKU ${c.platformSku ?? 'unknown'}).`),
  );
  const d = p.decision;
  const review =
    c.platformStatus === 'declined'
      ? `DECLINED by the platform's review${d?.decision === 'declined' ? ` (noticed ${at(d.noticedAt)})` : ''}: ${c.declinedReason ?? 'no reason given'}${d?.outboxFile ? `; handed to the ERP in outbox/${d.outboxFile}` : ''}.`
      : c.platformStatus === 'active'
        ? `active${d?.decision === 'active' ? `: activated by the platform's review (noticed ${at(d.noticedAt)})` : ''}.`
        : `${c.createdByDaemon ? "under the platform's review" : 'not active'} (status ${c.status ?? 'unknown'}, platform status ${c.platformStatus ?? 'unknown'}, as of ${at(c.statusAt ?? c.seenAt)}).`;
  out.push(row('Review', review));
  return out;
}

/** The rejected rows that named the key, one line each. */
function rejectedLines(rows: readonly RejectedRowOfKey[], at: At): string[] {
  return rows.map((r) =>
    row(
      'Rejected',
      `line ${r.line} of ${r.file} (received ${at(r.receivedAt)}): ${r.field}${r.value === null ? '' : ` "${r.value}"`}: ${r.reason}.`,
    ),
  );
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
  if (confirmations.length === 0)
    out.push(
      row(
        'From ERP',
        e.rejectedRows.length === 0
          ? 'no confirmation received.'
          : 'only in rejected rows (below): nothing of them was sent.',
      ),
    );
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
  out.push(...rejectedLines(e.rejectedRows, at));
  return out;
}
