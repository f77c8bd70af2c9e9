/** Validation helpers for query strings and JSON bodies; failures are 400 invalid_parameter. */
import { invalidParameter } from './httpError.ts';

/** An optional integer query parameter within [min, max]. */
export function intQuery(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^-?\d+$/.test(raw.trim())) throw invalidParameter(name, `The ${name} must be an integer.`);
  const n = Number(raw);
  if (n < min || n > max) {
    throw invalidParameter(name, `The ${name} must be between ${min} and ${max}.`);
  }
  return n;
}

/** An optional query parameter that must be one of `allowed`. */
export function enumQuery<T extends string>(
  query: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw invalidParameter(name, `The ${name} must be one of: ${allowed.join(', ')}.`);
  }
  return raw as T;
}

/** The body as a plain JSON object, or 400 (field body). */
export function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidParameter('body', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

/** A required non-empty string field (trimmed length ≥ 1, at most maxLength). */
export function requiredString(
  body: Record<string, unknown>,
  field: string,
  maxLength = 255,
): string {
  const v = body[field];
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
    throw invalidParameter(field, `The ${field} field is required.`);
  }
  if (typeof v !== 'string') throw invalidParameter(field, `The ${field} must be a string.`);
  if (v.length > maxLength) {
    throw invalidParameter(field, `The ${field} may not be greater than ${maxLength} characters.`);
  }
  return v;
}

/** An optional string field; null stays null; absent is undefined. */
export function optionalString(
  body: Record<string, unknown>,
  field: string,
  maxLength = 5000,
): string | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw invalidParameter(field, `The ${field} must be a string.`);
  if (v.length > maxLength) {
    throw invalidParameter(field, `The ${field} may not be greater than ${maxLength} characters.`);
  }
  return v;
}
