import { scrubString } from '../log/redact.ts';
import type { RawResponse } from './http.ts';

/** The body as JSON, or undefined when empty or not JSON. */
export function parseJson(response: RawResponse): unknown {
  const text = response.text.trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export interface ErrorBodyDetails {
  readonly apiCode?: string | undefined;
  readonly field?: string | undefined;
  readonly apiMessage?: string | undefined;
  readonly excerpt?: string | undefined;
}

const EXCERPT_LENGTH = 200;

/**
 * What an error answer says: the spec's `{error: {code, message, field}}`, the 429 body
 * `{success: false, message}`, or, for anything else (an HTML error page), a short scrubbed
 * excerpt of its text.
 */
export function errorDetails(response: RawResponse): ErrorBodyDetails {
  const body = parseJson(response);
  if (typeof body === 'object' && body !== null) {
    const b = body as Record<string, unknown>;
    const error = b.error;
    if (typeof error === 'object' && error !== null) {
      const e = error as Record<string, unknown>;
      return {
        apiCode: typeof e.code === 'string' ? e.code : undefined,
        field: typeof e.field === 'string' ? e.field : undefined,
        apiMessage: typeof e.message === 'string' ? scrubString(e.message) : undefined,
      };
    }
    if (typeof b.message === 'string') return { apiMessage: scrubString(b.message) };
    if (typeof b.error === 'string') return { apiMessage: scrubString(b.error) };
  }
  return { excerpt: excerpt(response.text) };
}

/** The first words of a body as one line of plain text (tags dropped), scrubbed. */
export function excerpt(text: string): string | undefined {
  const plain = text
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain === '') return undefined;
  const cut = plain.length > EXCERPT_LENGTH ? `${plain.slice(0, EXCERPT_LENGTH)}…` : plain;
  return scrubString(cut);
}
