import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log/logger.ts';
import { registerSecret } from '../../../src/log/redact.ts';

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
  return { log, text: () => chunks.join('') };
}

describe('logger', () => {
  it('writes JSON lines with a level label and the event field', () => {
    const { log, text } = capture();
    log.info({ event: 'file.processed', rows: 3 }, 'done');
    const line = JSON.parse(text().trim());
    expect(line).toMatchObject({ level: 'info', event: 'file.processed', rows: 3, msg: 'done' });
  });

  it('masks secret keys at any depth', () => {
    const { log, text } = capture();
    log.info({
      event: 'x',
      request: {
        headers: { Authorization: 'Bearer abcdefgh12345678' },
        body: { email: 'a@b', password: 'pw-in-body' },
      },
      token: 'tok-123456',
    });
    const out = text();
    expect(out).not.toContain('abcdefgh12345678');
    expect(out).not.toContain('pw-in-body');
    expect(out).not.toContain('tok-123456');
    expect(out).toContain('a@b');
  });

  it('cuts registered secrets out of error messages, stacks and causes, and drops request options', () => {
    const password = 'hunter2-very-secret';
    const token = 'T0KEN-a1b2c3d4e5f6';
    registerSecret(password);
    registerSecret(token);
    const cause = new Error(`login failed for password ${password}`);
    const err = Object.assign(new Error(`request with ${token} failed`, { cause }), {
      code: 'ERR_NON_2XX',
      options: { headers: { authorization: `Bearer ${token}` }, json: { password } },
      response: { body: `{"token":"${token}"}` },
    });
    const { log, text } = capture();
    log.error({ event: 'api.error', err }, `boom ${token}`);
    const out = text();
    expect(out).not.toContain(password);
    expect(out).not.toContain(token);
    const line = JSON.parse(out.trim());
    expect(line.err).toMatchObject({ type: 'Error', code: 'ERR_NON_2XX' });
    expect(line.err.options).toBeUndefined();
    expect(line.err.cause.message).toContain('[REDACTED]');
  });
});

describe('secret registry', () => {
  it('keeps the password for ever and only the newest tokens', () => {
    registerSecret('the-password-xyz');
    for (let i = 0; i < 100; i++) registerSecret(`token-number-${i}-abcdef`, 'rotating');
    const { log, text } = capture();
    log.info({ event: 'x' }, 'the-password-xyz token-number-99-abcdef token-number-0-abcdef');
    const out = text();
    expect(out).not.toContain('the-password-xyz');
    expect(out).not.toContain('token-number-99-abcdef');
    expect(out).toContain('token-number-0-abcdef'); // long dead: no longer scanned for
  });
});
