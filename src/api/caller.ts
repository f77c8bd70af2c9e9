import type { z } from 'zod';
import { BadResponseError } from './portalErrors.ts';
import { type ApiResponse, type CallOptions, type CallSpec, expectOk } from './request.ts';

/** What an endpoint function needs: one way to send a call. */
export interface Caller {
  /** Resolves with 2xx and final 4xx answers; throws for the rest (see sendCall). */
  send(spec: CallSpec, options?: CallOptions): Promise<ApiResponse>;
  /** Logs a warning once per client for `key` (a surprise in answers, not worth a line each). */
  warnOnce(key: string, fields: Record<string, unknown>, message: string): void;
}

export function describe(spec: Pick<CallSpec, 'method' | 'path'>): string {
  return `${spec.method} /${spec.path}`;
}

/** Sends, requires a 2xx and checks the body against `schema`. */
export async function callJson<S extends z.ZodType>(
  caller: Caller,
  spec: CallSpec,
  schema: S,
  options?: CallOptions,
): Promise<z.output<S>> {
  const where = describe(spec);
  const response = expectOk(await caller.send(spec, options), where);
  return checkBody(schema, response, where);
}

/** Sends and requires a 2xx; the body is returned as sent (the spec does not show it). */
export async function callOpen(
  caller: Caller,
  spec: CallSpec,
  options?: CallOptions,
): Promise<OpenResult> {
  const response = expectOk(await caller.send(spec, options), describe(spec));
  return { status: response.status, body: response.body };
}

/** A success whose body the spec leaves open. */
export interface OpenResult {
  readonly status: number;
  readonly body: unknown;
}

export function checkBody<S extends z.ZodType>(
  schema: S,
  response: ApiResponse,
  where: string,
): z.output<S> {
  const parsed = schema.safeParse(response.body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
    .join('; ');
  throw new BadResponseError(`${where}: unexpected answer (${issues})`, {
    status: response.status,
  });
}

/** Path segment from a caller's value (SKUs may hold characters that need escaping). */
export function seg(value: string | number): string {
  return encodeURIComponent(String(value));
}
