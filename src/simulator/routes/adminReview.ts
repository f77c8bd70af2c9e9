/**
 * Admin controls of the platform's review of new products (under /__admin, like the rest of the
 * admin surface: no auth, no rate limit, no faults):
 *   GET  /products/{sku}/review   the product's list item and where its review stands
 *   POST /products/{sku}/review   {decision: 'active'|'declined', reason?} or {hold: true|false}
 *   GET  /review-policy           POST /review-policy {mode?: 'auto'|'manual', delayMs?}
 */
import type { ApiResponse } from '../context.ts';
import { invalidParameter, notFound } from '../httpError.ts';
import { objectBody } from '../params.ts';
import { checkReviewPolicy, type ReviewPolicy } from '../productBook.ts';
import { REVIEW_DECISIONS, type ReviewDecision } from '../reviewRule.ts';
import type { SimulatorStore } from '../store.ts';

interface ReviewAdminRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly body: unknown;
}

interface ReviewAdminRoute {
  method: string;
  pattern: string;
  handler: (req: ReviewAdminRequest, deps: { store: SimulatorStore }) => ApiResponse;
}

/** Longest reason an admin may give. */
const MAX_REASON = 1000;

function onlyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) {
      throw invalidParameter(key, `Unknown field ${key}; allowed: ${allowed.join(', ')}.`);
    }
  }
}

function answer(store: SimulatorStore, sku: string): ApiResponse {
  const p = store.positionOf(sku);
  if (p === undefined) throw notFound('sku', `Product ${sku} not found.`);
  return { status: 200, body: { product: store.listItemAt(p), review: store.review(sku) ?? null } };
}

function decide(store: SimulatorStore, sku: string, body: Record<string, unknown>): void {
  onlyKeys(body, ['decision', 'reason']);
  const { decision, reason } = body;
  if (!REVIEW_DECISIONS.includes(decision as ReviewDecision)) {
    throw invalidParameter(
      'decision',
      `The decision must be one of: ${REVIEW_DECISIONS.join(', ')}.`,
    );
  }
  if (reason !== undefined && reason !== null) {
    if (decision !== 'declined') {
      throw invalidParameter('reason', 'A reason is given only with the decision declined.');
    }
    if (typeof reason !== 'string' || reason.trim() === '' || reason.length > MAX_REASON) {
      throw invalidParameter('reason', `The reason must be text of 1..${MAX_REASON} characters.`);
    }
  }
  store.reviewProduct(sku, decision as ReviewDecision, (reason as string | null) ?? null);
}

function review(req: ReviewAdminRequest, { store }: { store: SimulatorStore }): ApiResponse {
  const sku = req.params.sku ?? '';
  const body = objectBody(req.body);
  if ('hold' in body) {
    onlyKeys(body, ['hold']);
    if (typeof body.hold !== 'boolean')
      throw invalidParameter('hold', 'hold must be true or false.');
    store.holdReview(sku, body.hold);
  } else {
    decide(store, sku, body);
  }
  return answer(store, sku);
}

function setPolicy(req: ReviewAdminRequest, { store }: { store: SimulatorStore }): ApiResponse {
  const body = objectBody(req.body);
  onlyKeys(body, ['mode', 'delayMs']);
  for (const key of ['mode', 'delayMs'] as const) {
    try {
      checkReviewPolicy({ [key]: body[key] });
    } catch (error) {
      throw invalidParameter(key, (error as RangeError).message);
    }
  }
  store.setReviewPolicy(body as Partial<ReviewPolicy>);
  return { status: 200, body: store.reviewPolicy };
}

export const reviewAdminRoutes: ReviewAdminRoute[] = [
  {
    method: 'GET',
    pattern: '/products/:sku/review',
    handler: (req, { store }) => answer(store, req.params.sku ?? ''),
  },
  { method: 'POST', pattern: '/products/:sku/review', handler: review },
  {
    method: 'GET',
    pattern: '/review-policy',
    handler: (_req, { store }) => ({ status: 200, body: store.reviewPolicy }),
  },
  { method: 'POST', pattern: '/review-policy', handler: setPolicy },
];
