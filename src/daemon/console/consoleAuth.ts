import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import { ConfigError } from '../../config/configError.ts';
import { readSecretFile } from '../../config/secretFile.ts';
import type { Logger } from '../../log/logger.ts';
import { loginClient, type TrustedProxies, trustedProxies } from './loginClient.ts';

/**
 * Who may use the console (product contract, "Seeing and steering it without a shell"):
 * - `password`: CONSOLE_PASSWORD_FILE is set: every page and /api/ route asks for it; actions
 *   are POSTs carrying the session's CSRF token, from the console's own origin;
 * - `read-only`: no password file, and the server listens on loopback only: pages and /api/ are
 *   served, actions refused;
 * - `off`: no password file and a listener other hosts reach: the console is not served at all
 *   (/healthz and /metrics are).
 */
export type ConsoleMode = 'password' | 'read-only' | 'off';

/** 127.0.0.0/8, ::1 and `localhost`: an address only this machine reaches. */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

export function consoleMode(
  listenHost: string | undefined,
  password: string | undefined,
): ConsoleMode {
  if (password !== undefined) return 'password';
  return isLoopbackHost(listenHost) ? 'read-only' : 'off';
}

/** The console password: the file's content without its trailing newline (exit 78 when unusable). */
export function readConsolePassword(path: string): string {
  const password = readSecretFile('CONSOLE_PASSWORD_FILE', path);
  if (password.length < MIN_PASSWORD_LENGTH)
    throw new ConfigError(
      'CONSOLE_PASSWORD_FILE',
      `${path} holds ${password.trim() === '' ? 'no password' : 'a password shorter than 8 characters'}: the console needs at least ${MIN_PASSWORD_LENGTH}`,
    );
  if (password.length > 1024)
    throw new ConfigError('CONSOLE_PASSWORD_FILE', `${path} holds more than 1024 characters`);
  return password;
}

const MIN_PASSWORD_LENGTH = 8;
export const SESSION_COOKIE = 'supplier_sync_session';
/** A session ends after this long unused. */
const SESSION_IDLE_MS = 12 * 3_600_000;
/** And after this long in any case. */
const SESSION_MAX_MS = 7 * 24 * 3_600_000;
/** The most sessions kept; the least recently used goes first. */
const MAX_SESSIONS = 100;
/** One client's login attempts waiting their turn; more from it are answered 429 at once. */
const MAX_WAITING_LOGINS = 10;
/** Clients with attempts under way at once; attempts of a further one are answered 429. */
const MAX_CLIENTS_WAITING = 1000;
/** How long a wrong password holds its client's login lane. */
export const LOGIN_FAILURE_DELAY_MS = 1000;

export interface Session {
  readonly csrf: string;
  readonly createdAt: number;
  lastSeen: number;
  /** What the last action did, shown once on the next page. */
  flash?: { readonly text: string; readonly error: boolean } | undefined;
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Equal texts, compared in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Why a POST cannot be trusted to come from the console's own pages, or undefined when it can:
 * the browser's Sec-Fetch-Site must say same-origin and its Origin name this server (as the
 * browser reached it: Host, or X-Forwarded-Host behind a proxy), where the browser sends them.
 * The CSRF token is checked apart (checkPost).
 */
export function crossOriginReason(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `Sec-Fetch-Site is ${site}`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  const forwarded = req.headers['x-forwarded-host'];
  const host =
    (typeof forwarded === 'string' ? forwarded.split(',')[0]!.trim() : undefined) ??
    req.headers.host;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return `Origin ${origin} is not a URL`;
  }
  return host !== undefined && originHost === host.toLowerCase()
    ? undefined
    : `Origin ${origin} is not this console`;
}

export interface AuthDeps {
  readonly password: string;
  readonly now: () => number;
  readonly log: Logger;
  /** The metrics' registry: wrong passwords are counted there. */
  readonly registry?: Registry | undefined;
  readonly failureDelayMs?: number;
  /** CONSOLE_TRUSTED_PROXIES: whose X-Forwarded-For names the client (loginClient.ts). */
  readonly trustedProxies?: readonly string[] | undefined;
}

/** One client's attempts, checked one after the other. */
interface Lane {
  tail: Promise<unknown>;
  waiting: number;
}

export type LoginResult =
  | { readonly ok: true; readonly cookie: string }
  | { readonly ok: false; readonly status: 401 | 429 };

/** Password sessions: in memory (a restart asks for the password again). */
export class ConsoleAuth {
  readonly #deps: AuthDeps;
  /** By the sha256 of the session's cookie value: the value itself is kept nowhere. */
  readonly #sessions = new Map<string, Session>();
  readonly #failures: Counter | undefined;
  readonly #trusted: TrustedProxies;
  /** By client (loginClient.ts), while it has attempts under way. */
  readonly #lanes = new Map<string, Lane>();

  constructor(deps: AuthDeps) {
    this.#deps = deps;
    this.#trusted = trustedProxies(deps.trustedProxies ?? []);
    this.#failures = deps.registry
      ? new Counter({
          name: 'supplier_sync_console_login_failures_total',
          help: "Wrong passwords given to the console (each answered after a delay, one client's attempts one at a time).",
          registers: [deps.registry],
        })
      : undefined;
  }

