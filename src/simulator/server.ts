/**
 * HTTP plumbing: one request listener for /api/v1 (faults → rate limit → routing → auth →
 * handler) and /__admin (none of those). JSON in, JSON out.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { bearerToken } from './account.ts';
import type { ApiContext, ApiResponse, RouteDef } from './context.ts';
import type { FaultEngine } from './faults.ts';
import { HttpError, INTERNAL_ERROR_HTML, TOO_MANY_REQUESTS_BODY } from './httpError.ts';
import type { RateDecision, RateWindow } from './rateLimit.ts';
import type { Router } from './router.ts';
import { ADMIN_PREFIX, type AdminDeps, adminRouter } from './routes/admin.ts';
import type { StatsCollector } from './stats.ts';

export const API_PREFIX = '/api/v1';
/** Largest request body read (bytes); larger → 413 payload_too_large. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface ServerDeps {
  ctx: ApiContext;
  router: Router<RouteDef>;
  faults: FaultEngine;
  requestWindow: RateWindow;
  loginWindow: RateWindow;
  stats: StatsCollector;
  admin: AdminDeps;
  /** Aborted on close: pending slowMs delays stop. */
  closing: AbortSignal;
  log?: ((line: Record<string, unknown>) => void) | undefined;
}

type Headers = Record<string, string>;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function rateHeaders(d: RateDecision): Headers {
  return { 'x-ratelimit-limit': String(d.limit), 'x-ratelimit-remaining': String(d.remaining) };
}

interface RawBody {
  text: string;
  tooLarge: boolean;
}

async function readBody(req: IncomingMessage): Promise<RawBody> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(b);
  }
  return { text: tooLarge ? '' : Buffer.concat(chunks).toString('utf8'), tooLarge };
}

/** Parses a JSON body; an empty body is undefined; malformed JSON → 400 invalid_parameter. */
function parseJson(raw: RawBody): unknown {
  if (raw.tooLarge) {
    throw new HttpError(
      413,
      'payload_too_large',
      `The body exceeds ${MAX_BODY_BYTES} bytes.`,
      'body',
    );
  }
  if (raw.text.trim() === '') return undefined;
  try {
    return JSON.parse(raw.text);
  } catch {
    throw new HttpError(400, 'invalid_parameter', 'The request body is not valid JSON.', 'body');
  }
}

export function createListener(
  deps: ServerDeps,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      if (deps.closing.aborted) {
        res.destroy();
        return;
      }
      deps.log?.({ event: 'simulator.error', message: String(error) });
      sendJson(res, 500, {
        error: { code: 'internal_error', message: 'Internal server error', field: 'request' },
      });
    });
  };
}

async function handle(deps: ServerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  const path = url.pathname;
  if (path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`)) {
    return handleAdmin(deps, req, res, url);
  }
  if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
    return sendJson(res, 404, {
      error: {
        code: 'not_found',
        message: `No route for ${path}; the API lives under ${API_PREFIX}.`,
        field: 'path',
      },
    });
  }
  return handleApi(deps, req, res, url);
}

async function handleApi(
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const { ctx, stats, faults } = deps;
  const started = performance.now();
  const method = (req.method ?? 'GET').toUpperCase();
  const subPath = url.pathname.slice(API_PREFIX.length) || '/';
  const match = deps.router.match(method, subPath);
  const route =
    match.kind === 'found'
      ? `${method} ${match.route.pattern}`
      : match.kind === 'method_not_allowed'
        ? `${method} ${match.pattern}`
        : `${method} UNMATCHED`;
  const isLogin = match.kind === 'found' && match.route.pattern === '/login';
  const window = isLogin ? deps.loginWindow : deps.requestWindow;
  let items: number | undefined;
  const finish = (status: number) => {
    const stat = {
      at: ctx.now(),
      method,
      route,
      path: url.pathname,
      status,
      ...(items === undefined ? {} : { items }),
    };
    stats.record(stat);
    deps.log?.({
      event: 'simulator.request',
      ...stat,
      ms: Math.round(performance.now() - started),
    });
  };
  const retryAfter = (): Headers => {
    const s = faults.current().retryAfterSeconds;
    return s === null ? {} : { 'retry-after': String(s) };
  };
  const tooMany = (d: RateDecision) => {
    sendJson(res, 429, TOO_MANY_REQUESTS_BODY, {
      ...rateHeaders({ ...d, remaining: 0 }),
      ...retryAfter(),
    });
    finish(429);
  };

  const slowMs = faults.current().slowMs;
  if (slowMs > 0) await sleep(slowMs, undefined, { signal: deps.closing });
  const fault = faults.decide();
  if (fault === '429') return tooMany(window.peek(ctx.now()));
  const rate = window.take(ctx.now());
  if (!rate.allowed) return tooMany(rate);
  const headers = rateHeaders(rate);
  if (fault === 'reset') {
    req.socket.destroy();
    return finish(0);
  }
  if (fault === '500') {
    res.writeHead(500, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(INTERNAL_ERROR_HTML);
    return finish(500);
  }

  let response: ApiResponse;
  try {
    if (match.kind === 'not_found') {
      throw new HttpError(404, 'not_found', `No route for ${method} ${url.pathname}.`, 'path');
    }
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here.`, 'method', {
        allow: match.allow.join(', '),
      });
    }
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const raw = hasBody ? await readBody(req) : { text: '', tooLarge: false };
    let body: unknown;
    let parseError: unknown = null;
    try {
      body = parseJson(raw);
      if (Array.isArray(body)) items = body.length;
    } catch (error) {
      parseError = error;
    }
    if (match.route.auth) {
      const token = bearerToken(req.headers.authorization);
      if (token === null || !ctx.auth.isValid(token) || faults.current().refuseTokens) {
        throw new HttpError(
          401,
          'unauthenticated',
          token === null
            ? 'The Authorization bearer token is missing.'
            : 'The API token is invalid.',
          'authorization',
        );
      }
    }
    const scripted = faults.routeFault(route);
    if (scripted) {
      throw new HttpError(scripted.status, scripted.code, scripted.message, scripted.field);
    }
    if (parseError) throw parseError;
    response = match.route.handler(
      { method, params: match.params, query: url.searchParams, body, url },
      ctx,
    );
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    response = { status: error.status, body: error.body(), headers: { ...error.headers } };
  }
  if (faults.resetAfterApply(route, response.status)) {
    req.socket.destroy();
    return finish(0);
  }
  sendJson(res, response.status, response.body, { ...(response.headers ?? {}), ...headers });
  finish(response.status);
}

async function handleAdmin(
  deps: ServerDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const match = adminRouter.match(method, url.pathname.slice(ADMIN_PREFIX.length) || '/');
  try {
    if (match.kind === 'not_found') {
      throw new HttpError(404, 'not_found', `No admin route ${url.pathname}.`, 'path');
    }
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here.`, 'method', {
        allow: match.allow.join(', '),
      });
    }
    const body = method === 'POST' ? parseJson(await readBody(req)) : undefined;
    const response = match.route.handler(
      { query: url.searchParams, params: match.params, body: body ?? {} },
      deps.admin,
    );
    sendJson(res, response.status, response.body, response.headers);
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    sendJson(res, error.status, error.body(), { ...error.headers });
  }
}
