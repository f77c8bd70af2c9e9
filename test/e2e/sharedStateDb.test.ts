import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.ts';
import { type Harness, harness, simulator } from '../api/helpers.ts';

let sim: Simulator;
let h: Harness;

afterEach(async () => {
  await h.cleanup();
  await sim.close();
});

function burst(args: string[]): Promise<{ ok: number; budget: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, '../fixtures/burst.ts'), ...args],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => {
      out += String(c);
    });
    child.stderr.on('data', (c) => {
      err += String(c);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(out) as { ok: number; budget: number });
      else reject(new Error(`burst exited ${code}: ${err}`));
    });
  });
}

describe('several processes on one data dir', () => {
  it('share the token and never overspend the budget together', async () => {
    sim = await simulator();
    h = harness(sim, 'processes');
    await h.client().reference.sites(); // stores the token: the children reuse it
    const results = await Promise.all(
      Array.from({ length: 4 }, () => burst([sim.baseUrl, h.dbPath, '8', '13'])),
    );
    const ok = results.reduce((n, r) => n + r.ok, 0);
    const refused = results.reduce((n, r) => n + r.budget, 0);
    expect(ok).toBe(12); // 13 per hour, one spent by the parent
    expect(refused).toBe(20);
    expect(sim.stats().byRoute['GET /sites']).toBe(13);
    expect(sim.stats().logins).toBe(1);
  }, 30_000);
});
