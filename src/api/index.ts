/** The Supplier Portal client: endpoints, token, budget, back-off, pagination, bulk, errors. */
export {
  FOREIGN_LOGIN_REPEATS,
  type ForeignLogins,
  readForeignLogins,
} from './auth/foreignLogins.ts';
export { clearLoginBlock, readLoginBlock } from './auth/loginBlock.ts';
export { backoffDelay, parseRetryAfter } from './backoff.ts';
export {
  BatchSizes,
  type BulkKind,
  batchSizeFrom,
  LEARN_FLOOR,
  REPROBE_AFTER_MS,
  reprobeDue,
} from './batchSizes.ts';
export {
  type BudgetSettings,
  type BudgetStatus,
  budgetStatus,
  laneReserve,
} from './budget/budgetStore.ts';
export {
  type CallDecision,
  type CallDecisionInput,
  DEFAULT_PROBE,
  decideCall,
  HOUR_MS,
  LANES,
  type Lane,
  type ProbeSchedule,
  type ServerHint,
} from './budget/decide.ts';
export { whenCallsDone } from './budget/eta.ts';
export type { BulkAnswer, BulkResult, DcStockItem, FactoryStockItem } from './bulk.ts';
export {
  createPortalClient,
  type PortalClient,
  type PortalClientOptions,
  type PortalSettings,
  portalClientOptions,
} from './client.ts';
export type { BrandInput, BrandsApi } from './endpoints/brands.ts';
export {
  PRODUCT_SCOPES,
  type ProductInput,
  type ProductQuery,
  type ProductScope,
  type ProductsApi,
} from './endpoints/products.ts';
export type { ReferenceApi } from './endpoints/reference.ts';
export type {
  ShipmentActionInput,
  ShipmentActionOptions,
  ShipmentActionResult,
  ShipmentsApi,
} from './endpoints/shipments.ts';
export type {
  DcStockApi,
  FactoryStockApi,
  FactoryStockFilters,
  StockUpdateResult,
} from './endpoints/stockLevels.ts';
export type { Page, WalkOptions } from './pagination.ts';
export * from './portalErrors.ts';
export {
  type NewProductBody,
  type ProductsPage,
  type ProductsPortal,
  productsPortal,
} from './productsPortal.ts';
export type { CallOptions } from './request.ts';
export { type CarriedStamps, carryRollingHours } from './rollingHours.ts';
export type * from './schemas.ts';
export { type ShipmentsPortal, shipmentsPortal } from './shipmentsPortal.ts';
export {
  type ReadOptions,
  type RemotePage,
  type StockPortal,
  type StockReader,
  type StockWriter,
  stockPortal,
} from './stockPort.ts';
