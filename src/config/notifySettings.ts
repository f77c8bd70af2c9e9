import { ms, optional, setting, text } from './settingTypes.ts';

/** An http(s) URL to POST notifications to. */
const webhookUrl = text
  .url('must be a URL')
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http(s) URL');

/**
 * The settings of notifications by webhook (docs/notifications.md), part of the one table of
 * settings.ts.
 */
export const notifySettings = {
  notifyWebhookUrl: optional(
    'NOTIFY_WEBHOOK_URL',
    webhookUrl,
    'URL that receives a JSON POST for each notification: a file failed, held, or processed with rejected rows; shipments.overdue; the status verdict turning to NEEDS A PERSON and back; api.foreign_login; rules.invalid; profiles.invalid; product.declined; a full disk (docs/notifications.md). Unset: no notifications. Never printed (a chat tool’s webhook URL is a credential).',
    true,
  ),
  notifyWebhookSecretFile: optional(
    'NOTIFY_WEBHOOK_SECRET_FILE',
    text,
    'File holding the secret (trailing newline ignored) with which each notification’s body is signed: HMAC-SHA256 in X-Supplier-Sync-Signature (sha256=<hex>). Read at start. Unset: unsigned.',
  ),
  notifyTimeoutMs: setting(
    'NOTIFY_TIMEOUT_MS',
    ms(100, 300_000),
    10_000,
    'Longest one notification POST may take (connection to the end of the answer), in milliseconds; longer is a failed attempt. At most 300,000 (5 minutes).',
  ),
  notifyRetryBaseMs: setting(
    'NOTIFY_RETRY_BASE_MS',
    ms(100, 3_600_000),
    10_000,
    'Wait after a notification’s first failed attempt, in milliseconds, doubled per attempt up to NOTIFY_RETRY_MAX_MS; a notification not taken within 24 h is dropped (notify.dropped). At most 3,600,000 (an hour).',
  ),
  notifyRetryMaxMs: setting(
    'NOTIFY_RETRY_MAX_MS',
    ms(100, 21_600_000),
    3_600_000,
    'Longest wait between two attempts of a notification, in milliseconds. At most 21,600,000 (6 hours).',
  ),
} as const;
