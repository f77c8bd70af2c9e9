import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeConfig, loadConfig } from '../../../src/config/index.ts';
import { readWebhookSecret } from '../../../src/notifications/signature.ts';
import { configError } from '../../helpers/configError.ts';

describe('notification settings', () => {
  it('are off by default, with a 10 s timeout and back-off from 10 s to 1 h', () => {
    const c = loadConfig({ env: {}, cwd: '/srv' });
    expect(c.notifyWebhookUrl).toBeUndefined();
    expect([c.notifyTimeoutMs, c.notifyRetryBaseMs, c.notifyRetryMaxMs]).toEqual([
      10_000, 10_000, 3_600_000,
    ]);
  });

  it('take an http(s) URL, never printed, and the secret file relative to the working folder', () => {
    const url = 'https://hooks.example.com/services/T000/B000/XXXXSECRETPATH';
    const c = loadConfig({
      env: { NOTIFY_WEBHOOK_URL: url, NOTIFY_WEBHOOK_SECRET_FILE: 'secrets/hook' },
      cwd: '/srv',
    });
    expect(c.notifyWebhookUrl).toBe(url);
    expect(c.notifyWebhookSecretFile).toBe('/srv/secrets/hook');
    expect(JSON.stringify(describeConfig(c))).not.toContain('XXXXSECRETPATH');
  });

  it('name the key at fault, without quoting the value', () => {
    const bad = configError(() =>
      loadConfig({ env: { NOTIFY_WEBHOOK_URL: 'ftp://hooks.example.com/x-secret' } }),
    );
    expect(bad.message).toMatch(/^NOTIFY_WEBHOOK_URL: must be an http\(s\) URL$/);
    expect(
      configError(() =>
        loadConfig({ env: { NOTIFY_RETRY_BASE_MS: '3000000', NOTIFY_RETRY_MAX_MS: '1000000' } }),
      ).message,
    ).toMatch(/^NOTIFY_RETRY_BASE_MS: .*must not exceed NOTIFY_RETRY_MAX_MS/);
  });

  it('read the secret from its file (trailing newline dropped); missing or empty stops the start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'notify-secret-'));
    writeFileSync(join(dir, 'ok'), 'abc-secret\n');
    writeFileSync(join(dir, 'empty'), '\n');
    expect(readWebhookSecret(join(dir, 'ok'))).toBe('abc-secret');
    expect(configError(() => readWebhookSecret(join(dir, 'empty'))).message).toBe(
      `NOTIFY_WEBHOOK_SECRET_FILE: ${join(dir, 'empty')} holds no secret`,
    );
    expect(configError(() => readWebhookSecret(join(dir, 'nope'))).message).toMatch(
      /^NOTIFY_WEBHOOK_SECRET_FILE: cannot read .*nope: ENOENT$/,
    );
  });
});
