/**
 * The logger's last net (scrubbing the finished JSON line) must also catch a registered secret
 * that holds `"`, `\` or control characters, which only appear JSON-escaped in the line.
 */
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.ts';
import { registerSecret } from '../../src/log/redact.ts';

describe('secrets holding JSON-special characters', () => {
  it('are cut from message strings, object keys and toJSON values, not only from logged strings', () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
    const secret = `pw-${randomBytes(4).toString('hex')}-"q\\ü\n\t-canary`;
    registerSecret(secret);

    log.info(`a message with ${secret}`);
    log.info({ event: 'x', [`key ${secret}`]: 1 }, 'a key');
    log.info({ event: 'x', data: { toJSON: () => secret } }, 'a toJSON value');
    log.info({ event: 'x', detail: `a value ${secret}` }, 'a value');
    log.error({ event: 'x', err: new Error(`an error ${secret}`) }, 'an error');

    const lines = chunks.join('').trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line).not.toContain('canary');
      expect(line).toContain('[REDACTED]');
      expect(() => JSON.parse(line)).not.toThrow();
    }
  });
});
