import { keyString, parseKeyString, type StockKey } from '../domain/stock.ts';
import type { StateDb } from '../state/db.ts';
import { FileHistory, type RejectedRowOfKey } from '../state/inbox/fileHistory.ts';
import { HeldStore } from '../state/inbox/heldStore.ts';
import {
  readShipmentFacts,
  readStockFacts,
  type ShipmentFacts,
  type StockFacts,
} from '../state/keyFacts.ts';
import { Catalogue, type CatalogueEntry } from '../state/products/catalogueStore.ts';
import { type DecisionRecord, ProductDecisions } from '../state/products/productDecisions.ts';
import { type ProductRequest, ProductRequests } from '../state/products/productRequests.ts';

/**
 * `explain KEY`: the story of one stock key or one shipment, read from state.db at one moment.
 * `explainKey` gives plain data with epoch-ms times (the text output renders them as local
 * times); `explanationJson` is the stable `--json` shape, times as ISO 8601.
 */

export type ExplainTarget =
  | { readonly type: 'stock'; readonly key: StockKey }
  | { readonly type: 'shipment'; readonly orderNumber: string };

/**
 * `factory:SKU`, `dc:CODE:SKU` or `shipment:ORDER` (a trailing `:shipped` / `:collected`, as
 * `failures` prints confirmation keys, names the same order); undefined when it is none of them.
 */
export function parseExplainKey(text: string): ExplainTarget | undefined {
  const s = /^shipment:(.+?)(?::(?:shipped|collected))?$/.exec(text);
  if (s) return s[1]!.trim() === '' ? undefined : { type: 'shipment', orderNumber: s[1]! };
  const key = parseKeyString(text);
  if (key === undefined || key.sku.trim() === '') return undefined;
  return { type: 'stock', key };
}

/**
 * Rejected rows are looked for in the reports the ledger keeps of the newest files that rejected
 * rows (each lists its first 1,000): bounded, whatever the ledger's size.
 */
export const REJECTED_FILES_SEARCHED = 100;
/** Most rejected rows of a key shown, newest file first. */
export const REJECTED_ROWS_SHOWN = 10;

function rejectedRowsOf(db: StateDb, key: string): RejectedRowOfKey[] {
  return new FileHistory(db).rejectedRowsOfKey(key, REJECTED_FILES_SEARCHED, REJECTED_ROWS_SHOWN);
}

/** What is known of a stock key's product: asked for by a products file, on the portal, reviewed. */
export interface ProductFacts {
  /** The latest request of a products file for the SKU; null when none named it. */
  readonly request: ProductRequest | null;
  /** The product as the daemon knows the portal's; null when not known there. */
  readonly portal: CatalogueEntry | null;
  /** The latest decision of the platform's review the daemon noticed; null when none. */
  readonly decision: DecisionRecord | null;
  /**
   * The key waits for its product: a products file's request for it is queued or being sent, or
   * the portal said "Product not found" and a products file named it that has not created it.
   */
  readonly waits: boolean;
}

/** The product facts of a key's SKU; null when no products file named it and the portal's is unknown. */
function productFacts(db: StateDb, sku: string, notFound: boolean): ProductFacts | null {
  const request = new ProductRequests(db).ofSku(sku) ?? null;
  const portal = new Catalogue(db).get(sku) ?? null;
  if (request === null && portal === null) return null;
  const open = request !== null && (request.state === 'queued' || request.state === 'sending');
  const unmade = request !== null && request.state !== 'created' && request.state !== 'existing';
  return {
    request,
    portal,
    decision: new ProductDecisions(db).latest(sku) ?? null,
    waits: open || (notFound && unmade),
  };
}

export interface StockExplanation {
  readonly type: 'stock';
  readonly key: StockKey;
  readonly facts: StockFacts;
  /** Its product: a products file's request, the portal's product, the review; null: none known. */
  readonly product: ProductFacts | null;
  /** Rows of recent files that named the key and were rejected (bad values), newest first. */
  readonly rejectedRows: readonly RejectedRowOfKey[];
  /** The id of a held file (or snapshot read) that names the key; null when none. */
  readonly held: number | null;
  /** That held file's original name (or `snapshot`) and why it is held. */
  readonly heldFile: { readonly name: string; readonly reason: string } | null;
}

export interface ShipmentExplanation {
  readonly type: 'shipment';
  readonly facts: ShipmentFacts;
  /** Confirmation rows of recent files that named the order and were rejected, newest first. */
  readonly rejectedRows: readonly RejectedRowOfKey[];
}

export type Explanation = StockExplanation | ShipmentExplanation;

/** What state.db knows of the target; undefined when it knows nothing at all of it. */
export function explainKey(db: StateDb, target: ExplainTarget): Explanation | undefined {
  if (target.type === 'shipment') {
    const facts = readShipmentFacts(db, target.orderNumber);
    const rejectedRows = rejectedRowsOf(db, `shipment:${target.orderNumber}`);
    if (facts.shipment === null && facts.confirmations.length === 0 && rejectedRows.length === 0)
      return undefined;
    return { type: 'shipment', facts, rejectedRows };
  }
  const facts = readStockFacts(db, target.key);
  const k = target.key;
  const held = new HeldStore(db).heldIdForKey(k.kind, k.dc, k.sku) ?? null;
  const rejectedRows = rejectedRowsOf(db, keyString(k));
  const product = productFacts(db, k.sku, facts.failure?.notFound ?? false);
  const known =
    held !== null ||
    product !== null ||
    rejectedRows.length > 0 ||
    facts.desired !== null ||
    facts.remote !== null ||
    facts.pendingSince !== null ||
    facts.failure !== null ||
    facts.lastPush !== null;
  if (!known) return undefined;
  const entry = held === null ? undefined : new HeldStore(db).get(held);
  const heldFile = entry ? { name: entry.name, reason: entry.reason } : null;
  return { type: 'stock', key: target.key, facts, rejectedRows, held, heldFile, product };
}

