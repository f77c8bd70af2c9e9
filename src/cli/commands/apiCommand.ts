import type {
  BrandInput,
  BulkResult,
  CallOptions,
  DcStockItem,
  FactoryStockItem,
  Lane,
  Page,
  ProductInput,
  ShipmentActionInput,
} from '../../api/index.ts';
import {
  BulkIncompleteError,
  budgetStatus,
  clearLoginBlock,
  createPortalClient,
  isPortalError,
  LANES,
  type PortalClient,
} from '../../api/index.ts';
import { type Config, dataPaths } from '../../config/index.ts';
import type { StockKind } from '../../domain/stock.ts';
import { createLogger, type Logger } from '../../log/logger.ts';
import { openStateDb } from '../../state/db.ts';
import { classifyBulkAnswer, MISSING_FROM_ANSWER } from '../../sync/index.ts';
import { commandConfig, parseCommand, println } from '../args.ts';
import { type Command, type CommandContext, ExitCode } from '../command.ts';
import { UsageError } from '../usage.ts';
import { arrayBody, body, intArg, intOption, opt, scopes, textArg } from './apiArgs.ts';

const usage = `Usage: supplier-sync api <resource> <action> [args] [options]

Direct access to every endpoint of the Supplier Portal, for operators. Answers are printed as JSON
on stdout; logs and errors go to stderr. Calls go through the daemon's client: the token, the login
cap and the hourly call budget in state.db (under SYNC_DATA_DIR) are shared with the daemon.

Resources and actions:
  brands list
  brands create                  --json-body '{"name":"…","description":"…"}'
  brands update ID               --json-body '{"name":"…","description":"…"}'
  brands delete ID
  products list                  [--status S] [--platform-status S] [--search TEXT]
                                 [--scope a,b,…] [--per-page N] [--cursor C] [--all]
  products get SKU|PLATFORM_SKU
  products create                --json-body '{"sku":"…","name":"…","brand":"…",…}'
  sites list
  distribution-centres list
  tax-rates list
  dc-stock list                  [--per-page N] [--cursor C] [--all]
  dc-stock update                --json-body '{"distribution_centre_code":"…","sku":"…","stock_quantity":N}'
  dc-stock bulk-update           --json-body '[{"distribution_centre_code":"…","sku":"…","stock_quantity":N},…]'
  factory-stock list             [--stock-quantity-gte N] [--stock-quantity-lte N]
                                 [--stock-quantity-allocated-gte N] [--stock-quantity-allocated-lte N]
                                 [--per-page N] [--cursor C] [--all]
  factory-stock update           --json-body '{"sku":"…","stock_quantity":N}'
  factory-stock bulk-update      --json-body '[{"sku":"…","stock_quantity":N},…]'
  shipments list                 [--status S]
  shipments ready-to-ship
  shipments get ORDER
  shipments shipped ORDER        --json-body '{"carrier":"…","tracking_number":"…","is_collected":false}'
  shipments collected ORDER      --json-body '{"carrier":"…","tracking_number":"…"}'
  budget status                  calls used in the last hour and what each lane has left (no call)
  login-block clear              let logins go again after the portal refused the credentials (no call)

Paged lists (products, dc-stock, factory-stock): without --all one page is printed as
{"data":[…],"next_cursor":…,"prev_cursor":…}; pass --cursor to get the next one. With --all every
item of every page is streamed as JSON lines (one object per line, as pages arrive), and each
page's next cursor is logged (event api.page) so an interrupted walk can go on with --cursor.
Bulk updates print {"updated":[…],"errors":[…],"missing":[…]}: missing items were in neither list.

Options:
  --json-body JSON     request body (JSON text)
  --body-file FILE     request body read from a JSON file
  --all                page through the whole list (JSON lines)
  --cursor C           start at this page cursor
  --per-page N         rows a page of a paged list (the portal may cap it)
  --lane L             budget lane: operator (default), shipments, stock or reconcile
  --wait               wait for the call budget instead of failing when it is spent
  --unanswered-before  shipments shipped/collected: an earlier attempt got no answer, so
                       "already done" with the same carrier and tracking counts as success
  --help               this text

Needs SUPPLIER_API_URL, SUPPLIER_EMAIL and SUPPLIER_PASSWORD (or _FILE) for portal calls.`;

