import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchProfilesFile } from '../../../src/config/profiles.ts';
import type { WatchedFile } from '../../../src/config/watchedFile.ts';
import { configError } from '../../helpers/configError.ts';
import { waitUntil } from '../../helpers/sandbox.ts';

/** A log that keeps what it is given. */
function memoryLog() {
  const lines: Array<{ level: string; event?: string; problem?: string; msg: string }> = [];
  const at = (level: string) => (obj: object, msg: string) => {
    lines.push({ level, ...(obj as { event?: string; problem?: string }), msg });
  };
  return {
    lines,
    info: at('info'),
    warn: at('warn'),
    events: (e: string) => lines.filter((l) => l.event === e),
  };
}

const valid = (match: string) =>
  `${JSON.stringify({ profiles: [{ match, decimal: ',' }] }, null, 2)}\n`;

const watchers: WatchedFile<unknown>[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const w of watchers.splice(0)) w.stop();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup(content: string) {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-watched-'));
  dirs.push(dir);
  const path = join(dir, 'profiles.json');
  writeFileSync(path, content);
  const log = memoryLog();
  return { dir, path, log };
}

function start(path: string, log: ReturnType<typeof memoryLog>) {
  const watched = watchProfilesFile(path, log, 50);
  watchers.push(watched);
  return watched;
}

const firstMatch = (w: ReturnType<typeof start>) => w.current().profiles[0]?.match;

describe('watched JSON settings file (profiles)', () => {
  it('loads at start, and fails with a ConfigError naming the setting and the problem', () => {
    const { path, log, dir } = setup(valid('A*'));
    expect(firstMatch(start(path, log))).toBe('A*');

    const missing = configError(() => start(join(dir, 'nope.json'), log));
    expect(missing.key).toBe('INBOX_PROFILES_FILE');
    expect(missing.message).toMatch(/INBOX_PROFILES_FILE: cannot read .*nope\.json: ENOENT/);

    writeFileSync(path, '{"profiles": [');
    expect(configError(() => start(path, log)).message).toMatch(/profiles\.json: not valid JSON/);
    writeFileSync(path, JSON.stringify({ profiles: [{ match: 'LAGER_*', negative: 'clamp' }] }));
    expect(configError(() => start(path, log)).message).toMatch(
      /INBOX_PROFILES_FILE: .*profiles\.json: profiles\[0\] \(match "LAGER_\*"\), negative: /,
    );
  });

  it('takes a valid edit in place, and keeps the last good profiles on a broken one', async () => {
    const { path, log } = setup(valid('A*'));
    const watched = start(path, log);
    writeFileSync(path, valid('B*'));
    await waitUntil(() => firstMatch(watched) === 'B*', { message: 'the edit taken' });
    expect(log.events('profiles.reloaded')).toHaveLength(1);

    writeFileSync(path, JSON.stringify({ profiles: [{ match: 'C*', headerLine: -1 }] }));
    const invalid = await waitUntil(() => log.events('profiles.invalid')[0], {
      message: 'profiles.invalid',
    });
    expect(invalid.level).toBe('warn');
    expect(invalid.problem).toMatch(
      /profiles\[0\] \(match "C\*"\), headerLine: must be at least 0/,
    );
    expect(firstMatch(watched)).toBe('B*');
    // Reported once, not at every read.
    await new Promise((r) => setTimeout(r, 300));
    expect(log.events('profiles.invalid')).toHaveLength(1);

    writeFileSync(path, valid('D*'));
    await waitUntil(() => firstMatch(watched) === 'D*', { message: 'the fix taken' });
  });

  it('takes a replacement by rename, valid or broken', async () => {
    const { dir, path, log } = setup(valid('A*'));
    const watched = start(path, log);
    writeFileSync(join(dir, '.profiles.json.tmp'), valid('R*'));
    renameSync(join(dir, '.profiles.json.tmp'), path);
    await waitUntil(() => firstMatch(watched) === 'R*', { message: 'the renamed file taken' });

    writeFileSync(join(dir, '.profiles.json.tmp'), '{"profiles": "none"}');
    renameSync(join(dir, '.profiles.json.tmp'), path);
    const invalid = await waitUntil(() => log.events('profiles.invalid')[0], {
      message: 'profiles.invalid',
    });
    expect(invalid.problem).toMatch(/^profiles: /);
    expect(firstMatch(watched)).toBe('R*');
  });

  it('reports a file that went away, and takes it back when it returns', async () => {
    const { path, log } = setup(valid('A*'));
    const watched = start(path, log);
    rmSync(path);
    const invalid = await waitUntil(() => log.events('profiles.invalid')[0], {
      message: 'profiles.invalid',
    });
    expect(invalid.problem).toMatch(/cannot read .*ENOENT/);
    expect(firstMatch(watched)).toBe('A*');
    writeFileSync(path, valid('Z*'));
    await waitUntil(() => firstMatch(watched) === 'Z*', { message: 'the file back' });
  });

  it('check() reads at once: an edit taken, a broken one reported on the second read', async () => {
    const { path, log } = setup(valid('A*'));
    const watched = watchProfilesFile(path, log, 3_600_000); // its own timer never comes
    watchers.push(watched);
    writeFileSync(path, valid('B*'));
    await watched.check();
    expect(firstMatch(watched)).toBe('B*');
    expect(log.events('profiles.reloaded')).toHaveLength(1);

    writeFileSync(path, '{"profiles": [');
    await watched.check();
    expect(log.events('profiles.invalid')).toHaveLength(0); // perhaps caught half-written
    await watched.check();
    expect(log.events('profiles.invalid')).toHaveLength(1);
    expect(firstMatch(watched)).toBe('B*');
    // Reads asked for together run one after the other: the edit is taken once.
    writeFileSync(path, valid('C*'));
    await Promise.all([watched.check(), watched.check(), watched.check()]);
    expect(firstMatch(watched)).toBe('C*');
    expect(log.events('profiles.reloaded')).toHaveLength(2);
  });
});
