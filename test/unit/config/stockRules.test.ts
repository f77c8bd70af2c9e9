import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  describeStockRulesProblem,
  stockRulesFileSchema,
} from '../../../src/config/stockRulesFile.ts';
import { parseJsonFile } from '../../../src/config/watchedFile.ts';

const parse = (value: unknown) =>
  parseJsonFile(Buffer.from(JSON.stringify(value)), {
    schema: stockRulesFileSchema,
    describe: describeStockRulesProblem,
  });

const problem = (value: unknown) => {
  const r = parse(value);
  if (r.ok) throw new Error('expected a problem');
  return r.problem;
};

describe('stock rules file schema', () => {
  it('takes the shipped example, and an empty file means no rules', () => {
    const text = readFileSync(new URL('../../../config/stock-rules.example.json', import.meta.url));
    const r = parseJsonFile(text, { schema: stockRulesFileSchema });
    expect(r.ok && r.value.rules.length).toBe(3);
    expect(r.ok && r.value.locations).toEqual({ 'WH-LONDON': 'DC-LON', 'WH-BERLIN-1': 'DC-BER' });
    expect(parse({})).toEqual({ ok: true, value: { locations: {}, rules: [] } });
  });

  it.each([
    [
      { rules: [{ sku: 'A*', percent: 120 }] },
      'rules[0] (sku "A*"), percent: percent must be from 0 to 100',
    ],
    [
      { rules: [{}, { dc: 'DC-1', buffer: 1.5 }] },
      'rules[1] (dc "DC-1"), buffer: buffer must be a whole number',
    ],
    [{ rules: [{ sku: 'A', max: -1 }] }, 'rules[0] (sku "A"), max: max must be 0 or more'],
    [{ rules: [{ kind: 'shop' }] }, 'rules[0], kind: must be "factory" or "dc"'],
    [{ rules: [{ skux: 'A' }] }, 'rules[0]: Unrecognized key: "skux"'],
    [{ rules: [{ sku: '' }] }, 'rules[0] (sku ""), sku: must not be empty'],
    [
      { rules: [{ kind: 'factory', dc: 'D' }] },
      'rules[0] (dc "D"), dc: a dc never matches factory stock (kind "factory"): drop one of them',
    ],
    [
      { rules: [{ sku: 'X', exclude: true, buffer: 2 }] },
      'rules[0] (sku "X"), buffer: an excluded key is never offered: buffer has no effect with exclude',
    ],
    [{ locations: { 'WH-1': '' } }, 'locations.WH-1: must not be empty'],
    [
      { locations: { 'WH-1': 5 } },
      'locations.WH-1: Invalid input: expected string, received number',
    ],
    [{ rule: [] }, 'Unrecognized key: "rule"'],
  ])('names the problem: %j', (input, expected) => {
    expect(problem(input)).toBe(expected);
  });

  it('refuses what is not JSON', () => {
    const r = parseJsonFile(Buffer.from('{"rules": ['), { schema: stockRulesFileSchema });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toMatch(/^not valid JSON/);
  });
});
