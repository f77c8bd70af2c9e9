import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got, RequestError, TimeoutError } from 'got';
import { NetworkError, RequestTimeoutError } from './portalErrors.ts';

/** One attempt: what goes out. `path` is relative to the base URL, without a leading slash. */
export interface RawRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly searchParams?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly json?: unknown;
  readonly token?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** One attempt: what came back, whatever the status. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly text: string;
}

export interface Transport {
  /**
   * Sends one request, no retries. Any status resolves; only "no answer" rejects: RequestTimeoutError
   * (requestTimeoutMs passed) or NetworkError (refused, reset, …), both with outcomeUnknown set.
   */
  send(request: RawRequest): Promise<RawResponse>;
  /** Closes the kept-alive connections. */
  close(): void;
}

export interface TransportOptions {
  /** Base URL ending with /api/v1. */
  readonly baseUrl: string;
  /** Timeout of one request, start to end of the answer, in ms. */
  readonly timeoutMs: number;
}

/** got with its own retry off (every attempt must pass our budget), keep-alive agents, no throws. */
export function createTransport(options: TransportOptions): Transport {
  const agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 16 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
  };
  const client: Got = got.extend({
    prefixUrl: `${options.baseUrl.replace(/\/+$/, '')}/`,
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    timeout: { request: options.timeoutMs },
    agent: agents,
    responseType: 'text',
    headers: { accept: 'application/json', 'user-agent': 'supplier-sync' },
  });

  return {
    async send(request) {
      const searchParams = request.searchParams
        ? Object.fromEntries(
            Object.entries(request.searchParams).filter(([, v]) => v !== undefined) as [
              string,
              string | number | boolean,
            ][],
          )
        : undefined;
      try {
        const response = await client(request.path, {
          method: request.method,
          searchParams,
          json: request.json,
          headers: request.token ? { authorization: `Bearer ${request.token}` } : {},
          signal: request.signal,
        });
        const headers: Record<string, string | undefined> = {};
        for (const [k, v] of Object.entries(response.headers)) {
          headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
        }
        return { status: response.statusCode, headers, text: String(response.body ?? '') };
      } catch (err) {
        throw toNetworkError(err, request);
      }
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Reduces got's errors (which hold the request options and so the token) to ours. */
function toNetworkError(err: unknown, request: RawRequest): Error {
  const where = `${request.method} /${request.path.split('?')[0]}`;
  if (err instanceof TimeoutError) {
    return new RequestTimeoutError(`${where}: no answer in time (${err.event})`, {
      outcomeUnknown: true,
    });
  }
  const code = err instanceof RequestError ? err.code : (err as { code?: unknown })?.code;
  const name = err instanceof Error ? err.name : 'Error';
  if (name === 'AbortError' || code === 'ERR_ABORTED') {
    return new NetworkError(`${where}: aborted`, { outcomeUnknown: true });
  }
  return new NetworkError(`${where}: ${typeof code === 'string' ? code : name}`, {
    outcomeUnknown: true,
  });
}
