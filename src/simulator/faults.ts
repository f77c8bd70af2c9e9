/**
 * Fault injection. Counters (next429, next500, nextReset) are consumed first, in the order reset,
 * 500, 429; then the random rates are drawn from a seeded PRNG so runs are reproducible.
 * nextResetAfterApply comes after the handler: the request is applied, then the socket destroyed
 * without an answer (a client must not apply it twice). The other
 * knobs give answers the spec leaves open ("not shown") that a real portal may give: refusals of a
 * route, every token refused, a collected that needs a shipped, DC errors without the centre's
 * code, whole-request validation of bulk bodies, page-numbered shipment lists, clamped quantities,
 * expiring cursors, list totals.
 */
import { hash32, mulberry32 } from './prng.ts';

/**
 * Requests of one route answered with an error, after authentication and before the handler (so
 * nothing is applied): `route` is `METHOD /pattern` as in the stats (e.g.
 * `POST /factory-stocks/bulk-update`); the body is the spec's `{error: {code, message, field}}`.
 * `times` counts down (null: until cleared); the first entry that matches answers.
 */
export interface RouteFault {
  route: string;
  status: number;
  code?: string | undefined;
  message?: string | undefined;
  field?: string | undefined;
  times?: number | null | undefined;
}

export interface FaultSettings {
  /** 0..1 share of /api/v1 requests answered 500 with an HTML (non-JSON) body. */
  error500Rate: number;
  /** 0..1 share whose connection is destroyed mid-request (no response). */
  resetRate: number;
  /** Delay in ms before answering every /api/v1 request. */
  slowMs: number;
  /** The next N /api/v1 requests get 429 (spec body), then normal. */
  next429: number;
  /** The next N get 500 HTML. */
  next500: number;
  /** The next N get their socket destroyed without a response. */
  nextReset: number;
  /**
   * The next N write requests (POST, PUT, DELETE but login; or those of resetAfterApplyRoute) that
   * the handler answered 2xx: applied, then the socket is destroyed instead of answering.
   */
  nextResetAfterApply: number;
  /** Limits nextResetAfterApply to one route, `METHOD /pattern` as in the stats. null: any write. */
  resetAfterApplyRoute: string | null;
  /** When set, 429s (injected and real) carry Retry-After with this many seconds. */
  retryAfterSeconds: number | null;
  /** Scripted error answers per route (403 insufficient permissions, 422 refusals, …). */
  routeFaults: RouteFault[];
  /** Every token is refused (401), also one just issued; logins still succeed. */
  refuseTokens: boolean;
  /** `collected` on an order not shipped yet → 409 `not_shipped` (else pending → collected). */
  collectedNeedsShipped: boolean;
  /** DC bulk `errors` entries carry only the documented fields: no `distribution_centre_code`. */
  dcErrorsWithoutCode: boolean;
  /**
   * A bulk body with an invalid item is refused whole, 422 `invalid_parameter` naming the item's
   * field (`3.stock_quantity`), instead of answering that item in `errors`.
   */
  bulkRejectsInvalidItem: boolean;
  /** Shipment lists come in pages of this size, by page number (`?page=N`, Laravel-style). */
  shipmentsPerPage: number | null;
  /** Quantities above this are stored, and echoed in `updated`, as this (a portal that clamps). */
  stockQuantityCap: number | null;
  /**
   * A list cursor handed out longer ago than this (ms, simulator clock) is refused: 400
   * `invalid_parameter` field `cursor` "The cursor has expired." (a portal whose cursors expire).
   */
  cursorTtlMs: number | null;
  /** Stock lists carry meta.total, the rows of the whole (unfiltered) list (not in the spec). */
  listTotals: boolean;
}

export interface FaultControls {
  set(f: Partial<FaultSettings>): void;
  clear(): void;
  /** All tokens of the account become invalid (401). */
  invalidateTokens(): void;
  current(): FaultSettings;
}

export type FaultDecision = 'reset' | '500' | '429' | null;

export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze({
  error500Rate: 0,
  resetRate: 0,
  slowMs: 0,
  next429: 0,
  next500: 0,
  nextReset: 0,
  nextResetAfterApply: 0,
  resetAfterApplyRoute: null,
  retryAfterSeconds: null,
  routeFaults: [],
  refuseTokens: false,
  collectedNeedsShipped: false,
  dcErrorsWithoutCode: false,
  bulkRejectsInvalidItem: false,
  shipmentsPerPage: null,
  stockQuantityCap: null,
  cursorTtlMs: null,
  listTotals: false,
});

/** A route as the stats name it: `METHOD /pattern`. */
const ROUTE_KEY = /^[A-Z]+ \//;