  /** The session a request's cookie names, while it is valid (its use is noted). */
  sessionOf(req: IncomingMessage): Session | undefined {
    const value = cookieOf(req, SESSION_COOKIE);
    if (value === undefined || !/^[A-Za-z0-9_-]{43}$/.test(value)) return undefined;
    const id = digest(value).toString('hex');
    const s = this.#sessions.get(id);
    if (s === undefined) return undefined;
    const now = this.#deps.now();
    if (now - s.lastSeen > SESSION_IDLE_MS || now - s.createdAt > SESSION_MAX_MS) {
      this.#sessions.delete(id);
      return undefined;
    }
    s.lastSeen = now;
    // Most recently used last: the first is the one to drop when full.
    this.#sessions.delete(id);
    this.#sessions.set(id, s);
    return s;
  }

  /**
   * Checks a password; a right one opens a session (its Set-Cookie returned). Each client's
   * attempts are taken one at a time (loginClient.ts says who a client is); a wrong one is logged,
   * counted and answered after a delay during which no other attempt of that client is checked,
   * so that guessing costs a client at least a second a try however many it sends at once, while
   * another client's password is checked at once.
   */
  async login(req: IncomingMessage, given: string): Promise<LoginResult> {
    const checked = await this.#check(req, given, 'login');
    if (checked !== 'ok') return { ok: false, status: checked };
    this.#deps.log.info(
      { event: 'console.login', remote: req.socket.remoteAddress },
      'console login',
    );
    return { ok: true, cookie: this.#newSession(req) };
  }

  /**
   * HTTP Basic credentials (any user name, the console password) on a GET of /api/, for scripts:
   * undefined without an Authorization header, else whether they are right (checked as a login).
   */
  async basic(req: IncomingMessage): Promise<200 | 401 | 429 | undefined> {
    const header = req.headers.authorization;
    if (header === undefined || !/^basic /i.test(header)) return undefined;
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const checked = await this.#check(req, decoded.slice(decoded.indexOf(':') + 1), 'api');
    return checked === 'ok' ? 200 : checked;
  }

  #check(req: IncomingMessage, given: string, via: 'login' | 'api'): Promise<'ok' | 401 | 429> {
    const remote = req.socket.remoteAddress;
    const client = loginClient(remote, req.headers['x-forwarded-for'], this.#trusted);
    const lane = this.#lanes.get(client);
    const refuse = (why: string) => {
      this.#deps.log.warn(
        { event: 'console.login_throttled', remote, client, via, reason: why },
        `console login refused: ${why}`,
      );
      return Promise.resolve(429 as const);
    };
    if (lane === undefined && this.#lanes.size >= MAX_CLIENTS_WAITING)
      return refuse(`${MAX_CLIENTS_WAITING} clients are logging in at once`);
    if (lane !== undefined && lane.waiting >= MAX_WAITING_LOGINS)
      return refuse(`${MAX_WAITING_LOGINS} attempts of this client wait already`);
    const own: Lane = lane ?? { tail: Promise.resolve(), waiting: 0 };
    if (lane === undefined) this.#lanes.set(client, own);
    own.waiting++;
    const attempt = own.tail.then(async (): Promise<'ok' | 401> => {
      if (sameSecret(given, this.#deps.password)) return 'ok';
      this.#failures?.inc();
      this.#deps.log.warn(
        {
          event: 'console.login_failed',
          remote,
          client,
          userAgent: req.headers['user-agent'],
          via,
        },
        'wrong console password',
      );
      await new Promise((r) => setTimeout(r, this.#deps.failureDelayMs ?? LOGIN_FAILURE_DELAY_MS));
      return 401;
    });
    own.tail = attempt.finally(() => {
      own.waiting--;
      if (own.waiting === 0) this.#lanes.delete(client);
    });
    return attempt;
  }

  /** Ends the request's session; the Set-Cookie that clears it. */
  logout(req: IncomingMessage): string {
    const value = cookieOf(req, SESSION_COOKIE);
    if (value !== undefined) this.#sessions.delete(digest(value).toString('hex'));
    return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
  }

  /**
   * Why a POST of this session is refused (another origin, a missing or wrong CSRF token), or
   * undefined when it may act.
   */
  checkPost(req: IncomingMessage, session: Session, csrf: string | undefined): string | undefined {
    const cross = crossOriginReason(req);
    if (cross !== undefined) return cross;
    if (csrf === undefined || !sameSecret(csrf, session.csrf)) return 'no valid CSRF token';
    return undefined;
  }

  #newSession(req: IncomingMessage): string {
    while (this.#sessions.size >= MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    const value = randomBytes(32).toString('base64url');
    const now = this.#deps.now();
    this.#sessions.set(digest(value).toString('hex'), {
      csrf: randomBytes(32).toString('base64url'),
      createdAt: now,
      lastSeen: now,
    });
    const secure = req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MAX_MS / 1000}${secure}`;
  }
}
