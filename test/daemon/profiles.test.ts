import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cliInProcess.ts';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';

/** INBOX_PROFILES_FILE through the real daemon: exit 78 at start, re-read while it runs. */
describe('inbox profiles file (real daemon)', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  const profiles = (match: string) =>
    JSON.stringify({ profiles: [{ match, headerLine: 2, decimal: ',' }] });

  it('refuses to start on a broken profiles file, naming the profile and the field (exit 78)', async () => {
    h = await startHarness('profiles-bad');
    const file = join(h.box.dataDir, 'profiles.json');
    writeFileSync(file, JSON.stringify({ profiles: [{ match: 'LAGER_*.TXT', decimal: ';' }] }));
    const r = await runCliInProcess(['run'], { ...h.env, INBOX_PROFILES_FILE: file });
    expect(r.code).toBe(78);
    expect(r.output).toMatch(
      /configuration error: INBOX_PROFILES_FILE: .*profiles\.json: profiles\[0\] \(match "LAGER_\*\.TXT"\), decimal: /,
    );
    // An expression is compiled as the file is read: its problem is named with its position.
    writeFileSync(
      file,
      JSON.stringify({
        profiles: [{ match: 'grouped-*.xlsx', columns: { sku: { expr: "row['Name'].shout()" } } }],
      }),
    );
    const expr = await runCliInProcess(['run'], { ...h.env, INBOX_PROFILES_FILE: file });
    expect(expr.code).toBe(78);
    expect(expr.output).toMatch(
      /INBOX_PROFILES_FILE: .*profiles\[0\] \(match "grouped-\*\.xlsx"\), columns\.sku\.expr: at 1:1: found no matching overload for 'string\.shout\(\)'/,
    );
    const missing = await runCliInProcess(['run'], {
      ...h.env,
      INBOX_PROFILES_FILE: `${file}.nope`,
    });
    expect(missing.code).toBe(78);
    expect(missing.output).toMatch(/INBOX_PROFILES_FILE: cannot read .*ENOENT/);
  });

  it('loads it, logs a broken edit as profiles.invalid and takes a valid replacement', async () => {
    h = await startHarness('profiles-watch');
    const file = join(h.box.dataDir, 'profiles.json');
    writeFileSync(file, profiles('LAGER_*.TXT'));
    const d = await h.start({ INBOX_PROFILES_FILE: file });
    const loaded = await d.waitForEvent('profiles.loaded');
    expect(loaded.profiles).toBe(1);

    writeFileSync(
      file,
      '{"profiles": [{"match": "X", "when": [{"if": "date(row[\'E\'])", "then": "skip"}]}]}',
    ); // in place
    // Reported once read the same twice (not a file caught half-written); read at once here
    // instead of at the next looks (every 2 s).
    await d.runNow('settings-files');
    await d.runNow('settings-files');
    const invalid = await d.waitFor((l) => l.event === 'profiles.invalid', 10_000);
    expect(invalid.level).toBe('warn');
    expect(String(invalid.problem)).toMatch(
      /profiles\[0\] \(match "X"\), when\.0\.if: at 1:1: found no matching overload for 'date\(string\)'/,
    );

    writeFileSync(join(h.box.dataDir, '.profiles.json.tmp'), profiles('items-*.txt'));
    renameSync(join(h.box.dataDir, '.profiles.json.tmp'), file); // replaced by a rename
    await d.runNow('settings-files');
    await d.waitFor((l) => l.event === 'profiles.reloaded', 10_000);
    expect(await h.stop()).toBe(0);
  });
});
