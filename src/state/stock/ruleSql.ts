import { ruleLabel, type StockRule } from '../../domain/stockRules.ts';

/**
 * Stock rules as plain SQL, so that a pass over every key (the re-evaluation after a change of
 * rules) runs without a call into JavaScript for each: the first matching rule by a CASE over
 * the key's columns, its effect as integer arithmetic, packed as `stock_offer` packs it
 * (ruleOffers.ts): offered × QUANTITY_UNIT + excluded × EXCLUDED_BIT + rule slot.
 *
 * It gives what domain/stockRules.ts gives, exactly, where SQL compares as the rules do: kind
 * and dc exactly, a SKU pattern as LIKE (`*` → `%`, `?` → `_`, `%`, `_` and `\` escaped), which
 * folds the case of ASCII letters only. So a key whose SKU holds a character beyond ASCII is
 * handed to the JavaScript function (`fallback`), and rules with such a pattern, or very many
 * rules, are not compiled at all (null: use the function for every key). Pure.
 */

export const QUANTITY_UNIT = 131_072;
export const EXCLUDED_BIT = 65_536;
export const SLOT_BITS = 65_536;
/** Beyond this many rules a CASE per key costs more than the function: not compiled. */
const MOST_RULES = 200;

export interface KeySql {
  readonly kind: string;
  readonly dc: string;
  readonly sku: string;
  readonly erp: string;
}

/** The packed offer of a key in SQL, or null when the rules are not compiled (see above). */
export function offerSql(
  rules: readonly StockRule[],
  key: KeySql,
  fallback: string,
): string | null {
  if (rules.length > MOST_RULES || rules.some((r) => r.sku !== undefined && !ASCII.test(r.sku))) {
    return null;
  }
  const whens = rules.map(
    (rule, i) => `WHEN ${matchSql(rule, key)} THEN ${effectSql(rule, i, key.erp)}`,
  );
  // More bytes than characters: a character beyond ASCII.
  return `(CASE WHEN octet_length(${key.sku}) != length(${key.sku}) THEN ${fallback} ${whens.join(' ')} ELSE ${key.erp} * ${QUANTITY_UNIT} END)`;
}

/**
 * The rule slot a stored label stands for under these rules (0: none; -1: a label of other
 * rules), so that a key's stored outcome packs as its offer does.
 */
export function storedSlotSql(rules: readonly StockRule[], column: string): string {
  const whens = rules.map((rule, i) => `WHEN ${quote(ruleLabel(rule, i))} THEN ${i + 1}`);
  return `(CASE WHEN ${column} IS NULL THEN 0 ${whens.length > 0 ? `ELSE CASE ${column} ${whens.join(' ')} ELSE -1 END` : 'ELSE -1'} END)`;
}

/**
 * The label (desired_stock.rule) of the rule in the slot `slot` (an SQL expression) as a CASE
 * over the rules' labels; NULL for slot 0. For the rules offerSql compiles (so no more than a few
 * hundred WHENs).
 */
export function slotLabelSql(rules: readonly StockRule[], slot: string): string {
  if (rules.length === 0) return 'NULL';
  const whens = rules.map((rule, i) => `WHEN ${i + 1} THEN ${quote(ruleLabel(rule, i))}`);
  return `(CASE ${slot} ${whens.join(' ')} END)`;
}

/** Printable ASCII only: compared alike by the rules and by LIKE. */
const ASCII = /^[ -~]*$/;

function matchSql(rule: StockRule, key: KeySql): string {
  const ands: string[] = [];
  if (rule.kind !== undefined) ands.push(`${key.kind} = ${quote(rule.kind)}`);
  if (rule.dc !== undefined) ands.push(`${key.kind} = 'dc' AND ${key.dc} = ${quote(rule.dc)}`);
  if (rule.sku !== undefined)
    ands.push(`${key.sku} LIKE ${quote(likePattern(rule.sku))} ESCAPE '\\'`);
  return ands.length === 0 ? '1' : `(${ands.join(' AND ')})`;
}

/** offeredQuantity (domain/stockRules.ts) in integer SQL, packed with the slot. */
function effectSql(rule: StockRule, index: number, erp: string): string {
  const slot = index + 1;
  if (rule.exclude === true) return `${erp} * ${QUANTITY_UNIT} + ${EXCLUDED_BIT + slot}`;
  const afterBuffer = `MAX(0, ${erp} - ${int(rule.buffer ?? 0)})`;
  const percent = rule.percent ?? 100;
  const share = percent === 100 ? afterBuffer : `(${afterBuffer} * ${int(percent)} / 100)`;
  const offered = rule.max === undefined ? share : `MIN(${int(rule.max)}, ${share})`;
  return `${offered} * ${QUANTITY_UNIT} + ${slot}`;
}

/** A rule's whole number (the rules file allows no other), as SQL. */
function int(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a whole number: ${n}`);
  return String(n);
}

/** The glob as a LIKE pattern: `*` any run, `?` one character, `%`, `_` and `\` literal. */
function likePattern(glob: string): string {
  let out = '';
  for (const c of glob) {
    if (c === '*') out += '%';
    else if (c === '?') out += '_';
    else if (c === '%' || c === '_' || c === '\\') out += `\\${c}`;
    else out += c;
  }
  return out;
}

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;
