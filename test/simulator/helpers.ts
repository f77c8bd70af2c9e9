import { expect } from 'vitest';
import {
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from '../../src/simulator/index.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD } from '../../src/simulator/seed.ts';

/** Reply bodies are inspected loosely in tests. */
// biome-ignore lint/suspicious/noExplicitAny: test replies are checked field by field at run time
export type Json = any;

export interface Reply<T = Json> {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: T;
  text: string;
}

/** A thin fetch wrapper: JSON in, JSON out, no retries, nothing mocked. */
export class Client {
  readonly sim: Simulator;
  token: string | null = null;

  constructor(sim: Simulator) {
    this.sim = sim;
  }

  async request<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply<T>> {
    const url = path.startsWith('http') ? path : `${this.sim.baseUrl}${path}`;
    const h: Record<string, string> = { accept: 'application/json', ...headers };
    if (this.token && !('authorization' in h)) h.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      h['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(url, { method, headers: h, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = Json>(path: string): Promise<Reply<T>> {
    return this.request<T>('GET', path);
  }

  post<T = Json>(path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>('POST', path, body);
  }

  async login(email = DEFAULT_EMAIL, password = DEFAULT_PASSWORD): Promise<Reply> {
    const reply = await this.request('POST', '/login', { email, password }, { authorization: '' });
    if (reply.status === 200) this.token = reply.body.data.token;
    return reply;
  }

  /** Admin calls: outside /api/v1, no auth. */
  async admin<T = Json>(method: string, path: string, body?: unknown): Promise<Reply<T>> {
    return this.request<T>(method, `${this.sim.origin}/__admin${path}`, body, {
      authorization: '',
    });
  }
}

/** Starts a simulator and a logged-in client. */
export async function startWithClient(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; client: Client }> {
  const sim = await startSimulator({ products: 300, ...options });
  const client = new Client(sim);
  await client.login();
  return { sim, client };
}

interface Page<T> {
  data: T[];
  links: { first: null; last: null; prev: string | null; next: string | null };
  meta: { path: string; per_page: number; next_cursor: string | null; prev_cursor: string | null };
}

/**
 * Walks a paginated list to the end by meta.next_cursor, then back to the start by
 * meta.prev_cursor; returns the keys seen each way (the backward walk in ascending order).
 */
export async function walkBothWays<T>(
  client: Client,
  path: string,
  key: (row: T) => string,
  maxPages = 1000,
): Promise<{ forward: string[]; backward: string[]; pages: number }> {
  const sep = path.includes('?') ? '&' : '?';
  const forward: string[] = [];
  const pages: Page<T>[] = [];
  let reply = await client.get<Page<T>>(path);
  for (let i = 0; ; i++) {
    if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
    if (i >= maxPages) throw new Error('too many pages');
    pages.push(reply.body);
    forward.push(...reply.body.data.map(key));
    const next = reply.body.meta.next_cursor;
    if (next === null) break;
    reply = await client.get<Page<T>>(`${path}${sep}cursor=${encodeURIComponent(next)}`);
  }
  const backwardPages: string[][] = [pages[pages.length - 1]!.data.map(key)];
  let prev = pages[pages.length - 1]!.meta.prev_cursor;
  while (prev !== null) {
    const r = await client.get<Page<T>>(`${path}${sep}cursor=${encodeURIComponent(prev)}`);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
    backwardPages.unshift(r.body.data.map(key));
    prev = r.body.meta.prev_cursor;
    if (backwardPages.length > maxPages) throw new Error('too many pages backwards');
  }
  return { forward, backward: backwardPages.flat(), pages: pages.length };
}

/** A price on the UK site, as a POST /products body gives it. */
export const UK_PRICE = {
  site_code: 'UK',
  price: '19.99',
  price_currency: 'GBP',
  tax_rate_id: 1,
  preorder_discount_percent: '0.00',
  factory_stock_discount_percent: '5.00',
} as const;

export function expectedApiError(code: string, field?: string) {
  return {
    error: {
      code,
      message: expect.any(String),
      field: field ?? expect.any(String),
    },
  };
}