/** A rejected row as `explain --json` shows it. */
function rejectedRowJson(r: RejectedRowOfKey) {
  return {
    file: r.file,
    storedAs: r.storedAs,
    fileId: r.fileId,
    receivedAt: iso(r.receivedAt),
    line: r.line,
    field: r.field,
    reason: r.reason,
    value: r.value,
  };
}

const iso = (ms: number | null | undefined): string | null =>
  ms === null || ms === undefined || ms === 0 ? null : new Date(ms).toISOString();

/** The `explain --json` object (stable field names; times as ISO 8601 or null). */
export function explanationJson(e: Explanation): Record<string, unknown> {
  if (e.type === 'shipment') return shipmentJson(e.facts, e.rejectedRows);
  const f = e.facts;
  const d = f.desired;
  return {
    key: keyString(e.key),
    kind: e.key.kind,
    dc: e.key.kind === 'dc' ? e.key.dc : null,
    sku: e.key.sku,
    erpQuantity: d?.erpQuantity ?? null,
    offeredQuantity: d === null ? null : d.excluded ? null : d.quantity,
    excluded: d?.excluded ?? false,
    portalQuantity: f.remote?.quantity ?? null,
    portalSeenAt: iso(f.remote?.seenAt),
    pending: f.pendingSince !== null,
    pendingSince: iso(f.pendingSince),
    source:
      d === null
        ? null
        : d.sourceFileId === null
          ? { snapshot: true, at: iso(d.sourceAt), appliedAt: iso(d.appliedAt) }
          : {
              file: f.file?.name ?? null,
              line: d.sourceLine,
              at: iso(d.sourceAt),
              appliedAt: iso(d.appliedAt),
              fileId: d.sourceFileId,
              storedAs: f.file?.storedAs ?? null,
            },
    rule: d?.rule ?? null,
    failure: f.failure && {
      error: f.failure.error,
      attempts: f.failure.attempts,
      nextAttemptAt: iso(f.failure.nextAttemptAt),
      quantity: f.failure.quantity,
      notFound: f.failure.notFound,
      firstFailedAt: iso(f.failure.firstFailedAt),
      lastFailedAt: iso(f.failure.lastFailedAt),
    },
    lastPush: f.lastPush && {
      at: iso(f.lastPush.at),
      outcome: f.lastPush.outcome,
      quantity: f.lastPush.quantity,
      portalHeld: f.lastPush.held,
      error: f.lastPush.error,
    },
    held: e.held,
    rejectedRows: e.rejectedRows.map(rejectedRowJson),
    product: e.product && productJson(e.product),
  };
}

/** A key's product as `explain --json` shows it. */
function productJson(p: ProductFacts) {
  const r = p.request;
  const c = p.portal;
  const d = p.decision;
  return {
    waitsForProduct: p.waits,
    request: r && {
      state: r.state,
      file: r.fileName,
      fileId: r.fileId,
      line: r.line,
      queuedAt: iso(r.queuedAt),
      attempts: r.attempts,
      error: r.error,
    },
    portal: c && {
      platformSku: c.platformSku,
      status: c.status,
      platformStatus: c.platformStatus,
      declinedReason: c.declinedReason,
      createdByDaemon: c.createdByDaemon,
      createdAt: iso(c.createdAt),
      createdBy: c.createdBy,
      statusAt: iso(c.statusAt),
    },
    review: d && {
      decision: d.decision,
      reason: d.reason,
      noticedAt: iso(d.noticedAt),
      outboxFile: d.outboxFile,
    },
  };
}

function shipmentJson(
  f: ShipmentFacts,
  rejectedRows: readonly RejectedRowOfKey[],
): Record<string, unknown> {
  const s = f.shipment;
  return {
    key: `shipment:${f.orderNumber}`,
    orderNumber: f.orderNumber,
    shipment: s?.record ?? null,
    listed: s && {
      firstSeenAt: iso(s.firstSeenAt),
      lastSeenAt: iso(s.lastSeenAt),
      leftListAt: iso(s.leftListAt),
    },
    outboxFile: s?.exportFile
      ? { name: s.exportFile, at: iso(s.exportedAt), inOutbox: !s.exportUnfinished }
      : null,
    confirmedAt: iso(s?.confirmedAt),
    unconfirmedWarnedAt: iso(s?.unconfirmedWarnedAt),
    confirmations: f.confirmations.map((c) => ({
      action: c.action,
      carrier: c.carrier,
      trackingNumber: c.trackingNumber,
      isCollected: c.isCollected,
      outcome: c.status,
      error: c.error,
      attempts: c.attempts,
      nextAttemptAt: c.status === 'pending' ? iso(c.nextAttemptAt) : null,
      file: c.file?.name ?? null,
      line: c.line,
      receivedAt: iso(c.receivedAt),
      confirmedAt: iso(c.confirmedAt),
    })),
    rejectedRows: rejectedRows.map(rejectedRowJson),
  };
}
