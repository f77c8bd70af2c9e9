/**
 * A fleet file: the suppliers to run on Kubernetes and what they share (docs/deployment.md,
 * "Kubernetes"; example: deploy/kubernetes/fleet.example.json), read and checked here — its
 * shape (fleetSchema.ts), and each supplier's settings, inbox profiles and stock rules with the
 * daemon's own loaders — so that a mistake stops the rendering with a line naming it, not a pod
 * at start.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { loadProfilesFile } from '../../src/config/profiles.ts';
import { readStockRulesFile } from '../../src/config/stockRulesFile.ts';
import { type Fleet, fleetSchema, type Supplier } from './fleetSchema.ts';
import { supplierSettings } from './manifests.ts';

export type { Fleet, Supplier };

/** The fleet in `text` (JSON; keys starting with // are comments), or an Error naming the fault. */
export function parseFleet(text: string, source = 'fleet file'): Fleet {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON: ${(err as Error).message}`);
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    raw = Object.fromEntries(Object.entries(raw).filter(([k]) => !k.startsWith('//')));
  }
  const parsed = fleetSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source}: ${issue.path.join('.') || '(top)'}: ${issue.message}`);
  }
  for (const s of parsed.data.suppliers) checkSupplier(parsed.data, s, source);
  return parsed.data;
}

export function readFleet(path: string): Fleet {
  return parseFleet(readFileSync(path, 'utf8'), path);
}

/**
 * The supplier's settings as its pod will have them, through the daemon's own loader (with
 * a stand-in password file and the JSON files written where the settings name them).
 */
function checkSupplier(fleet: Fleet, s: Supplier, source: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-render-'));
  try {
    const env = supplierSettings(fleet, s);
    env.SUPPLIER_PASSWORD_FILE = join(dir, 'password');
    writeFileSync(env.SUPPLIER_PASSWORD_FILE, 'stand-in');
    if (s.inboxProfiles !== undefined) {
      env.INBOX_PROFILES_FILE = join(dir, 'inbox-profiles.json');
      writeFileSync(env.INBOX_PROFILES_FILE, JSON.stringify(s.inboxProfiles));
      loadProfilesFile(env.INBOX_PROFILES_FILE);
    }
    if (s.stockRules !== undefined) {
      env.STOCK_RULES_FILE = join(dir, 'stock-rules.json');
      writeFileSync(env.STOCK_RULES_FILE, JSON.stringify(s.stockRules));
      readStockRulesFile(env.STOCK_RULES_FILE);
    }
    loadConfig({ env, require: ['apiUrl', 'email', 'password'] });
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new Error(`${source}: supplier ${s.name}: ${err.message.replaceAll(`${dir}/`, '')}`);
    }
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
