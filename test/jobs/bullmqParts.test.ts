/**
 * The daemon takes BullMQ's classes from their own modules (src/jobs/bullmqParts.ts), not from its
 * entry point, which loads backends the daemon never uses. Each is held to the entry point's
 * export of the same name (an upgrade that moves one fails here), and the parts are shown to load
 * none of those backends.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import * as BullMQ from 'bullmq';
import { describe, expect, it } from 'vitest';
import { BULLMQ_PARTS } from '../../src/jobs/bullmqParts.ts';
import { NODE } from '../helpers/daemonProcess.ts';

describe("BullMQ's parts", () => {
  it('are the very classes and values the entry point exports', () => {
    for (const [name, value] of Object.entries(BULLMQ_PARTS))
      expect(value, name).toBe((BullMQ as Record<string, unknown>)[name]);
  });

  it('load none of the backends the daemon does not use (PostgreSQL, Valkey GLIDE)', () => {
    const script = `
      await import(${JSON.stringify(join(import.meta.dirname, '../../src/jobs/bullmqParts.ts'))});
      const { createRequire } = await import('node:module');
      const cache = createRequire(import.meta.url).cache;
      console.log(JSON.stringify(Object.keys(cache).filter((k) => k.includes('/bullmq/'))));`;
    const r = spawnSync(NODE, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const loaded = JSON.parse(r.stdout) as string[];
    expect(loaded.some((p) => p.endsWith('/classes/worker.js'))).toBe(true);
    expect(loaded.filter((p) => /postgres|valkey-glide|relay\.js|relay-backend/.test(p))).toEqual(
      [],
    );
  });
});
