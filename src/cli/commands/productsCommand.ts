import { PLATFORM_STATUSES, type ProductView, productsList } from '../../daemon/views.ts';
import { timesLine, when } from '../../domain/humanTime.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { openExistingState } from '../state.ts';
import { UsageError } from '../usage.ts';

const usage = `Usage: supplier-sync products [--json] [--status S] [--all]

The products the daemon created on the portal from products files, newest first, and the
platform's review of each: its status and platform status as last read (pending / inactive
while under review, then active or declined, with the platform's reason), when it was created
(local time, SYNC_TIMEZONE) and from which file. A declined product is also in outbox/
(products-declined-*.json) for the ERP.

--json prints an array of objects: sku, platformSku, name, status, platformStatus,
declinedReason, createdAt (ISO 8601), createdBy (the original name of the file that created
it), fileId (its id in \`files\`) and statusAt (when its statuses were last read; null: only the
creation's answer).

Options:
  --status S   only products of platform status S (${PLATFORM_STATUSES.join(', ')})
  --all        every product the daemon knows of the portal's (read from its product list),
               not only those it created (createdAt and createdBy are then null)
  --json       machine-readable output
  --help       this text`;

export const productsCommand: Command = {
  name: 'products',
  usage,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      status: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError('products takes no arguments');
    const status = values.status;
    if (status !== undefined && !(PLATFORM_STATUSES as readonly string[]).includes(status))
      throw new UsageError(
        `--status takes a platform status (${PLATFORM_STATUSES.join(', ')}), not '${status}'`,
      );
    const config = commandConfig(ctx, configFlags);
    const db = openExistingState(config);
    try {
      const products = productsList(db, {
        all: values.all,
        ...(status === undefined ? {} : { status }),
      });
      if (values.json) {
        println(ctx.stdout, JSON.stringify(products, null, 2));
        return ExitCode.ok;
      }
      const what = (n: number) =>
        `product${n === 1 ? '' : 's'} ${values.all ? 'known' : 'created by the daemon'}${status === undefined ? '' : ` with platform status ${status}`}`;
      if (products.length === 0) {
        printText(ctx.stdout, `no ${what(1)}`);
        return ExitCode.ok;
      }
      const now = Date.now();
      printText(ctx.stdout, `${products.length} ${what(products.length)}`);
      for (const p of products)
        for (const line of productLines(p, now, config.timezone)) printText(ctx.stdout, line);
      printText(ctx.stdout, timesLine(config.timezone, now));
      return ExitCode.ok;
    } finally {
      db.close();
    }
  },
};

/** One product in plain words: its SKUs and statuses, then where it came from, then its reason. */
function productLines(p: ProductView, now: number, tz: string): string[] {
  const review =
    p.platformStatus === 'declined'
      ? 'DECLINED'
      : p.platformStatus === 'active'
        ? 'active'
        : `under review (${p.status ?? '?'} / ${p.platformStatus ?? '?'})`;
  const lines = [
    `  ${p.sku}  ${p.platformSku ?? '-'}  ${review}${p.name === null ? '' : `  ${p.name}`}`,
  ];
  if (p.createdAt !== null)
    lines.push(
      `     created ${when(Date.parse(p.createdAt), now, tz)}${p.createdBy === null ? '' : ` from ${p.createdBy}`}`,
    );
  if (p.declinedReason !== null) lines.push(`     declined: ${p.declinedReason}`);
  return lines;
}