/** Validates a partial settings object (from the admin endpoint); returns an error text or null. */
export function validateFaults(input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'body must be a JSON object';
  }
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case 'error500Rate':
      case 'resetRate':
        if (typeof value !== 'number' || !(value >= 0 && value <= 1)) return `${key} must be 0..1`;
        break;
      case 'slowMs':
      case 'next429':
      case 'next500':
      case 'nextReset':
      case 'nextResetAfterApply':
        if (!Number.isInteger(value) || (value as number) < 0) {
          return `${key} must be a non-negative integer`;
        }
        break;
      case 'resetAfterApplyRoute':
        if (value !== null && (typeof value !== 'string' || !ROUTE_KEY.test(value))) {
          return "resetAfterApplyRoute must be 'METHOD /pattern' or null";
        }
        break;
      case 'retryAfterSeconds':
        if (value !== null && (!Number.isInteger(value) || (value as number) < 0)) {
          return 'retryAfterSeconds must be a non-negative integer or null';
        }
        break;
      case 'shipmentsPerPage':
      case 'stockQuantityCap':
        if (value !== null && (!Number.isInteger(value) || (value as number) < 1)) {
          return `${key} must be a positive integer or null`;
        }
        break;
      case 'cursorTtlMs':
        if (value !== null && (!Number.isInteger(value) || (value as number) < 0)) {
          return 'cursorTtlMs must be a non-negative integer or null';
        }
        break;
      case 'refuseTokens':
      case 'listTotals':
      case 'collectedNeedsShipped':
      case 'dcErrorsWithoutCode':
      case 'bulkRejectsInvalidItem':
        if (typeof value !== 'boolean') return `${key} must be true or false`;
        break;
      case 'routeFaults': {
        const error = validateRouteFaults(value);
        if (error) return error;
        break;
      }
      default:
        return `unknown fault setting ${key}`;
    }
  }
  return null;
}

function validateRouteFaults(value: unknown): string | null {
  if (!Array.isArray(value)) return 'routeFaults must be an array';
  for (const [i, f] of value.entries()) {
    if (typeof f !== 'object' || f === null) return `routeFaults.${i} must be an object`;
    const r = f as Record<string, unknown>;
    for (const key of Object.keys(r)) {
      if (!['route', 'status', 'code', 'message', 'field', 'times'].includes(key)) {
        return `routeFaults.${i}: unknown key ${key}`;
      }
    }
    if (typeof r.route !== 'string' || !ROUTE_KEY.test(r.route)) {
      return `routeFaults.${i}.route must be 'METHOD /pattern'`;
    }
    if (!Number.isInteger(r.status) || (r.status as number) < 400 || (r.status as number) > 599) {
      return `routeFaults.${i}.status must be 400..599`;
    }
    for (const key of ['code', 'message', 'field']) {
      if (r[key] !== undefined && typeof r[key] !== 'string') {
        return `routeFaults.${i}.${key} must be a string`;
      }
    }
    if (
      r.times !== undefined &&
      r.times !== null &&
      (!Number.isInteger(r.times) || (r.times as number) < 1)
    ) {
      return `routeFaults.${i}.times must be a positive integer or null`;
    }
  }
  return null;
}

/** The spec's words for the statuses a route fault may answer with. */
const ROUTE_FAULT_CODES: Record<number, [string, string]> = {
  400: ['invalid_parameter', 'The request is invalid.'],
  403: ['forbidden', 'Insufficient permissions.'],
  404: ['not_found', 'Resource does not exist.'],
  409: ['conflict', 'The request conflicts with the current state.'],
  422: ['unprocessable', 'The request cannot be processed.'],
};

export class FaultEngine {
  #settings: FaultSettings = { ...NO_FAULTS };
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = mulberry32(hash32(seed, 0xfa17));
  }

  current(): FaultSettings {
    return { ...this.#settings, routeFaults: this.#settings.routeFaults.map((f) => ({ ...f })) };
  }

  set(f: Partial<FaultSettings>): void {
    const error = validateFaults(f);
    if (error) throw new RangeError(error);
    this.#settings = { ...this.#settings, ...f };
    if (f.routeFaults) this.#settings.routeFaults = f.routeFaults.map((r) => ({ ...r }));
  }

  clear(): void {
    this.#settings = { ...NO_FAULTS, routeFaults: [] };
  }

  /**
   * The scripted answer for a request of `route`, if any (consuming one of its `times`): status
   * and the spec's error body fields.
   */
  routeFault(
    route: string,
  ): { status: number; code: string; message: string; field: string } | null {
    const list = this.#settings.routeFaults;
    const i = list.findIndex((f) => f.route === route);
    if (i < 0) return null;
    const f = list[i]!;
    if (typeof f.times === 'number') {
      f.times--;
      if (f.times <= 0) list.splice(i, 1);
    }
    const [code, message] = ROUTE_FAULT_CODES[f.status] ?? ['error', 'The request failed.'];
    return {
      status: f.status,
      code: f.code ?? code,
      message: f.message ?? message,
      field: f.field ?? 'request',
    };
  }

  /**
   * After the handler answered `status` to a request of `route`: true when that answer is to be
   * dropped and the socket destroyed (consuming one nextResetAfterApply). Only a 2xx answer counts
   * (a refusal applied nothing); without resetAfterApplyRoute, only writes other than login.
   */
  resetAfterApply(route: string, status: number): boolean {
    const s = this.#settings;
    if (s.nextResetAfterApply <= 0 || status < 200 || status > 299) return false;
    const wanted =
      s.resetAfterApplyRoute === null
        ? !route.startsWith('GET ') && route !== 'POST /login'
        : route === s.resetAfterApplyRoute;
    if (!wanted) return false;
    s.nextResetAfterApply--;
    return true;
  }

  /** Decides the fault for one request (consuming counters). */
  decide(): FaultDecision {
    const s = this.#settings;
    if (s.nextReset > 0) {
      s.nextReset--;
      return 'reset';
    }
    if (s.next500 > 0) {
      s.next500--;
      return '500';
    }
    if (s.next429 > 0) {
      s.next429--;
      return '429';
    }
    if (s.resetRate > 0 && this.#random() < s.resetRate) return 'reset';
    if (s.error500Rate > 0 && this.#random() < s.error500Rate) return '500';
    return null;
  }
}
