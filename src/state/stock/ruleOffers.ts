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
 * The re-evaluation as statements that each work a key's offer out once where they meet it: the
 * rules compiled to SQL where they can be (ruleSql.ts), else the function; a key's stored outcome
 * packed as its offer is, so that the two compare as integers. Those that need what a key was
 * run before the UPDATE changes it:
 *
 * - `clearFailures`: driven by stock_failures (few rows: CROSS JOIN keeps SQLite from scanning
 *   desired_stock instead), each failed key's offer worked out;
 * - `markPending`: a read of every key, making pending each one that is offered again or offers
 *   another quantity (counted: an upsert that leaves a key already pending as it was);
 * - `update`: the UPDATE of every key whose outcome differs (a plain UPDATE: SQLite changes each
 *   row where its scan finds it).
 *
 * Nothing is written down key by key on the side: a trigger or RETURNING makes SQLite collect the
 * keys first and look each one up again, and a temp table of the changed keys cost a quarter
 * million inserts; the exclusions' counts come from the index of excluded keys instead
 * (rederiveOffers).
 */
function rederiveSql(rules: readonly StockRule[]) {
  const key = (t: string) => ({
    kind: `${t}kind`,
    dc: `${t}dc`,
    sku: `${t}sku`,
    erp: `${t}erp_quantity`,
  });
  const call = (t: string) =>
    `CAST(stock_offer(${t}kind, ${t}dc, ${t}sku, ${t}erp_quantity) AS INTEGER)`;
  const offerOf = (t: string) => offerSql(rules, key(t), call(t)) ?? call(t);
  const compiled = offerSql(rules, key(''), call('')) !== null;
  // The labels as SQL with the rules: no call into JavaScript for each changed key.
  const label = (o: string) =>
    compiled ? slotLabelSql(rules, `${o} % ${SLOT_BITS}`) : labelSql(o);
  const stored = (t: string) =>
    `${t}quantity * ${QUANTITY_UNIT} + ${t}excluded * ${EXCLUDED_BIT} + ${storedSlotSql(rules, `${t}rule`)}`;
  const offered = (o: string) => `(${o} / ${EXCLUDED_BIT}) % 2 = 0`;
  return {
    clearFailures: `DELETE FROM stock_failures WHERE (kind, dc, sku) IN (
       SELECT kind, dc, sku FROM (
         SELECT f.kind, f.dc, f.sku, f.quantity AS failed, ${stored('d.')} AS was, ${offerOf('d.')} AS o
           FROM stock_failures f
          CROSS JOIN main.desired_stock d ON d.kind = f.kind AND d.dc = f.dc AND d.sku = f.sku
          WHERE d.erp_quantity IS NOT NULL LIMIT -1 OFFSET 0)
        WHERE o != was AND (NOT ${offered('o')} OR failed != o / ${QUANTITY_UNIT}))`,
    // The offer once per row, in a subquery SQLite does not flatten.
    markPending: `INSERT INTO pending_stock (kind, dc, sku, since)
       SELECT kind, dc, sku, @now
         FROM (SELECT kind, dc, sku, quantity, excluded, ${offerOf('')} AS o
                 FROM main.desired_stock WHERE erp_quantity IS NOT NULL LIMIT -1 OFFSET 0)
        WHERE ${offered('o')} AND (excluded = 1 OR o / ${QUANTITY_UNIT} != quantity)
       ON CONFLICT DO UPDATE SET since = pending_stock.since`,
    // The new values from one working-out of the offer (a subquery SQLite does not flatten).
    update: `UPDATE main.desired_stock
       SET (quantity, excluded, rule) = (
         SELECT o / ${QUANTITY_UNIT}, (o / ${EXCLUDED_BIT}) % 2, ${label('o')}
           FROM (SELECT ${offerOf('')} AS o LIMIT 1 OFFSET 0))
     WHERE erp_quantity IS NOT NULL AND ${offerOf('')} != ${stored('')}`,
  };
}

function build(db: StateDb) {
  ensureStockRuleFunctions(db);
  // The keys excluded before the pass (from the index of excluded keys: usually few).
  db.exec(
    'CREATE TEMP TABLE IF NOT EXISTS rederive_was_excluded (kind TEXT NOT NULL, dc TEXT NOT NULL, sku TEXT NOT NULL)',
  );
  return {
    clear: db.prepare('DELETE FROM temp.rederive_was_excluded'),
    keepExcluded: db.prepare(
      `INSERT INTO temp.rederive_was_excluded (kind, dc, sku)
       SELECT kind, dc, sku FROM main.desired_stock WHERE excluded = 1`,
    ),
    excluded: db
      .prepare<[], number>('SELECT COUNT(*) FROM main.desired_stock WHERE excluded = 1')
      .pluck(),
    pending: db.prepare<[], number>('SELECT COUNT(*) FROM pending_stock').pluck(),
    noLongerExcluded: db
      .prepare<[], number>(
        `SELECT COUNT(*) FROM temp.rederive_was_excluded w
           JOIN main.desired_stock d ON d.kind = w.kind AND d.dc = w.dc AND d.sku = w.sku
          WHERE d.excluded = 0`,
      )
      .pluck(),
    // An excluded key owes nothing: it is never pushed.
    settleExcluded: db.prepare(
      `DELETE FROM pending_stock WHERE (kind, dc, sku) IN (
         SELECT kind, dc, sku FROM main.desired_stock WHERE excluded = 1)`,
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
      const sql = rederiveSql(list);
      st.clear.run();
      const excludedBefore = st.keepExcluded.run().changes;
      const pendingBefore = st.pending.get()!;
      // What needs a key's outcome before the change, first.
      const failuresCleared = db.prepare(sql.clearFailures).run().changes;
      const offerChanged = db.prepare(sql.markPending).run({ now }).changes;
      const newlyPending = st.pending.get()! - pendingBefore;
      const changed = db.prepare(sql.update).run().changes;
      st.settleExcluded.run();
      const noLongerExcluded = st.noLongerExcluded.get()!;
      // Excluded now = excluded before − no longer + newly.
      const newlyExcluded = st.excluded.get()! - (excludedBefore - noLongerExcluded);
      st.clear.run();
      kv.set('stock_rules.fingerprint', fingerprint, now);
      return {
        changed,
        offerChanged,
        newlyPending,
        newlyExcluded,
        noLongerExcluded,
        failuresCleared,
        ran: true,
      };
    })
    .immediate();
}

/** Whether `db` evaluates any stock rule (false: every ERP quantity is offered as it is). */
export function hasStockRules(db: StateDb): boolean {
  return (registered.get(db)?.rules.count ?? 0) > 0;
}
