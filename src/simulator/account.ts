/** The single supplier account and its token. A new login replaces (invalidates) the old token. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthState } from './context.ts';

export function createAuth(email: string, password: string): AuthState {
  let current: Buffer | null = null;
  let issued = 0;
  const all: string[] = [];
  return {
    email,
    password,
    issueToken() {
      issued++;
      const token = `${issued}|${randomBytes(30).toString('base64url')}`;
      current = Buffer.from(token);
      all.push(token);
      return token;
    },
    isValid(token) {
      if (current === null) return false;
      const given = Buffer.from(token);
      return given.length === current.length && timingSafeEqual(given, current);
    },
    invalidateAll() {
      current = null;
    },
    issuedTokens: () => [...all],
  };
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m?.[1] ?? null;
}
