import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';

export type LogLine = Record<string, unknown> & { event?: string };

/** One line of plain words per daemon event worth showing in the demo. */
export function narrate(l: LogLine): string | undefined {
  const s = (k: string) => String(l[k] ?? '');
  switch (l.event) {
    case 'api.login':
      return '  portal: logged in (the token is kept in state.db and reused)';
    case 'file.processed':
      return `  inbox: ${s('file')} processed: ${s('rowsAccepted')} of ${s('rowsRead')} rows accepted, ${s('rowsRejected')} rejected → processed/${s('storedAs')}`;
    case 'file.held':
      return `  guard rails: ${s('file')} HELD (id ${s('heldId')}) → held/${s('storedAs')}: ${s('reason')}`;
    case 'snapshot.held':
      return `  guard rails: snapshot read HELD (id ${s('heldId')}): ${s('reason')}`;
    case 'held.rejected':
      return `  operator: rejected ${s('file')} (id ${s('heldId')}) → ${s('destination') || 'dropped'}`;
    case 'held.released':
      return `  operator: released ${s('file')} (id ${s('heldId')}): applied as it stands`;
    case 'file.failed':
      return `  inbox: ${s('file')} failed whole: ${s('reason')} → failed/${s('storedAs')}`;
    case 'sync.first_start':
      return `  sync: first ${s('kind')} sync — ${s('choice') === 'read' ? 'reading the portal' : 'pushing every desired row'} (read ≈ ${s('readCalls')} calls, push ≈ ${s('pushCalls')})`;
    case 'stock.pushed':
      return `  portal: bulk update of ${s('items')} ${s('kind')} rows: ${s('updated')} updated, ${s('failed')} rejected`;
    case 'stock.item_failed':
      return `  portal: rejected ${s('dc') ? `${s('dc')}/` : ''}${s('sku')}: ${s('error')} (kept for retry)`;
    case 'brand.created':
      return `  portal: brand ${s('name')} created (the portal did not have it)`;
    case 'product.created':
      return `  portal: product ${s('sku')} created (${s('platformSku')})${l.shortDescription ? ', its description under 100 characters' : ''}`;
    case 'product.activated':
      return `  review: ${s('sku')} activated by the platform`;
    case 'product.declined':
      return `  review: ${s('sku')} DECLINED by the platform: ${s('reason')}`;
    case 'products.declined_exported':
      return `  outbox: handed ${s('count')} declined product(s) to the ERP in outbox/${s('file')}`;
    case 'shipments.polled':
      return `  shipments: ${s('count')} ready to ship today, ${s('new')} new`;
    case 'shipments.exported':
      return `  outbox: handed ${s('count')} orders to the ERP in outbox/${s('file')}`;
    case 'shipment.confirmed':
      return `  portal: order ${s('order_number')} marked ${s('action')} (${s('carrier')})`;
    case 'shipment.confirm_failed':
      return `  portal: refused ${s('action')} for ${s('order_number')}: ${s('error')}`;
    case 'shipments.overdue':
      return `  deadline ${s('deadline')}: ${s('count')} orders handed over today are not confirmed: ${(l.orders as string[]).join(', ')}`;
    case 'shipments.deadline_met':
      return `  deadline ${s('deadline')}: every order handed over today is confirmed`;
    default:
      return undefined;
  }
}

/**
 * A stream for the daemon's logger: keeps every JSON line, emits it as 'line', and prints the
 * narrated ones (or, verbose, every line as it came).
 */
export class Narrator extends EventEmitter {
  readonly lines: LogLine[] = [];
  readonly stream: Writable;

  constructor(out: NodeJS.WritableStream, verbose: boolean) {
    super();
    let rest = '';
    this.stream = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        rest += chunk.toString();
        let nl = rest.indexOf('\n');
        while (nl >= 0) {
          const text = rest.slice(0, nl);
          rest = rest.slice(nl + 1);
          nl = rest.indexOf('\n');
          if (verbose) out.write(`${text}\n`);
          try {
            const line = JSON.parse(text) as LogLine;
            this.lines.push(line);
            const said = verbose ? undefined : narrate(line);
            if (said) out.write(`${said}\n`);
            this.emit('line', line);
          } catch {
            // not JSON: already shown when verbose
          }
        }
        done();
      },
    });
  }

  /** Resolves once `count` lines match (counting those already seen); rejects after the timeout. */
  waitFor(
    match: (l: LogLine) => boolean,
    what: string,
    count = 1,
    timeoutMs = 30_000,
  ): Promise<LogLine[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.lines.filter(match);
        if (found.length >= count) {
          cleanup();
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`the demo waited ${timeoutMs / 1000} s for ${what}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('line', check);
      };
      this.on('line', check);
      check();
    });
  }
}
