import { PassThrough } from 'node:stream';
import { createPortalClient, type PortalClient } from '../../src/api/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { createLogger, type Logger } from '../../src/log/logger.ts';
import type { Simulator } from '../../src/simulator/index.ts';
import type { StateDb } from '../../src/state/db.ts';
import { KeyValueStore } from '../../src/state/kv.ts';

/**
 * A portal client on `db` for push and reconciliation tests: the daemon's settings with a fast
 * back-off, `env` on top, and a logger whose JSON lines the test reads (`logText`).
 */
export function pushClient(
  sim: Simulator,
  db: StateDb,
  env: Record<string, string> = {},
): { client: PortalClient; log: Logger; logText: string[] } {
  const logText: string[] = [];
  const stream = new PassThrough();
  stream.on('data', (c: Buffer) => logText.push(c.toString()));
  const log = createLogger({ destination: stream, pretty: false, level: 'debug' });
  const config = loadConfig({
    env: {
      SUPPLIER_API_URL: sim.baseUrl,
      SUPPLIER_EMAIL: 'supplier@example.com',
      SUPPLIER_PASSWORD: 'demo-password',
      API_BACKOFF_BASE_MS: '5',
      API_BACKOFF_MAX_MS: '50',
      ...env,
    },
  });
  const client = createPortalClient({
    baseUrl: sim.baseUrl,
    email: config.email!,
    password: config.password!,
    db,
    log,
    settings: config,
  });
  return { client, log, logText };
}

/**
 * Marks both kinds' first start as decided, as a running daemon's first push leaves them: tests
 * of the push alone start from there (an undecided kind is not pushed).
 */
export function markEstablished(db: StateDb): void {
  const kv = new KeyValueStore(db);
  for (const kind of ['factory', 'dc'] as const) kv.set(`remote.established.${kind}`, true);
}
