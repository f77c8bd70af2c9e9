import { SIGNATURE_HEADER, signBody } from './signature.ts';

/** One POST of a notification's body to the receiver. */
export interface SendRequest {
  readonly url: string;
  readonly body: string;
  readonly event: string;
  /** The notification's delivery id, the same across retries. */
  readonly id: string;
  /** Signs the body when given (NOTIFY_WEBHOOK_SECRET_FILE). */
  readonly secret?: string | undefined;
  /** NOTIFY_TIMEOUT_MS: the whole exchange, connection to the answer's end. */
  readonly timeoutMs: number;
  /** Aborts the request (the daemon stops). */
  readonly signal?: AbortSignal | undefined;
}

export type SendResult =
  | { readonly ok: true; readonly status: number }
  | { readonly ok: false; readonly error: string; readonly status?: number };

/**
 * POSTs the body; any 2xx answer is delivery, anything else (another status, a redirect, a
 * refused connection, the timeout) a failed attempt. Of the answer's body at most 64 KiB is read.
 * The error never quotes the URL: a chat tool's webhook URL is itself a credential.
 */
export async function sendNotification(req: SendRequest): Promise<SendResult> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'supplier-sync',
    'x-supplier-sync-event': req.event,
    'x-supplier-sync-delivery': req.id,
  };
  if (req.secret !== undefined)
    headers[SIGNATURE_HEADER.toLowerCase()] = signBody(req.body, req.secret);
  const { url, authorization } = withoutCredentials(req.url);
  if (authorization !== undefined) headers.authorization = authorization;
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: req.body,
      redirect: 'manual',
      signal,
    });
    await readAnswer(res.body);
    if (res.status >= 200 && res.status < 300) return { ok: true, status: res.status };
    return { ok: false, status: res.status, error: `HTTP ${res.status}` };
  } catch (err) {
    if (timeout.aborted) return { ok: false, error: `no answer within ${req.timeoutMs} ms` };
    if (req.signal?.aborted) return { ok: false, error: 'stopped' };
    return { ok: false, error: describeError(err) };
  }
}

/** The most of a receiver's answer that is read (its status decides the delivery). */
export const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Reads an answer's body to its end when it is short (within the request's timeout), so that the
 * connection can be reused; past MAX_ANSWER_BYTES it stops reading and the connection is dropped,
 * so that a receiver answering hundreds of MB costs nothing.
 */
async function readAnswer(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (body === null) return;
  const reader = body.getReader();
  let read = 0;
  while (read <= MAX_ANSWER_BYTES) {
    const { done, value } = await reader.read();
    if (done) return;
    read += value.byteLength;
  }
  await reader.cancel('answer longer than 64 KiB');
}

/**
 * A receiver's URL with `user:password@` in it (a common way to give a webhook Basic auth):
 * fetch refuses such a URL, so the credentials go in an Authorization header instead.
 */
export function withoutCredentials(raw: string): { url: string; authorization?: string } {
  const url = new URL(raw);
  if (url.username === '' && url.password === '') return { url: raw };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  const token = Buffer.from(`${user}:${password}`).toString('base64');
  return { url: url.href, authorization: `Basic ${token}` };
}

/** `ECONNREFUSED`, `ENOTFOUND` … from fetch's cause; the message otherwise (never the URL). */
function describeError(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (cause && typeof cause.code === 'string') return `connection failed (${cause.code})`;
  if (cause && typeof cause.message === 'string') return cause.message.slice(0, 200);
  return err instanceof Error ? err.message.slice(0, 200) : String(err).slice(0, 200);
}