const options = {
  'json-body': { type: 'string' },
  'body-file': { type: 'string' },
  all: { type: 'boolean' },
  cursor: { type: 'string' },
  lane: { type: 'string' },
  wait: { type: 'boolean' },
  'unanswered-before': { type: 'boolean' },
  status: { type: 'string' },
  'platform-status': { type: 'string' },
  search: { type: 'string' },
  scope: { type: 'string' },
  'per-page': { type: 'string' },
  'stock-quantity-gte': { type: 'string' },
  'stock-quantity-lte': { type: 'string' },
  'stock-quantity-allocated-gte': { type: 'string' },
  'stock-quantity-allocated-lte': { type: 'string' },
} as const;

type Values = ReturnType<typeof parseCommand<typeof options>>['values'];

interface Invocation {
  readonly client: PortalClient;
  readonly args: readonly string[];
  readonly values: Values;
  readonly call: CallOptions;
  readonly out: NodeJS.WritableStream;
  readonly logger: Logger;
}

type Handler = (inv: Invocation) => Promise<unknown>;

/** Every resource/action and what it runs; `--help` lists the same set. */
const actions: Record<string, Record<string, Handler>> = {
  brands: {
    list: ({ client, call }) => client.brands.list(call),
    create: ({ client, values, call }) => client.brands.create(body<BrandInput>(values), call),
    update: ({ client, args, values, call }) =>
      client.brands.update(intArg(args, 'ID'), body<BrandInput>(values), call),
    delete: ({ client, args, call }) => client.brands.delete(intArg(args, 'ID'), call),
  },
  products: {
    list: (inv) => {
      const v = inv.values;
      const query = {
        ...opt('status', v.status),
        ...opt('platform_status', v['platform-status']),
        ...opt('search', v.search),
        ...opt('scope', v.scope === undefined ? undefined : scopes(v.scope)),
        ...opt('per_page', perPage(v)),
      };
      return list(
        inv,
        (cursor) => inv.client.products.list({ ...query, ...opt('cursor', cursor) }, inv.call),
        (cursor) => inv.client.products.pages(query, { ...inv.call, cursor }),
      );
    },
    get: ({ client, args, call }) => client.products.get(textArg(args, 'SKU'), call),
    create: ({ client, values, call }) => client.products.create(body<ProductInput>(values), call),
  },
  sites: { list: ({ client, call }) => client.reference.sites(call) },
  'distribution-centres': {
    list: ({ client, call }) => client.reference.distributionCentres(call),
  },
  'tax-rates': { list: ({ client, call }) => client.reference.taxRates(call) },
  'dc-stock': {
    list: (inv) => {
      const query = opt('per_page', perPage(inv.values));
      return list(
        inv,
        (cursor) => inv.client.dcStock.list({ ...query, ...opt('cursor', cursor) }, inv.call),
        (cursor) => inv.client.dcStock.pages({ ...inv.call, cursor }, query),
      );
    },
    update: ({ client, values, call }) => client.dcStock.update(body<DcStockItem>(values), call),
    'bulk-update': ({ client, values, call }) =>
      bulk('dc', arrayBody<DcStockItem>(values), (items) => client.dcStock.bulkUpdate(items, call)),
  },
  'factory-stock': {
    list: (inv) => {
      const v = inv.values;
      const filters = {
        ...opt('stock_quantity_gte', intOption(v['stock-quantity-gte'], '--stock-quantity-gte')),
        ...opt('stock_quantity_lte', intOption(v['stock-quantity-lte'], '--stock-quantity-lte')),
        ...opt(
          'stock_quantity_allocated_gte',
          intOption(v['stock-quantity-allocated-gte'], '--stock-quantity-allocated-gte'),
        ),
        ...opt(
          'stock_quantity_allocated_lte',
          intOption(v['stock-quantity-allocated-lte'], '--stock-quantity-allocated-lte'),
        ),
        ...opt('per_page', perPage(v)),
      };
      return list(
        inv,
        (cursor) =>
          inv.client.factoryStock.list({ ...filters, ...opt('cursor', cursor) }, inv.call),
        (cursor) => inv.client.factoryStock.pages(filters, { ...inv.call, cursor }),
      );
    },
    update: ({ client, values, call }) =>
      client.factoryStock.update(body<FactoryStockItem>(values), call),
    'bulk-update': ({ client, values, call }) =>
      bulk('factory', arrayBody<FactoryStockItem>(values), (items) =>
        client.factoryStock.bulkUpdate(items, call),
      ),
  },
  shipments: {
    list: ({ client, values, call }) => client.shipments.list(opt('status', values.status), call),
    'ready-to-ship': ({ client, call }) => client.shipments.readyToShip(call),
    get: ({ client, args, call }) => client.shipments.get(textArg(args, 'ORDER'), call),
    shipped: ({ client, args, values, call }) =>
      client.shipments.shipped(textArg(args, 'ORDER'), body<ShipmentActionInput>(values), {
        ...call,
        previousAttemptUnanswered: values['unanswered-before'] === true,
      }),
    collected: ({ client, args, values, call }) =>
      client.shipments.collected(textArg(args, 'ORDER'), body<ShipmentActionInput>(values), {
        ...call,
        previousAttemptUnanswered: values['unanswered-before'] === true,
      }),
  },
};

