import { FOREIGN_LOGIN_REPEATS } from '../api/index.ts';
import { diskFullReason } from '../domain/diskState.ts';
import { span } from '../domain/humanTime.ts';
import type { StateDb } from '../state/db.ts';
import { heartbeatProblem } from './heartbeat.ts';
import { type LiveFacts, readStatus, type Status, type StatusSettings } from './status.ts';

/** How the daemon is doing, in one word an operator acts on. */
export type Verdict = 'healthy' | 'degraded' | 'needs a person';

export interface Assessment {
  readonly verdict: Verdict;
  /** Why, most pressing first; empty when healthy. */
  readonly reasons: readonly Reason[];
}

/**
 * What a reason is about: the list an operator looks at next (held files, failures, files,
 * shipments), or what ends it (resuming pushes, new credentials). Each view says it its own way:
 * the terminal names the command (reasonText), the console links its page.
 */

export type ReasonAbout =
  | 'held'
  | 'failures'
  | 'files'
  | 'shipments'
  | 'products'
  | 'pause'
  | 'credentials';

/** One reason of a verdict: what is wrong, the things it names, what it is about. */
export interface Reason {
  /** What is wrong, without where to look. */
  readonly text: string;
  /** The things it names (a file by its ledger id), after the text; `more` not named. */
  readonly items?: ReadonlyArray<{ readonly text: string; readonly fileId?: number }>;
  readonly more?: number;
  readonly about?: ReasonAbout;
}

/** What the terminal adds to a reason about each: the command to run. */
const IN_TERMINAL: Readonly<Record<ReasonAbout, string | undefined>> = {
  held: 'see `supplier-sync held`, then release or reject',
  failures: 'see `supplier-sync failures`',
  files: 'see `supplier-sync files`',
  shipments: undefined,
  products: 'see `supplier-sync products --status declined`',
  pause: 'nothing is written to the portal until `supplier-sync resume`',
  credentials:
    'fix SUPPLIER_EMAIL / SUPPLIER_PASSWORD, then run `supplier-sync api login-block clear`',
};

/** A reason in the words of `status` (and of `status --json`, the API and the notifications). */
export function reasonText(r: Reason): string {
  const items =
    r.items === undefined
      ? ''
      : `: ${r.items.map((i) => i.text).join('; ')}${r.more ? `, and ${r.more} more` : ''}`;
  const where = r.about === undefined ? undefined : IN_TERMINAL[r.about];
  return `${r.text}${items}${where === undefined ? '' : `: ${where}`}`;
}

/** An apply unfinished longer than this is no merge in progress but one a writer left. */
const APPLY_STUCK_MS = 60_000;

const iso = (t: number | null) => (t === null ? 'never' : new Date(t).toISOString());

/** A reason cut to what one line of a verdict holds. */
const short = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** What the assessment reads: the status, and whether Redis answered. */
export interface AssessInput {
  readonly status: Status;
  /** Redis did not answer (queue depths unknown); undefined when not asked. */
  readonly redisError?: string | undefined;
}

/**
 * Pure: the verdict and its reasons. "Needs a person" is what the daemon cannot mend by waiting
 * (a full disk, it is not running, the portal refused the credentials, confirmations were refused
 * for good or conflict); "degraded" is what it retries on its own but an operator should know (Redis away, a
 * stale sync, rejected stock items, a spent budget, a product the platform declined).
 */
