import {
  type BulkDeps,
  type BulkResult,
  bulkUpdate,
  type DcStockItem,
  type FactoryStockItem,
} from '../bulk.ts';
import { callJson } from '../caller.ts';
import { fetchPage, type Page, type WalkOptions, walkItems, walkPages } from '../pagination.ts';
import type { CallOptions } from '../request.ts';
import {
  type DcStock,
  dcStockSchema,
  type FactoryStock,
  factoryStockSchema,
  type StockError,
  type StockUpdated,
  stockUpdateResultSchema,
} from '../schemas.ts';

/** The answer of a single stock update, as the portal sent it. */
export interface StockUpdateResult {
  readonly updated: StockUpdated[];
  readonly errors: StockError[];
}

export interface FactoryStockFilters {
  readonly stock_quantity_gte?: number;
  readonly stock_quantity_lte?: number;
  readonly stock_quantity_allocated_gte?: number;
  readonly stock_quantity_allocated_lte?: number;
  /** Rows a page (the portal's default is 2,500). */
  readonly per_page?: number;
}

/** Query of GET /distribution-centre-stocks beyond the cursor. */
export interface DcStockQuery {
  /** Rows a page (the portal's default is 100). */
  readonly per_page?: number;
}

export interface DcStockApi {
  /** One page of GET /distribution-centre-stocks (100 a page). */
  list(query?: DcStockQuery & { cursor?: string }, options?: CallOptions): Promise<Page<DcStock>>;
  pages(options?: WalkOptions, query?: DcStockQuery): AsyncGenerator<Page<DcStock>>;
  items(options?: WalkOptions): AsyncGenerator<DcStock>;
  /** POST /distribution-centre-stocks: one absolute quantity. */
  update(item: DcStockItem, options?: CallOptions): Promise<StockUpdateResult>;
  /** POST /distribution-centre-stocks/bulk-update in batches of maxBatchSize('dc'). */
  bulkUpdate(items: readonly DcStockItem[], options?: CallOptions): Promise<BulkResult>;
}

export interface FactoryStockApi {
  /** One page of GET /factory-stocks (2500 a page by default) with inclusive range filters. */
  list(
    query?: FactoryStockFilters & { cursor?: string },
    options?: CallOptions,
  ): Promise<Page<FactoryStock>>;
  pages(filters?: FactoryStockFilters, options?: WalkOptions): AsyncGenerator<Page<FactoryStock>>;
  items(filters?: FactoryStockFilters, options?: WalkOptions): AsyncGenerator<FactoryStock>;
  /** POST /factory-stocks: one absolute quantity (the new total). */
  update(item: FactoryStockItem, options?: CallOptions): Promise<StockUpdateResult>;
  /** POST /factory-stocks/bulk-update in batches of maxBatchSize('factory'). */
  bulkUpdate(items: readonly FactoryStockItem[], options?: CallOptions): Promise<BulkResult>;
}

export function dcStockApi(deps: BulkDeps): DcStockApi {
  const { caller } = deps;
  const page = (q: DcStockQuery, cursor: string | undefined, options?: CallOptions) =>
    fetchPage(
      caller,
      { method: 'GET', path: 'distribution-centre-stocks', searchParams: { per_page: q.per_page } },
      dcStockSchema,
      cursor,
      options,
    );
  const pages = (options: WalkOptions = {}, q: DcStockQuery = {}) =>
    walkPages((cursor, o) => page(q, cursor, o), options, 'GET /distribution-centre-stocks');
  return {
    list: ({ cursor, ...q } = {}, options) => page(q, cursor, options),
    pages,
    items: (options) => walkItems(pages(options)),
    update: (item, options) =>
      callJson(
        caller,
        { method: 'POST', path: 'distribution-centre-stocks', json: item, resend: 'always' },
        stockUpdateResultSchema,
        options,
      ),
    bulkUpdate: (items, options) => bulkUpdate(deps, 'dc', items, options),
  };
}

export function factoryStockApi(deps: BulkDeps): FactoryStockApi {
  const { caller } = deps;
  const page = (filters: FactoryStockFilters, cursor: string | undefined, options?: CallOptions) =>
    fetchPage(
      caller,
      { method: 'GET', path: 'factory-stocks', searchParams: { ...filters } },
      factoryStockSchema,
      cursor,
      options,
    );
  const pages = (filters: FactoryStockFilters = {}, options: WalkOptions = {}) =>
    walkPages((cursor, o) => page(filters, cursor, o), options, 'GET /factory-stocks');
  return {
    list: ({ cursor, ...filters } = {}, options) => page(filters, cursor, options),
    pages,
    items: (filters, options) => walkItems(pages(filters, options)),
    update: (item, options) =>
      callJson(
        caller,
        { method: 'POST', path: 'factory-stocks', json: item, resend: 'always' },
        stockUpdateResultSchema,
        options,
      ),
    bulkUpdate: (items, options) => bulkUpdate(deps, 'factory', items, options),
  };
}