/** Actions that read state.db only (no portal call, no credentials needed). */
const local: Record<
  string,
  Record<string, (config: Config, out: NodeJS.WritableStream) => void>
> = {
  budget: {
    status: (config, out) => {
      const db = openStateDb(dataPaths(config.dataDir).stateDb);
      try {
        printJson(out, budgetStatus(db, config, Date.now()));
      } finally {
        db.close();
      }
    },
  },
  'login-block': {
    clear: (config, out) => {
      const db = openStateDb(dataPaths(config.dataDir).stateDb);
      try {
        printJson(out, { cleared: clearLoginBlock(db) });
      } finally {
        db.close();
      }
    },
  },
};

export const apiCommand: Command = {
  name: 'api',
  usage,
  async run(ctx: CommandContext): Promise<number> {
    const { values, positionals, configFlags } = parseCommand(ctx, options);
    const [resource, action, ...args] = positionals;
    if (resource === undefined || resource === 'help') {
      println(ctx.stdout, usage);
      return resource === undefined ? ExitCode.usage : ExitCode.ok;
    }
    const localAction = local[resource]?.[action ?? ''];
    if (localAction) {
      localAction(commandConfig(ctx, configFlags), ctx.stdout);
      return ExitCode.ok;
    }
    const handler = actions[resource]?.[action ?? ''];
    if (handler === undefined) {
      const known = actions[resource] ?? local[resource];
      throw new UsageError(
        known
          ? `unknown action '${action ?? ''}' for ${resource}; one of: ${Object.keys(known).join(', ')}`
          : `unknown resource '${resource}'; one of: ${[...Object.keys(actions), ...Object.keys(local)].join(', ')}`,
      );
    }
    if (values['per-page'] !== undefined && !PAGED.has(`${resource} ${action}`)) {
      throw new UsageError(`--per-page applies to the paged lists only: ${[...PAGED].join(', ')}`);
    }
    const lane = (values.lane ?? 'operator') as Lane;
    if (!LANES.includes(lane)) throw new UsageError(`--lane must be one of ${LANES.join(', ')}`);

    const config = commandConfig(ctx, configFlags, ['apiUrl', 'email', 'password']);
    const logger = createLogger({ level: config.logLevel, destination: ctx.stderr, pretty: false });
    const db = openStateDb(dataPaths(config.dataDir).stateDb);
    const client = createPortalClient({
      baseUrl: config.apiUrl!,
      email: config.email!,
      password: config.password!,
      db,
      log: logger,
      settings: config,
      lane,
    });
    const call: CallOptions = { lane, waitForBudget: values.wait === true, signal: ctx.signal };
    try {
      const result = await handler({ client, args, values, call, out: ctx.stdout, logger });
      if (result !== STREAMED) printJson(ctx.stdout, result);
      return ExitCode.ok;
    } catch (caught) {
      let err = caught;
      if (err instanceof BulkIncompleteError) {
        // What the portal answered before the failure is printed, with the items not sent.
        const { updated, errors } = err.answered as BulkResult;
        printJson(ctx.stdout, { updated, errors, unsent: err.unsent });
        err = err.cause;
      }
      if (!isPortalError(err)) throw err;
      const { code, status, apiCode, field, apiMessage, excerpt, retryable, retryAt } = err;
      println(
        ctx.stderr,
        `supplier-sync api: ${err.message}\n${JSON.stringify({ error: { code, status, apiCode, field, apiMessage, excerpt, retryable, retryAt } })}`,
      );
      return ExitCode.failure;
    } finally {
      client.close();
      db.close();
    }
  },
};

