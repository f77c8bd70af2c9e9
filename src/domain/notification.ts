import type { DiskState } from './diskState.ts';

/**
 * What a webhook is told (product contract, "Notifications"): one event, when it happened, one
 * human sentence (`text`, shown as it is by a chat tool's incoming webhook: names in it are
 * quoted by chatText.ts so that none is read as a mention or a link) and the details.
 * Pure builders, one per event kind; the outbox (state/notify/) stores them, notifications/
 * delivers them.
 */

import { chatName, chatProse } from './chatText.ts';

/** The event kinds sent; delivery keeps the order within each. */
export const NOTIFY_EVENTS = [
  'file.failed',
  'file.held',
  'file.rows_rejected',
  'shipments.overdue',
  'status.verdict',
  'api.foreign_login',
  'rules.invalid',
  'profiles.invalid',
  'product.declined',
] as const;

export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export interface Notification {
  readonly event: NotifyEvent;
  /** When the fact happened (epoch ms). */
  readonly at: number;
  /** One sentence for a person. */
  readonly text: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** Most order numbers named in one notification; the rest are counted. */
const ORDERS_SENT = 100;

/** How an inbox file ended, as the file pipeline knows it. */
export interface FileEnd {
  readonly file: string;
  readonly storedAs: string | null;
  readonly ledgerId: number;
  readonly outcome: 'processed' | 'failed' | 'held' | 'duplicate';
  readonly kind: string | null;
  readonly rowsRead: number;
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly reason?: string | undefined;
  /** Held files: the id to release or reject, and which rails tripped. */
  readonly heldId?: number | undefined;
  readonly tripped?: readonly string[] | undefined;
  /** Where the file's report is (under the data dir). */
  readonly report: string;
}

/**
 * A failed file, a held file, or a file processed with rejected rows; undefined for a file
 * that went well (or a duplicate).
 */
export function fileNotification(f: FileEnd, at: number): Notification | undefined {
  const details = {
    file: f.file,
    storedAs: f.storedAs,
    ledgerId: f.ledgerId,
    outcome: f.outcome,
    kind: f.kind,
    rowsRead: f.rowsRead,
    rowsAccepted: f.rowsAccepted,
    rowsRejected: f.rowsRejected,
    report: f.report,
  };
  if (f.outcome === 'failed') {
    return {
      event: 'file.failed',
      at,
      text: `Inbox file ${chatName(f.file)} failed: ${chatProse(f.reason ?? 'see its report')}. Nothing of it was applied.`,
      details: { ...details, reason: f.reason ?? null },
    };
  }
  if (f.outcome === 'held') {
    const id = f.heldId ?? null;
    return {
      event: 'file.held',
      at,
      text: `Inbox file ${chatName(f.file)} is held by the guard rails${f.reason ? ` (${chatProse(f.reason)})` : ''}: release ${id} or reject ${id}.`,
      details: { ...details, heldId: id, reason: f.reason ?? null, tripped: f.tripped ?? [] },
    };
  }
  if (f.outcome === 'processed' && f.rowsRejected > 0) {
    return {
      event: 'file.rows_rejected',
      at,
      text: `Inbox file ${chatName(f.file)} was processed with ${f.rowsRejected} of ${f.rowsRead} row(s) rejected; see its report.`,
      details,
    };
  }
  return undefined;
}

/** Shipments handed to the ERP today and unconfirmed at SHIPMENTS_DEADLINE. */
export function overdueNotification(
  orders: readonly string[],
  deadline: string,
  at: number,
): Notification {
  const named = orders.slice(0, 10).map(chatName).join(', ');
  return {
    event: 'shipments.overdue',
    at,
    text: `${orders.length} shipment(s) handed to the ERP today are not confirmed by ${deadline}: ${named}${orders.length > 10 ? ', …' : ''}.`,
    details: {
      deadline,
      count: orders.length,
      orders: orders.slice(0, ORDERS_SENT),
      ordersOmitted: Math.max(0, orders.length - ORDERS_SENT),
    },
  };
}

/** The status verdict turned to "needs a person" (`needsPerson`), or away from it. */
export function verdictNotification(
  needsPerson: boolean,
  verdict: string,
  reasons: readonly string[],
  at: number,
): Notification {
  return {
    event: 'status.verdict',
    at,
    text: needsPerson
      ? `supplier-sync NEEDS A PERSON: ${chatProse(reasons[0] ?? 'see status')}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ''}.`
      : `supplier-sync no longer needs a person: it is ${verdict} now.`,
    details: { verdict, needsPerson, reasons: reasons.slice(0, 10) },
  };
}

/**
 * The disk holding the data dir or state.db is full: the verdict's turn to NEEDS A PERSON, told
 * at once and outside the outbox (which lives in state.db), with the disk in the details.
 */
export function diskFullNotification(
  disk: DiskState,
  reasons: readonly string[],
  at: number,
): Notification {
  const told = verdictNotification(true, 'needs a person', reasons, at);
  return {
    ...told,
    details: {
      ...told.details,
      disk: {
        path: disk.path,
        freeBytes: disk.freeBytes,
        full: disk.full,
        since: disk.since === null ? null : new Date(disk.since).toISOString(),
      },
    },
  };
}

/** The portal keeps invalidating the token: another client logs in with the account. */
export function foreignLoginNotification(
  count: number,
  account: string,
  loginsPerHour: number,
  at: number,
): Notification {
  return {
    event: 'api.foreign_login',
    at,
    text: `The portal invalidated our token ${count} times in the last hour: another client is logging in as ${chatName(account)} (each costs a login, at most ${loginsPerHour} an hour).`,
    details: { count, windowMs: 3_600_000, account, loginsPerHour },
  };
}

/** An edit of a watched settings file (STOCK_RULES_FILE, INBOX_PROFILES_FILE) that is invalid. */
export function settingsFileNotification(
  name: 'rules' | 'profiles',
  file: string,
  problem: string,
  at: number,
): Notification {
  const setting = name === 'rules' ? 'STOCK_RULES_FILE' : 'INBOX_PROFILES_FILE';
  const what = name === 'rules' ? 'stock rules' : 'inbox profiles';
  return {
    event: name === 'rules' ? 'rules.invalid' : 'profiles.invalid',
    at,
    text: `${setting} ${chatName(file)} was edited and is invalid (${chatProse(problem)}); the last good ${what} stay in force.`,
    details: { setting, file, problem },
  };
}

/** A product the daemon created, declined by the platform's review. */
export interface DeclinedProductFacts {
  readonly sku: string;
  readonly platformSku: string | null;
  readonly name: string | null;
  readonly reason: string | null;
  /** The original name of the inbox file that created it; null when not known. */
  readonly createdBy: string | null;
  readonly createdAt: number | null;
  /** The `outbox/` file that carries it to the ERP. */
  readonly outboxFile: string | null;
}

/** The platform's review declined a product the daemon created (written with the decision). */
export function declinedNotification(p: DeclinedProductFacts, at: number): Notification {
  const from = p.createdBy === null ? '' : ` (created from ${chatName(p.createdBy)})`;
  return {
    event: 'product.declined',
    at,
    text: `The platform declined product ${chatName(p.sku)}${from}: ${chatProse(p.reason ?? 'no reason given')}.`,
    details: {
      sku: p.sku,
      platformSku: p.platformSku,
      name: p.name,
      reason: p.reason,
      createdBy: p.createdBy,
      createdAt: p.createdAt === null ? null : new Date(p.createdAt).toISOString(),
      outboxFile: p.outboxFile,
    },
  };
}
