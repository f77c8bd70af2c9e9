/**
 * Issue #30, consistency: every command's --json gives times as ISO 8601 (UTC) and null for
 * "none"; human output gives them in SYNC_TIMEZONE and names the zone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { factoryCsv, type Harness, seededSku, startHarness } from '../helpers/daemonHarness.ts';

let h: Harness;
afterEach(async () => {
  await h?.cleanup();
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const INSTANT = /^(at|since)$|At$|Since$/;

/** Every value under an instant's name, at any depth, with its path. */
function instants(v: unknown, path = '$'): Array<[string, unknown]> {
  if (Array.isArray(v)) return v.flatMap((x, i) => instants(x, `${path}[${i}]`));
  if (v === null || typeof v !== 'object') return [];
  return Object.entries(v).flatMap(
    ([k, x]): Array<[string, unknown]> =>
      INSTANT.test(k) && (x === null || typeof x !== 'object')
        ? [[`${path}.${k}`, x]]
        : instants(x, `${path}.${k}`),
  );
}

const json = (output: string) => JSON.parse(output.slice(output.search(/[[{]/)));

describe('times and "none" in command output', () => {
  it('--json: ISO 8601 everywhere, null for none; human: local times with the zone named', async () => {
    h = await startHarness('output-times', { products: 50 }, { SYNC_TIMEZONE: 'Europe/Berlin' });
    const d = await h.start();
    h.drop(
      'stock.csv',
      factoryCsv([
        [seededSku(0), 7],
        ['NO-SUCH-SKU', 1],
      ]),
    );
    await d.waitFor((l) => l.event === 'stock.item_failed' && l.sku === 'NO-SUCH-SKU');
    await d.waitForEvent('file.processed');

    const outputs: Record<string, unknown> = {};
    for (const args of [
      ['status', '--json'],
      ['failures', '--json'],
      ['files', '--json'],
      ['held', '--json'],
      ['health', '--json'],
      ['explain', 'factory:NO-SUCH-SKU', '--json'],
      ['explain', `factory:${seededSku(0)}`, '--json'],
    ]) {
      const r = await h.cli(args);
      expect(r.code, `${args.join(' ')}: ${r.output}`).toBe(0);
      outputs[args.join(' ')] = json(r.stdout);
    }
    const times = instants(outputs);
    expect(times.length).toBeGreaterThan(20);
    for (const [path, value] of times) {
      if (value !== null) expect(value, path).toMatch(ISO);
    }
    const status = outputs['status --json'] as {
      daemon: { at: string; startedAt: string };
      last: { ingest: { at: string } };
    };
    expect(status.daemon.at).toMatch(ISO);
    expect(status.last.ingest.at).toMatch(ISO);
    expect((outputs['health --json'] as { checkedAt: string }).checkedAt).toMatch(ISO);

    // A factory key has no centre: null, in failures as in explain.
    const failures = outputs['failures --json'] as {
      stock: Array<{ key: string; dc: string | null; nextAttemptAt: string }>;
    };
    expect(failures.stock).toEqual([
      expect.objectContaining({
        key: 'factory:NO-SUCH-SKU',
        dc: null,
        nextAttemptAt: expect.stringMatching(ISO),
      }),
    ]);
    expect((outputs['explain factory:NO-SUCH-SKU --json'] as { dc: unknown }).dc).toBeNull();

    // Human output: local times (Berlin is UTC+1 in November, +2 in summer) and the zone named.
    const zone = /Europe\/Berlin \(GMT\+[12]\)/;
    const status2 = await h.cli(['status']);
    expect(status2.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^times +${zone.source}$`),
    );
    for (const args of [['failures'], ['files'], ['explain', 'factory:NO-SUCH-SKU']]) {
      const r = await h.cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout, args[0]).toMatch(
        new RegExp(`times in ${zone.source} \\(SYNC_TIMEZONE\\)\\n$`),
      );
      expect(r.stdout, args[0]).not.toMatch(/\d\dT\d\d:\d\d/); // no ISO instants for people
    }
    expect(await h.stop()).toBe(0);
  });
});
