import { describe, expect, it } from 'vitest';
import { loadConfig, settings } from '../../../src/config/index.ts';
import { MAX_TIMER_MS } from '../../../src/config/settingTypes.ts';
import { runCliInProcess } from '../../helpers/cliInProcess.ts';
import { configError } from '../../helpers/configError.ts';

/** Every setting in milliseconds: its key ends in _MS. */
const durations = Object.values(settings).filter((s) => s.key.endsWith('_MS'));

describe('every duration setting is bounded', () => {
  it('knows the duration settings', () => {
    expect(durations.map((s) => s.key)).toContain('INBOX_STABILITY_MS');
    expect(durations.length).toBeGreaterThanOrEqual(15);
  });

  it('refuses, naming the key, a value a timer cannot wait (above 2^31 − 1 ms) and takes its default', () => {
    for (const s of durations) {
      for (const value of [String(MAX_TIMER_MS + 1), '9999999999999']) {
        const err = configError(() => loadConfig({ env: { [s.key]: value } }));
        expect(err.key, s.key).toBe(s.key);
        expect(err.message, s.key).toMatch(new RegExp(`^${s.key}: must be at most \\d+$`));
      }
      expect(() => loadConfig({ env: { [s.key]: String(s.default) } }), s.key).not.toThrow();
    }
  });

  it('says the bound where the setting is documented', () => {
    for (const s of durations) {
      const bound = Number(
        configError(() => loadConfig({ env: { [s.key]: '9999999999999' } })).message.match(
          /at most (\d+)/,
        )?.[1],
      );
      expect(bound, s.key).toBeLessThanOrEqual(MAX_TIMER_MS);
      expect(s.doc, s.key).toContain(`At most ${bound.toLocaleString('en-US')} (`);
    }
  });

  it('run refuses INBOX_STABILITY_MS=9999999999999 at start: exit 78 naming the key', async () => {
    const r = await runCliInProcess(['run'], { INBOX_STABILITY_MS: '9999999999999' });
    expect(r.code).toBe(78);
    expect(r.stderr).toBe(
      'supplier-sync: configuration error: INBOX_STABILITY_MS: must be at most 3600000\n',
    );
  });
});
