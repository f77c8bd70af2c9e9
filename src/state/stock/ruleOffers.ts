import {
  type CompiledStockRules,
  compileStockRules,
  offeredQuantity,
  rulesFingerprint,
  type StockRule,
} from '../../domain/stockRules.ts';
import { perConnection, type StateDb } from '../db.ts';
import { KeyValueStore } from '../kv.ts';
import {
  EXCLUDED_BIT,
  offerSql,
  QUANTITY_UNIT,
  SLOT_BITS,
  slotLabelSql,
  storedSlotSql,
} from './ruleSql.ts';

/**
 * Stock rules inside SQLite: the pure evaluation (src/domain/stockRules.ts) registered as SQL
 * functions on a connection, so that applying a file and working every key out again are
 * set-based statements, not a JavaScript loop over rows:
 *
 * - `stock_offer(kind, dc, sku, erp_quantity)`: what the rules make of a key, packed into one
 *   integer (one call per row): offered quantity × 2^17 + excluded × 2^16 + rule slot (the rule's
 *   index + 1; 0: none matched). For an excluded key the offered part is the ERP's quantity.
 * - `stock_rule_label(slot)`: the label of the rule in that slot (desired_stock.rule); NULL for 0.
 *
 * `offerSelect` unpacks it in a subquery that SQLite does not flatten (its OFFSET), so the
 * function runs once per row, not once per column that uses it.
 *
 * A connection that never had rules set evaluates none (everything offered as is). The rules of a
 * connection change with `setStockRules`; statements prepared earlier see the new ones.
 */
interface Registered {
  rules: CompiledStockRules;
  fingerprint: string;
  /** The rules as given (compiled to SQL by ruleSql.ts for a pass over every key). */
  list: readonly StockRule[];
}

const registered = new WeakMap<StateDb, Registered>();

const NONE = {
  rules: compileStockRules([]),
  fingerprint: rulesFingerprint([]),
  list: [] as readonly StockRule[],
};

/** Rules a file may hold: the rule slot is 16 bits of the packed offer. */
export const MAX_STOCK_RULES = 65_534;

/**
 * A SELECT of `columns` (`from`'s columns, `expr AS name` allowed) and, for each row, `quantity`
 * (offered), `excluded` (0 or 1) and `rule` (label or NULL) under the connection's stock rules.
 * `kind`, `dc`, `sku` and `erp` are SQL expressions over `from` (or parameters). For any set of
 * rows the apply or a check reads (a staged file's rows, desired_stock).
 */
export function offerSelect(
  from: string,
  columns: readonly string[],
  key: { kind: string; dc: string; sku: string; erp: string },
  where = '',
): string {
  const cols = columns.join(', ');
  const names = columns.map((c) => c.split(/\s+AS\s+/i).at(-1)).join(', ');
  // The label function only for rows a rule matched: most rows match none.
  return `SELECT ${names}, offer / ${QUANTITY_UNIT} AS quantity, (offer / ${EXCLUDED_BIT}) % 2 AS excluded,
           ${labelSql('offer')} AS rule
      FROM (SELECT ${cols}, CAST(stock_offer(${key.kind}, ${key.dc}, ${key.sku}, ${key.erp}) AS INTEGER) AS offer
              FROM ${from} ${where} LIMIT -1 OFFSET 0)`;
}

/** The rule label (NULL: none) of a packed offer, calling the label function only for a rule's. */
const labelSql = (offer: string) =>
  `CASE WHEN ${offer} % ${SLOT_BITS} = 0 THEN NULL ELSE stock_rule_label(${offer} % ${SLOT_BITS}) END`;

/** Registers the rule functions on `db` (once; no rules until setStockRules). */
export function ensureStockRuleFunctions(db: StateDb): void {
  if (registered.has(db)) return;
  const state: Registered = { ...NONE };
  registered.set(db, state);
  db.function(
    'stock_offer',
    { varargs: false },
    (kind: unknown, dc: unknown, sku: unknown, quantity: unknown) => {
      const q = Number(quantity);
      const index = state.rules.match(kind as 'factory' | 'dc', dc as string, sku as string);
      const rule = index < 0 ? undefined : state.rules.rule(index);
      if (rule === undefined) return q * QUANTITY_UNIT;
      if (rule.exclude === true) return q * QUANTITY_UNIT + EXCLUDED_BIT + index + 1;
      return offeredQuantity(rule, q) * QUANTITY_UNIT + index + 1;
    },
  );
  db.function('stock_rule_label', (slot: unknown) => {
    const n = Number(slot);
    return n === 0 ? null : state.rules.label(n - 1);
  });
}

