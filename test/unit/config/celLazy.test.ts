import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * The CEL library is loaded at a profile's first expression, never at start (src/config/expr/
 * celLibrary.ts): a daemon whose profiles have none does not hold it. What a process has loaded
 * is what is tested, so the check runs in a process of its own.
 */
describe('the CEL library is loaded only for expressions', () => {
  it('is not loaded by the daemon and a profile without expressions, and is by one with', () => {
    const script = `
      import { registerHooks } from 'node:module';
      // Every module resolved, by import or require, is seen here.
      const seen = [];
      registerHooks({
        resolve(specifier, context, next) {
          const r = next(specifier, context);
          seen.push(r.url);
          return r;
        },
      });
      const loaded = () => seen.some((url) => /cel-js|bufbuild[\\/]re2/.test(url));
      const p = await import('./src/config/profiles.ts');
      await import('./src/daemon/daemon.ts');
      p.profilesFileSchema.parse({ profiles: [{ match: 'a', columns: { sku: 'Item' } }] });
      const before = loaded();
      p.profilesFileSchema.parse({ profiles: [{ match: 'a', columns: { sku: { expr: "row['Item']" } } }] });
      console.log(JSON.stringify({ before, after: loaded() }));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: new URL('../../../', import.meta.url).pathname,
      encoding: 'utf8',
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ before: false, after: true });
  });
});
