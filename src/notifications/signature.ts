import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config/configError.ts';
import { readSecretFile } from '../config/secretFile.ts';

/** The header that carries the body's signature: `sha256=<hex>`. */
export const SIGNATURE_HEADER = 'X-Supplier-Sync-Signature';

/** HMAC-SHA256 of the exact bytes of `body` with `secret`, as the header carries it. */
export function signBody(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the signature of `body` with `secret` (compared in constant time). */
export function verifySignature(
  body: string | Buffer,
  header: string | undefined,
  secret: string,
): boolean {
  if (header === undefined) return false;
  const expected = Buffer.from(signBody(body, secret));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The signing secret: NOTIFY_WEBHOOK_SECRET_FILE's content without its trailing newline, read at
 * start. Unreadable or empty: a ConfigError (exit 78) naming the setting, never the content.
 */
export function readWebhookSecret(path: string): string {
  const secret = readSecretFile('NOTIFY_WEBHOOK_SECRET_FILE', path);
  if (secret.trim() === '')
    throw new ConfigError('NOTIFY_WEBHOOK_SECRET_FILE', `${path} holds no secret`);
  return secret;
}