/** The rules `db`'s statements evaluate from now on. */
export function setStockRules(db: StateDb, rules: readonly StockRule[]): void {
  if (rules.length > MAX_STOCK_RULES) throw new RangeError(`more than ${MAX_STOCK_RULES} rules`);
  ensureStockRuleFunctions(db);
  const state = registered.get(db)!;
  state.rules = compileStockRules(rules);
  state.fingerprint = rulesFingerprint(rules);
  state.list = [...rules];
}

export interface RederiveResult {
  /** Keys whose offered quantity, rule or exclusion changed. */
  readonly changed: number;
  /** Keys whose offered quantity changed (or that are offered again after an exclusion). */
  readonly offerChanged: number;
  /** Of those, keys newly made pending (the rest were pending already). */
  readonly newlyPending: number;
  readonly newlyExcluded: number;
  readonly noLongerExcluded: number;
  /** Stored failures dropped: their key is excluded now, or offers another quantity. */
  readonly failuresCleared: number;
  /** Whether the pass ran (false: desired_stock was worked out with these rules already). */
  readonly ran: boolean;
}

/**
 * The re-evaluation in two passes over desired_stock, each in key order and each working out
 * every key's offer once: the rules compiled to SQL where they can be (ruleSql.ts), else the
 * function; a key's stored outcome packed as its offer is, so that the two compare as integers.
 *
 * - `capture`: a read of every key, writing down each one whose outcome differs, with what it
 *   was, into temp.rederived_keys (appended in key order: no index to keep up);
 * - `update`: the UPDATE of the same keys (found by the same comparison, so the same keys).
 *
 * Two passes cost less than one UPDATE with a trigger writing the keys down: with a trigger (as
 * with a RETURNING clause) SQLite first collects the keys to change, then looks each one up again
 * to change it, where a plain UPDATE changes each row where its scan finds it. Looking the
 * written-down keys up (UPDATE … FROM, or … IN) costs more than working every offer out again.
 * On a million keys of which a quarter change (bench/peaks.ts) this takes about a fifth less time
 * than the trigger did.
 */
function rederiveSql(rules: readonly StockRule[]): { capture: string; update: string } {
  const call = 'CAST(stock_offer(kind, dc, sku, erp_quantity) AS INTEGER)';
  const compiled = offerSql(
    rules,
    { kind: 'kind', dc: 'dc', sku: 'sku', erp: 'erp_quantity' },
    call,
  );
  const offer = compiled ?? call;
  // The labels as SQL with the rules: no call into JavaScript for each changed key.
  const label = (o: string) =>
    compiled === null ? labelSql(o) : slotLabelSql(rules, `${o} % ${SLOT_BITS}`);
  const stored = `quantity * ${QUANTITY_UNIT} + excluded * ${EXCLUDED_BIT} + ${storedSlotSql(rules, 'rule')}`;
  return {
    // The offer once per row, in a subquery SQLite does not flatten.
    capture: `INSERT INTO temp.rederived_keys (kind, dc, sku, quantity, excluded, was_quantity, was_excluded)
       SELECT kind, dc, sku, o / ${QUANTITY_UNIT}, (o / ${EXCLUDED_BIT}) % 2, quantity, excluded
         FROM (SELECT kind, dc, sku, quantity, excluded, rule, ${offer} AS o
                 FROM main.desired_stock WHERE erp_quantity IS NOT NULL LIMIT -1 OFFSET 0)
        WHERE o != ${stored}`,
    // The new values from one working-out of the offer (a subquery SQLite does not flatten).
    update: `UPDATE main.desired_stock
       SET (quantity, excluded, rule) = (
         SELECT o / ${QUANTITY_UNIT}, (o / ${EXCLUDED_BIT}) % 2, ${label('o')}
           FROM (SELECT ${offer} AS o LIMIT 1 OFFSET 0))
     WHERE erp_quantity IS NOT NULL AND ${offer} != ${stored}`,
  };
}

