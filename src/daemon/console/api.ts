import { ShipmentStore } from '../../state/shipments/shipmentStore.ts';
import { explainKey, explanationJson, parseExplainKey } from '../explain.ts';
import {
  failuresView,
  filesList,
  fileWithReport,
  heldList,
  MAX_FILES_LISTED,
  PLATFORM_STATUSES,
  productsList,
  statusView,
} from '../views.ts';
import type { ConsoleDeps } from './consoleDeps.ts';
import { overdueOrders } from './shipmentsData.ts';

/** Files listed when no `limit` is given. */
export const DEFAULT_FILES_LIMIT = 50;

/** `?limit=N` of the files list: a whole number from 1 to 1000, else the default. */
export function filesLimit(query: URLSearchParams): number {
  const text = query.get('limit');
  if (text === null || !/^\d{1,4}$/.test(text)) return DEFAULT_FILES_LIMIT;
  return Math.min(Math.max(Number(text), 1), MAX_FILES_LISTED);
}

/**
 * `?status=S&all=1` of the products list (as `products --status S --all`); an error naming the
 * bad value otherwise.
 */
export function productsQuery(
  query: URLSearchParams,
): { readonly all: boolean; readonly status: string | undefined } | { readonly error: string } {
  const status = query.get('status') ?? undefined;
  if (status !== undefined && !(PLATFORM_STATUSES as readonly string[]).includes(status))
    return {
      error: `status takes a platform status (${PLATFORM_STATUSES.join(', ')}), not '${status.slice(0, 40)}'`,
    };
  const all = query.get('all');
  return { all: all === '1' || all === 'true', status };
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * The console's JSON under /api/, in the shapes of the commands' `--json`: `/api/status`,
 * `/api/files` (?limit=N), `/api/files/ID` (with its report), `/api/held`, `/api/failures`,
 * `/api/explain/KEY`, `/api/shipments`, `/api/products` (?status=S&all=1). Undefined for a path
 * that is none of them.
 */
export async function apiAnswer(
  deps: ConsoleDeps,
  path: string,
  query: URLSearchParams,
): Promise<ApiAnswer | undefined> {
  const { db, config } = deps;
  if (path === '/api/status') {
    const { status, health } = await deps.status();
    return { status: 200, body: statusView(status, health) };
  }
  if (path === '/api/files')
    return { status: 200, body: filesList(db, config.dataDir, filesLimit(query)) };
  const file = /^\/api\/files\/(\d{1,15})$/.exec(path);
  if (file) {
    const f = fileWithReport(db, config.dataDir, Number(file[1]));
    return f === undefined
      ? { status: 404, body: { error: `no file with id ${file[1]} in the ledger` } }
      : { status: 200, body: f };
  }
  if (path === '/api/held') return { status: 200, body: heldList(db) };
  if (path === '/api/products') {
    const q = productsQuery(query);
    if ('error' in q) return { status: 400, body: { error: q.error } };
    return {
      status: 200,
      body: productsList(db, {
        all: q.all,
        ...(q.status === undefined ? {} : { status: q.status }),
      }),
    };
  }
  if (path === '/api/failures') return { status: 200, body: failuresView(db) };
  if (path === '/api/shipments') {
    const store = new ShipmentStore(db);
    return {
      status: 200,
      body: {
        awaitingCount: store.counts().awaitingConfirmation,
        awaiting: store.awaiting(1000).map((s) => ({
          orderNumber: s.orderNumber,
          exportedAt: new Date(s.exportedAt).toISOString(),
          exportFile: s.exportFile,
          unconfirmedWarnedAt:
            s.unconfirmedWarnedAt === null ? null : new Date(s.unconfirmedWarnedAt).toISOString(),
        })),
        deadline: config.shipmentsDeadline ?? null,
        overdue: overdueOrders(deps),
      },
    };
  }
  if (path.startsWith('/api/explain/')) {
    let key: string;
    try {
      key = decodeURIComponent(path.slice('/api/explain/'.length));
    } catch {
      return { status: 400, body: { error: 'the key is not valid percent-encoding' } };
    }
    const target = parseExplainKey(key);
    if (target === undefined)
      return {
        status: 400,
        body: {
          error: `not a key: '${key}' (expected factory:SKU, dc:CODE:SKU or shipment:ORDER)`,
        },
      };
    const e = explainKey(db, target);
    return e === undefined
      ? { status: 404, body: { error: `nothing is known of ${key}` } }
      : { status: 200, body: explanationJson(e) };
  }
  return undefined;
}