const STREAMED = Symbol('streamed');

/** The lists the portal pages (--cursor, --all, --per-page). */
const PAGED = new Set(['products list', 'dc-stock list', 'factory-stock list']);

/** --per-page N: rows a page, asked of the portal (which may cap it: 100 for products and DC). */
function perPage(values: Values): number | undefined {
  const n = intOption(values['per-page'], '--per-page');
  if (n === 0) throw new UsageError('--per-page must be at least 1');
  return n;
}

/** One page as JSON, or with --all every item as a JSON line. */
async function list<T>(
  inv: Invocation,
  one: (cursor: string | undefined) => Promise<Page<T>>,
  all: (cursor: string | undefined) => AsyncIterable<Page<T>>,
): Promise<unknown> {
  const cursor = inv.values.cursor;
  if (inv.values.all !== true) {
    const page = await one(cursor);
    return { data: page.items, next_cursor: page.nextCursor, prev_cursor: page.prevCursor };
  }
  let pages = 0;
  let items = 0;
  for await (const page of all(cursor)) {
    for (const item of page.items) inv.out.write(`${JSON.stringify(item)}\n`);
    pages++;
    items += page.items.length;
    inv.logger.info(
      { event: 'api.page', page: pages, items: page.items.length, nextCursor: page.nextCursor },
      'page fetched',
    );
  }
  inv.logger.info({ event: 'api.list_done', pages, items }, 'list done');
  return STREAMED;
}

/** A bulk update's answer, with the items sent that it names in neither list (`missing`). */
async function bulk<I extends FactoryStockItem>(
  kind: StockKind,
  items: I[],
  send: (items: I[]) => Promise<BulkResult>,
): Promise<unknown> {
  const r = await send(items);
  const rows = items.map((i) => ({
    kind,
    dc: (i as Partial<DcStockItem>).distribution_centre_code ?? '',
    sku: i.sku,
    quantity: i.stock_quantity,
  }));
  const outcome = classifyBulkAnswer(kind, rows, r);
  const missing = items.filter((_, n) =>
    outcome.failed.some((f) => f.row === rows[n] && f.error === MISSING_FROM_ANSWER),
  );
  return { updated: r.updated, errors: r.errors, missing };
}

function printJson(out: NodeJS.WritableStream, value: unknown): void {
  println(out, JSON.stringify(value, null, 2));
}