function build(db: StateDb) {
  ensureStockRuleFunctions(db);
  // Filled by the capture (rederiveSql), then read whole: no key index to keep up.
  db.exec(
    `CREATE TEMP TABLE IF NOT EXISTS rederived_keys (
       kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL,
       quantity INTEGER NOT NULL, excluded INTEGER NOT NULL,
       was_quantity INTEGER NOT NULL, was_excluded INTEGER NOT NULL)`,
  );
  return {
    clear: db.prepare('DELETE FROM temp.rederived_keys'),
    counts: db.prepare<
      [],
      { offer: number | null; excluded: number | null; included: number | null }
    >(
      `SELECT SUM(excluded = 0 AND (was_excluded = 1 OR quantity != was_quantity)) AS offer,
              SUM(excluded = 1 AND was_excluded = 0) AS excluded,
              SUM(excluded = 0 AND was_excluded = 1) AS included
         FROM temp.rederived_keys`,
    ),
    markPending: db.prepare<[number]>(
      `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, ? FROM temp.rederived_keys
        WHERE excluded = 0 AND (was_excluded = 1 OR quantity != was_quantity)
       ON CONFLICT DO NOTHING`,
    ),
    // An excluded key owes nothing: it is never pushed.
    settleExcluded: db.prepare(
      `DELETE FROM pending_stock WHERE (kind, dc, sku) IN (
         SELECT kind, dc, sku FROM temp.rederived_keys WHERE excluded = 1)`,
    ),
    clearFailures: db.prepare(
      `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
         SELECT r.kind, r.dc, r.sku FROM temp.rederived_keys r
           JOIN stock_failures f ON f.kind = r.kind AND f.dc = r.dc AND f.sku = r.sku
          WHERE r.excluded = 1 OR f.quantity != r.quantity)`,
    ),
  };
}

const statements = perConnection(build);

/**
 * Works every key's offered quantity out again with the connection's rules, in one transaction
 * of set-based statements, when they are not the rules desired_stock was last worked out with
 * (`force`: regardless). Only keys whose offered quantity changed (or that are offered again)
 * are made pending; keys now excluded stop being pending and lose their stored failure (what
 * the portal holds for them is left as it is); a failure of a key that now offers another
 * quantity is replaced by it, as when a file brings a new quantity.
 */
export function rederiveOffers(
  db: StateDb,
  now: number,
  options: { force?: boolean } = {},
): RederiveResult {
  ensureStockRuleFunctions(db);
  const { fingerprint, list } = registered.get(db)!;
  const st = statements(db);
  const kv = new KeyValueStore(db);
  return db
    .transaction((): RederiveResult => {
      const stored = kv.get('stock_rules.fingerprint') ?? NONE.fingerprint;
      if (stored === fingerprint && options.force !== true) {
        return {
          changed: 0,
          offerChanged: 0,
          newlyPending: 0,
          newlyExcluded: 0,
          noLongerExcluded: 0,
          failuresCleared: 0,
          ran: false,
        };
      }
      st.clear.run();
      const sql = rederiveSql(list);
      const changed = db.prepare(sql.capture).run().changes;
      // The same comparison in the same transaction: it changes the keys just written down.
      if (changed > 0) db.prepare(sql.update).run();
      const counts = st.counts.get();
      const failuresCleared = st.clearFailures.run().changes;
      const newlyPending = st.markPending.run(now).changes;
      st.settleExcluded.run();
      st.clear.run();
      kv.set('stock_rules.fingerprint', fingerprint, now);
      return {
        changed,
        offerChanged: counts?.offer ?? 0,
        newlyPending,
        newlyExcluded: counts?.excluded ?? 0,
        noLongerExcluded: counts?.included ?? 0,
        failuresCleared,
        ran: true,
      };
    })
    .immediate();
}

/** The fingerprint of the rules `db` evaluates now (see rulesFingerprint). */
export function currentRulesFingerprint(db: StateDb): string {
  return registered.get(db)?.fingerprint ?? NONE.fingerprint;
}

/** Whether `db` evaluates any stock rule (false: every ERP quantity is offered as it is). */
export function hasStockRules(db: StateDb): boolean {
  return (registered.get(db)?.rules.count ?? 0) > 0;
}
