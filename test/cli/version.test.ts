import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cliInProcess.ts';

const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as {
  version: string;
};

describe('--version', () => {
  it("prints package.json's version and exits 0 (-V the same); help names it", async () => {
    for (const flag of ['--version', '-V']) {
      const r = await runCliInProcess([flag], {});
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`supplier-sync ${pkg.version}\n`);
      expect(r.stderr).toBe('');
    }
    expect((await runCliInProcess(['--help'], {})).stdout).toMatch(/supplier-sync --version/);
  });
});
