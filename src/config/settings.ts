import { z } from 'zod';
import { notifySettings } from './notifySettings.ts';
import { productSettings } from './productSettings.ts';
import {
  addressList,
  apiUrl,
  bool,
  cron,
  int,
  level,
  listenHost,
  ms,
  optional,
  queuePrefix,
  redisUrl,
  reserve,
  type Setting,
  setting,
  text,
  timezone,
} from './settingTypes.ts';

/**
 * Every setting of the daemon, in one table: its name (the environment variable, the key in a
 * JSON config file, and, in kebab case, the command-line flag), how it is checked, its default,
 * and what it means. The loader, `config/default.json` and the settings table of docs/configuration.md all come from here.
 */
export const settings = {
  apiUrl: optional(
    'SUPPLIER_API_URL',
    apiUrl,
    'Base URL of the portal API, ending with /api/v1. Required for run and api.',
  ),
  apiInsecure: setting(
    'SUPPLIER_API_INSECURE',
    bool,
    false,
    'Allow a plain http:// SUPPLIER_API_URL for a host that is not loopback (the password and token then cross the network unencrypted). Without it such a URL is refused at start.',
  ),
  email: optional('SUPPLIER_EMAIL', text, 'Portal login e-mail. Required for run and api.'),
  password: optional(
    'SUPPLIER_PASSWORD',
    text,
    'Portal password. Prefer SUPPLIER_PASSWORD_FILE in containers.',
    true,
  ),
  passwordFile: optional(
    'SUPPLIER_PASSWORD_FILE',
    text,
    'File holding the portal password (container secret); trailing newline ignored. Not together with SUPPLIER_PASSWORD.',
  ),
  redisUrl: setting(
    'REDIS_URL',
    redisUrl,
    'redis://127.0.0.1:6379',
    'Redis for the BullMQ queues: redis:// or rediss:// (TLS); a password goes in the URL (redis://:PASSWORD@host:6379) and is never printed. With REDIS_CLUSTER, one or more nodes of the cluster, comma-separated (the others are found from them).',
  ),
  redisCluster: setting(
    'REDIS_CLUSTER',
    bool,
    false,
    "Connect to a Redis Cluster through the node(s) REDIS_URL names (their scheme and password hold for every node); queue keys are then hash-tagged (SYNC_QUEUE_PREFIX in braces) so that a daemon's keys share one slot.",
  ),
  dataDir: setting(
    'SYNC_DATA_DIR',
    text,
    './data',
    "Holds state.db, inbox/, processed/, failed/, outbox/ and held/ (created at start), staging/ (scratch files of files and snapshot reads being applied, also by `release`), and heartbeat.json (the running daemon's heartbeat and disk state, read by status and health while state.db cannot be written).",
  ),
  queuePrefix: setting(
    'SYNC_QUEUE_PREFIX',
    queuePrefix,
    'supplier-sync',
    'BullMQ key prefix; daemons with different prefixes never touch each other. May hold one hash tag in braces ({acme}); on a Redis Cluster a prefix without one is used in braces whole.',
  ),
  timezone: setting(
    'SYNC_TIMEZONE',
    timezone,
    'UTC',
    'IANA time zone for the cron schedules (for example Europe/London).',
  ),
  logLevel: setting(
    'LOG_LEVEL',
    level,
    'info',
    'pino level: fatal, error, warn, info, debug, trace or silent.',
  ),

  requestsPerHour: setting(
    'API_REQUESTS_PER_HOUR',
    int(1),
    3600,
    'Client-side budget for all calls but login over any rolling hour.',
  ),
  loginsPerHour: setting(
    'API_LOGINS_PER_HOUR',
    int(1, 10),
    10,
    'Hard cap on logins over any rolling hour, kept across restarts.',
  ),
  stockReserve: setting(
    'API_STOCK_RESERVE',
    reserve,
    '8.33%',
    'What stock pushes leave of the hourly budget for shipment confirmations: a share of API_REQUESTS_PER_HOUR (8.33% is 300 of 3,600) or a whole number of calls. A value that leaves pushes nothing stops the start (exit 78).',
  ),
  pollReserve: setting(
    'API_POLL_RESERVE',
    reserve,
    '16.67%',
    'What shipment polls leave of the hourly budget for stock pushes, on top of API_STOCK_RESERVE: a share of API_REQUESTS_PER_HOUR (16.67% is 600 of 3,600) or a whole number of calls. However often polls run, they never take the whole budget.',
  ),
  reconcileReserve: setting(
    'API_RECONCILE_RESERVE',
    reserve,
    '25%',
    'What reconciliation reads leave of the hourly budget for shipments and pushes: a share of API_REQUESTS_PER_HOUR (25% is 900 of 3,600) or a whole number of calls. A value that leaves reading nothing stops the start (exit 78).',
  ),
  requestTimeoutMs: setting(
    'API_TIMEOUT_MS',
    ms(100, 600_000),
    30_000,
    'Timeout of one HTTP request, in milliseconds. At most 600,000 (10 minutes).',
  ),
  retryLimit: setting(
    'API_RETRY_LIMIT',
    int(0, 20),
    6,
    'Retries of one call after a 429, 5xx, timeout or reset before its job is rescheduled.',
  ),
  backoffBaseMs: setting(
    'API_BACKOFF_BASE_MS',
    ms(1, 3_600_000),
    1000,
    'First wait after a 429 or a 5xx, in milliseconds; it doubles on each further retry. At most 3,600,000 (an hour).',
  ),
  backoffMaxMs: setting(
    'API_BACKOFF_MAX_MS',
    ms(1, 3_600_000),
    60_000,
    'Longest back-off wait of our own, in milliseconds. A longer Retry-After is honoured: the call ends and its job waits until then. At most 3,600,000 (an hour).',
  ),
  reloginBaseMs: setting(
    'API_RELOGIN_BASE_MS',
    ms(1, 3_600_000),
    30_000,
    'While the portal refuses fresh tokens, the n-th re-login since the last good call is followed by a gap of this × 2^n milliseconds (60 s, 2 min, 4 min … up to 1 h), so an hour of refused tokens costs at most 6 logins. At most 3,600,000 (an hour).',
  ),
  heldTokenRetryMs: setting(
    'API_TOKEN_RETRY_MS',
    ms(1, 3_600_000),
    60_000,
    'While a re-login waits its turn, work is retried with the token held this often, in milliseconds, so it resumes within this long once the portal accepts tokens again. At most 3,600,000 (an hour).',
  ),
  bulkBatchSize: setting(
    'BULK_BATCH_SIZE',
    int(1, 10_000),
    1000,
    'Largest bulk-update batch to send; when the portal refuses a batch as too large, the size it accepts is searched for (bisecting) and remembered.',
  ),

  jobLockMs: setting(
    'JOB_LOCK_MS',
    ms(1_000, 600_000),
    20_000,
    'Lock of a running job, in milliseconds, renewed while it runs; after a crash its jobs run again once it lapses. At most 600,000 (10 minutes).',
  ),
  shipmentsPollCron: setting(
    'SHIPMENTS_POLL_CRON',
    cron,
    '*/5 * * * *',
    'Ready-to-ship poll; 6 fields with seconds first are accepted.',
  ),
  reconcileCron: setting(
    'RECONCILE_CRON',
    cron,
    '17 3 * * *',
    'Full re-read of the portal stock (daily at 03:17 by default: a full read of a large catalogue costs many calls).',
  ),
  reconcileMinIntervalMs: setting(
    'RECONCILE_MIN_INTERVAL_MS',
    ms(0, 604_800_000),
    900_000,
    "Budget left idle by shipments and pushes re-reads the portal stock page by page, to find and push back what changed behind the daemon's back: each kind's pass starts at most once per this many milliseconds (factory, cheap to read, up to 5 times as often as DC). 0 turns idle re-reading off (RECONCILE_CRON only). At most 604,800,000 (7 days).",
  ),
  failureRetryCron: setting(
    'FAILURE_RETRY_CRON',
    cron,
    '* * * * *',
    'How often due failures are put back in line.',
  ),
  dcRefreshCron: setting(
    'DC_REFRESH_CRON',
    cron,
    '0 * * * *',
    'Refresh of the cached distribution-centre list used to validate rows.',
  ),
  failureBackoffBaseMs: setting(
    'FAILURE_BACKOFF_BASE_MS',
    ms(1, 86_400_000),
    60_000,
    'First retry delay of an item the portal rejected, in milliseconds; doubles per attempt. At most 86,400,000 (a day).',
  ),
  failureBackoffMaxMs: setting(
    'FAILURE_BACKOFF_MAX_MS',
    ms(1, 604_800_000),
    6 * 3_600_000,
    'Longest retry delay of a rejected item, in milliseconds. At most 604,800,000 (7 days).',
  ),
  notFoundRetryMs: setting(
    'NOT_FOUND_RETRY_MS',
    ms(1, 604_800_000),
    6 * 3_600_000,
    'Retry delay of an item rejected as "Product not found" (also retried when reconciliation finds the SKU). At most 604,800,000 (7 days).',
  ),

  inboxStabilityMs: setting(
    'INBOX_STABILITY_MS',
    ms(0, 3_600_000),
    2000,
    'A file is read once its size and mtime have not changed for this long, in milliseconds. At most 3,600,000 (an hour).',
  ),
  inboxPolling: setting(
    'INBOX_POLLING',
    bool,
    false,
    'Poll the inbox instead of using file-system events (bind mounts, network shares).',
  ),
  inboxPollIntervalMs: setting(
    'INBOX_POLL_INTERVAL_MS',
    ms(50, 60_000),
    1000,
    'Polling interval when INBOX_POLLING is on, in milliseconds. At most 60,000 (a minute).',
  ),
  inboxScanIntervalMs: setting(
    'INBOX_SCAN_INTERVAL_MS',
    ms(1_000, 3_600_000),
    30_000,
    'Periodic full scan of inbox/ that catches anything an event missed, in milliseconds. At most 3,600,000 (an hour).',
  ),
  inboxProfilesFile: optional(
    'INBOX_PROFILES_FILE',
    text,
    'JSON file of profiles for reading ERP exports (encoding, delimiter, sheet, header and data lines, columns by name, letter, position or occurrence, expressions in CEL, constants, decimal mark, negatives, row conditions, full exports); validated at start (expressions compiled), re-read within seconds when it changes. Each inbox file is read with the first profile whose match fits its name. Schema: config/inbox-profiles.schema.json.',
  ),
  inboxMaxRecordBytes: setting(
    'INBOX_MAX_RECORD_BYTES',
    int(1024, 256 * 1024 * 1024),
    1024 * 1024,
    'Largest record of an inbox file (a JSON Lines line, a CSV row with its quoted fields), in bytes: a file with a longer one goes to failed/ naming its line, instead of filling memory.',
  ),
  stockRulesFile: optional(
    'STOCK_RULES_FILE',
    text,
    'JSON file of stock rules: ERP location codes mapped to portal DC codes, and ordered rules that exclude keys, hold a buffer back, offer a percent or cap at a max; validated at start, re-read within seconds when it changes. Schema: config/stock-rules.schema.json.',
  ),
  maxSkuLength: setting(
    'MAX_SKU_LENGTH',
    int(1, 1000),
    64,
    'Longest SKU accepted from inbox rows.',
  ),

  snapshotDb: optional(
    'SNAPSHOT_DB',
    text,
    'Path of an ERP SQLite snapshot; setting it turns the snapshot source on.',
  ),
  snapshotFactoryQuery: setting(
    'SNAPSHOT_FACTORY_QUERY',
    text,
    'SELECT sku, stock_quantity FROM factory_stock',
    'Query for factory stock rows (columns sku, stock_quantity).',
  ),
  snapshotDcQuery: setting(
    'SNAPSHOT_DC_QUERY',
    text,
    'SELECT distribution_centre_code, sku, stock_quantity FROM dc_stock',
    'Query for DC stock rows (columns distribution_centre_code, sku, stock_quantity).',
  ),
  snapshotAbsent: setting(
    'SNAPSHOT_ABSENT',
    z.enum(['keep', 'zero']),
    'keep',
    'keep: keys the snapshot does not name stay as they are; zero: the snapshot is a full picture, and keys of the portal above 0 that it omits are set to 0 (DC stock: at the centres it names; the portal is read first where it never was).',
  ),
  snapshotCron: setting(
    'SNAPSHOT_CRON',
    cron,
    '*/15 * * * *',
    'Scheduled re-read of the snapshot, besides reads on change.',
  ),

  guardZeroPercent: setting(
    'GUARD_ZERO_PERCENT',
    int(0, 100),
    50,
    'Guard rails: a stock file or snapshot read is held (not applied) when it would set to 0 more than this percent of the keys it names that are above 0 on the portal. 100 turns the check off.',
  ),
  guardDropPercent: setting(
    'GUARD_DROP_PERCENT',
    int(0, 100),
    80,
    'Guard rails: a stock file or snapshot read is held when it would lower the sum of the portal quantities of the keys it names by more than this percent. 100 turns the check off.',
  ),
  guardMinKeys: setting(
    'GUARD_MIN_KEYS',
    int(0),
    50,
    'Guard rails: the two percent checks only look at files or reads naming at least this many keys that are above 0 on the portal (keys a full export zeroes by omission count as named).',
  ),

  outboxFormat: setting(
    'OUTBOX_FORMAT',
    z.enum(['json', 'csv']),
    'json',
    'Format of the ready-to-ship files written to outbox/: json or csv.',
  ),
  shipmentsDeadline: optional(
    'SHIPMENTS_DEADLINE',
    text.regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'must be a local time HH:MM (or HH:MM:SS)'),
    "Local time HH:MM (SYNC_TIMEZONE) by which the day's shipments should be confirmed: then one shipments.overdue warning names those handed to the ERP that day and still unconfirmed. Unset: off.",
  ),
  shipmentsConfirmWarnMs: setting(
    'SHIPMENTS_CONFIRM_WARN_MS',
    ms(1_000, 604_800_000),
    4 * 3_600_000,
    'A shipment handed to the ERP this long ago without a confirmation is named once in a shipments.unconfirmed warning, in milliseconds. At most 604,800,000 (7 days).',
  ),
  staleAfterMs: setting(
    'SYNC_STALE_AFTER_MS',
    ms(60_000, 604_800_000),
    6 * 3_600_000,
    'Warn (sync.stale) when pending differences have seen no successful push for this long, in milliseconds. At most 604,800,000 (7 days).',
  ),
  retentionDays: setting(
    'RETENTION_DAYS',
    int(0, 36_500),
    30,
    'Days handled files (processed/, failed/ and their reports) and finished records (file ledger, shipments confirmed or gone from the ready-to-ship list, confirmations, last pushes, decided held entries, operator requests) are kept; older ones are pruned daily and at start (what is kept however old: docs/operations.md). 0 keeps everything.',
  ),
  httpPort: setting(
    'HTTP_PORT',
    int(0, 65_535),
    0,
    "Port of the daemon's HTTP server: /healthz, /metrics and the console at / (its JSON under /api/); 0 turns it off.",
  ),
  httpHost: setting(
    'HTTP_HOST',
    listenHost,
    '127.0.0.1',
    'Interface the HTTP server listens on: 127.0.0.1 (this machine only) by default; 0.0.0.0 for every interface (the container image sets it, so that a published port reaches it). On an address other hosts reach, the console is served only with CONSOLE_PASSWORD_FILE.',
  ),
  consolePasswordFile: optional(
    'CONSOLE_PASSWORD_FILE',
    text,
    'File holding the console password (8 to 1024 characters; trailing newline ignored), read at start. Set: every console page and /api/ route asks for it and the console can release, reject and retry. Unset: the console is read-only, and served only when HTTP_HOST is a loopback address.',
  ),
  consoleTrustedProxies: setting(
    'CONSOLE_TRUSTED_PROXIES',
    addressList,
    [],
    'Reverse proxies in front of the console: IP addresses or CIDR ranges, separated by commas. A wrong console password slows only the client that sent it; behind one of these proxies the client is the address X-Forwarded-For names (the last one that is not a listed proxy). Unset: X-Forwarded-For is not read, and every client is the address its connection comes from.',
  ),
  ...notifySettings,
  ...productSettings,
} as const;

export type SettingName = keyof typeof settings;

/** The frozen, typed configuration the rest of the daemon reads. */
export type Config = {
  readonly [K in SettingName]: (typeof settings)[K] extends Setting<infer T, infer O>
    ? O extends true
      ? T | undefined
      : T
    : never;
} & {
  /** Path of the JSON config file that was read, if any. */
  readonly configFile: string | undefined;
};
