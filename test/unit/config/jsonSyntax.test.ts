import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findJsonFault } from '../../../src/config/jsonSyntax.ts';
import { loadProfilesFile } from '../../../src/config/profiles.ts';
import { readStockRulesFile } from '../../../src/config/stockRulesFile.ts';
import { runCliInProcess } from '../../helpers/cliInProcess.ts';
import { configError } from '../../helpers/configError.ts';

const PASSWORD = 'S3cretPortalPW!';
const tmp = () => mkdtempSync(join(tmpdir(), 'supplier-sync-json-'));

describe('where a JSON text stops being JSON', () => {
  it('names the line and column of the first fault, and nothing for JSON', () => {
    const cases: Array<[string, number, number, RegExp]> = [
      ['', 1, 1, /end of the file, a value expected/],
      ['S3cret', 1, 1, /unexpected character, a value expected/],
      ['{"a": 1,\n "b": }', 2, 7, /a value expected/],
      ['{"a": 1\n "b": 2}', 2, 2, /',' or '}' expected/],
      ['{a: 1}', 1, 2, /property name in double quotes/],
      ['[1, 2', 1, 6, /end of the file, ',' or '\]' expected/],
      ['{"a": "x', 1, 7, /string that is never closed/],
      ['{"a": "x\ny"}', 1, 9, /control character/],
      ['{"a": "\\q"}', 1, 8, /bad escape/],
      ['{"a": tru}', 1, 7, /a value expected/],
      ['{} x', 1, 4, /more after the end/],
      ['\r\n\r\n  [01]', 3, 5, /',' or '\]' expected/],
      ['{"a": -}', 1, 7, /a value expected/],
    ];
    for (const [text, line, column, problem] of cases) {
      expect(() => JSON.parse(text), text).toThrow();
      const fault = findJsonFault(text);
      expect(fault, text).toMatchObject({ line, column });
      expect(fault?.problem, text).toMatch(problem);
    }
    for (const text of [
      '{}',
      ' [ ] ',
      '{"a": [1, -2.5e+3, true, false, null, "\\u00e9\\n\\"", {"b": {}}]}',
      '"x"',
      '0',
    ]) {
      expect(JSON.parse(text) === undefined).toBe(false);
      expect(findJsonFault(text), text).toBeUndefined();
    }
  });
});

describe('configuration files that are not JSON: file and position, never their content, one line', () => {
  const checkMessage = (message: string, file: string) => {
    expect(message).not.toContain(PASSWORD);
    expect(message).not.toContain('S3cret');
    expect(message).not.toMatch(/\n/);
    expect(message).toContain(file);
  };

  it('--config holding a password in a file that is not JSON: exit 78, one line', async () => {
    const dir = tmp();
    const file = join(dir, 'settings.json');
    writeFileSync(file, `SUPPLIER_PASSWORD=${PASSWORD}\nSUPPLIER_USERNAME=acme\n`);
    const r = await runCliInProcess(['status', '--config', file], {});
    expect(r.code).toBe(78);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `supplier-sync: configuration error: --config: ${file}: not valid JSON at line 1, column 1: unexpected character, a value expected\n`,
    );
    // JSON broken after the password: still only where.
    writeFileSync(
      file,
      `{\n  "SUPPLIER_PASSWORD": "${PASSWORD}",\n  "SUPPLIER_USERNAME": acme\n}\n`,
    );
    const again = await runCliInProcess(['status', '--config', file], {});
    expect(again.code).toBe(78);
    checkMessage(again.stderr.trimEnd(), file);
    expect(again.stderr).toMatch(/line 3, column 24/);
  });

  it('INBOX_PROFILES_FILE and STOCK_RULES_FILE the same', () => {
    const dir = tmp();
    const profiles = join(dir, 'profiles.json');
    writeFileSync(profiles, `{"profiles": [{"match": "${PASSWORD}" "x"}]}`);
    const p = configError(() => loadProfilesFile(profiles));
    expect(p.key).toBe('INBOX_PROFILES_FILE');
    checkMessage(p.message, profiles);
    expect(p.message).toMatch(
      /not valid JSON at line 1, column 43: unexpected character, ',' or '}' expected/,
    );

    const rules = join(dir, 'rules.json');
    writeFileSync(rules, `${PASSWORD}\n`);
    const s = configError(() => readStockRulesFile(rules));
    expect(s.key).toBe('STOCK_RULES_FILE');
    checkMessage(s.message, rules);
    expect(s.message).toMatch(/not valid JSON at line 1, column 1/);
  });
});