export function assess({ status: s, redisError }: AssessInput): Assessment {
  const person: Reason[] = [];
  const degraded: Reason[] = [];
  const say = (text: string, about?: ReasonAbout): Reason =>
    about === undefined ? { text } : { text, about };
  if (s.disk?.full) person.push(say(diskFullReason(s.disk)));
  const beat = s.daemon === null ? undefined : heartbeatProblem(s.daemon.at, s.at);
  if (s.daemon === null) person.push(say('the daemon has not run on this data dir (no heartbeat)'));
  else if (beat !== undefined) person.push(say(`the daemon is not running (${beat})`));
  if (s.loginBlock !== null) person.push(say('the portal refused the credentials', 'credentials'));
  const overdue = s.shipments.overdue ?? [];
  if (overdue.length > 0)
    person.push(
      say(
        `${overdue.length} shipment(s) handed to the ERP today are not confirmed by ${s.shipments.deadline}: ${overdue.slice(0, 5).join(', ')}${overdue.length > 5 ? ', …' : ''}`,
        'shipments',
      ),
    );
  const held = s.held.files + s.held.snapshots;
  if (held > 0)
    person.push(
      say(
        `the guard rails hold ${s.held.files} stock file(s) and ${s.held.snapshots} snapshot read(s)`,
        'held',
      ),
    );
  const c = s.failures.confirmations;
  if (c.failed + c.conflicts > 0)
    person.push(
      say(`${c.failed + c.conflicts} shipment confirmation(s) refused or in conflict`, 'failures'),
    );

  if (redisError !== undefined) degraded.push(say(`Redis does not answer (${redisError})`));
  const polls = s.polls;
  if (polls.overdue)
    degraded.push(
      say(
        `shipment polls are overdue: the schedule ${polls.schedule} (SHIPMENTS_POLL_CRON \`${polls.expression}\`) last ran ${
          polls.datedAhead
            ? `at ${iso(polls.lastAt)}, dated ahead of this clock, which went back since`
            : `${span(s.at - polls.lastAt!)} ago (${iso(polls.lastAt)}), more than two intervals late`
        }`,
        'shipments',
      ),
    );
  const stuck = s.unfinishedApplies.filter((a) => s.at - a.decidedAt > APPLY_STUCK_MS);
  if (stuck.length > 0)
    degraded.push(
      say(
        `an apply of ${stuck[0]!.source}${stuck[0]!.heldId === null ? '' : ` (release of held ${stuck[0]!.heldId})`} is unfinished (${stuck[0]!.keysMerged} keys merged): the daemon finishes it at its start and within a minute while it runs`,
      ),
    );
  if (s.paused !== null)
    degraded.push(
      say(`pushes are paused${s.paused.reason ? ` (${short(s.paused.reason)})` : ''}`, 'pause'),
    );
  if (s.stale) degraded.push(say('stock differences are pending with no successful push for long'));
  const pending = s.pendingDifferences.factory + s.pendingDifferences.dc;
  const stockStarved = s.budget.starved.find((l) => l.lane === 'stock');
  if (pending > 0 && (stockStarved || s.budget.remainingByLane.stock === 0))
    degraded.push(
      say(
        `the call budget of stock pushes is spent for now${stockStarved ? `: ${stockStarved.reason}` : ''}`,
      ),
    );
  if (s.foreignLogins.lastHour >= FOREIGN_LOGIN_REPEATS)
    degraded.push(
      say(
        `the portal invalidated our token ${s.foreignLogins.lastHour} times in the last hour: another client is logging in with this account`,
      ),
    );
  const files = s.files;
  if (files.problemCount > 0) {
    const items = files.problems.slice(0, 3).map((f) => ({
      text:
        f.outcome === 'failed'
          ? `${f.name} failed${f.reason ? ` (${short(f.reason)})` : ''}`
          : `${f.name}: ${f.rowsRejected} of ${f.rowsRead} row(s) rejected`,
      fileId: f.id,
    }));
    degraded.push({
      text: `${files.problemCount} file(s) in the last 24 h failed or had rejected rows`,
      items,
      ...(files.problemCount > items.length ? { more: files.problemCount - items.length } : {}),
      about: 'files',
    });
  }
  const declined = s.products.declined;
  if (declined.count > 0) {
    const items = declined.recent
      .slice(0, 3)
      .map((p) => ({ text: `${p.sku}${p.reason ? ` (${short(p.reason)})` : ''}` }));
    degraded.push({
      text: `${declined.count} product(s) the daemon created were declined by the platform's review in the last 7 days`,
      items,
      ...(declined.count > items.length ? { more: declined.count - items.length } : {}),
      about: 'products',
    });
  }
  if (s.failures.stock.total > 0)
    degraded.push(
      say(
        `${s.failures.stock.total} stock item(s) rejected by the portal, retried with back-off`,
        'failures',
      ),
    );

  if (person.length > 0) return { verdict: 'needs a person', reasons: [...person, ...degraded] };
  if (degraded.length > 0) return { verdict: 'degraded', reasons: degraded };
  return { verdict: 'healthy', reasons: [] };
}

/**
 * The verdict the running daemon gives of itself (for the notification of a turn to NEEDS A
 * PERSON), its reasons in the words of `status`: its own heartbeat is taken as fresh — a clock
 * moved on in a test, or a slow beat, must not read as "not running" to the daemon that tells.
 */
export function ownVerdict(
  db: StateDb,
  config: StatusSettings,
  now: number,
  live?: LiveFacts,
): { readonly verdict: Verdict; readonly reasons: readonly string[] } {
  const s = readStatus(db, config, now, live);
  const daemon = { ...(s.daemon ?? { pid: process.pid, startedAt: now }), at: now };
  const a = assess({ status: { ...s, daemon } });
  return { verdict: a.verdict, reasons: a.reasons.map(reasonText) };
}
