/** What route handlers receive and return. Handlers are synchronous and pure over the store. */
import type { FaultSettings } from './faults.ts';
import type { SimulatorStore } from './store.ts';

export interface ApiContext {
  readonly store: SimulatorStore;
  /** Clock in ms since the epoch. */
  now(): number;
  /** 'YYYY-MM-DD' the simulator calls today. */
  today(): string;
  readonly maxBulkItems: number;
  readonly bulkTooLargeStatus: 400 | 413 | 422;
  /** Most positions a filtered list request examines (see cursorPages.ts). */
  readonly maxScan: number;
  readonly auth: AuthState;
  /** The fault knobs now (some change how a route answers). */
  knobs(): Readonly<FaultSettings>;
}

export interface AuthState {
  readonly email: string;
  readonly password: string;
  /** Issues a new token and invalidates every other token of the account. */
  issueToken(): string;
  isValid(token: string): boolean;
  invalidateAll(): void;
  /** Every token issued so far, oldest first (read-only; tests check none of them leaks). */
  issuedTokens(): readonly string[];
}

export interface ApiRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** Public URL of the request (origin from the Host header), for pagination links. */
  readonly url: URL;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: ApiRequest, ctx: ApiContext) => ApiResponse;

export interface RouteDef {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below the base, with ':name' segments, e.g. '/shipments/:order_number/shipped'. */
  readonly pattern: string;
  /** False only for login. */
  readonly auth: boolean;
  readonly handler: Handler;
}

/** A path parameter (always present when the route matched). */
export function param(req: ApiRequest, name: string): string {
  return req.params[name] ?? '';
}
