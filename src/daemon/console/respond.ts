import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Headers on every console answer: nothing cached, no framing, no script, no other origin; the
 * pages load their one stylesheet from here and submit forms only here.
 */
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'same-origin',
};

export function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export const sendHtml = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) => send(req, res, status, 'text/html; charset=utf-8', body, headers);

export const sendJson = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  value: unknown,
) =>
  send(req, res, status, 'application/json; charset=utf-8', `${JSON.stringify(value, null, 2)}\n`);

export const sendText = (req: IncomingMessage, res: ServerResponse, status: number, line: string) =>
  send(req, res, status, 'text/plain; charset=utf-8', `${line}\n`);

/** 303 See Other: after a POST, the browser GETs the page (a reload never repeats the action). */
export function redirect(
  res: ServerResponse,
  location: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(303, { ...SECURITY_HEADERS, location, 'content-length': 0, ...headers });
  res.end();
}

/** The most a form body may hold. */
const MAX_FORM_BYTES = 64 * 1024;

export class BadRequestError extends Error {
  readonly code = 'E_BAD_REQUEST';
}

/** A POSTed form (application/x-www-form-urlencoded, at most 64 KiB). */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const type = req.headers['content-type'] ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded'))
    throw new BadRequestError('a form (application/x-www-form-urlencoded) is expected');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new BadRequestError('the form is too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
