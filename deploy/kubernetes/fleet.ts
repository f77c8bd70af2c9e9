/**
 * A fleet file: the suppliers to run on Kubernetes and what they share (docs/deployment.md,
 * "Kubernetes"; example: deploy/kubernetes/fleet.example.json). Read and checked here — its
 * shape, and each supplier's settings, inbox profiles and stock rules with the daemon's own
 * loaders — so that a mistake stops the rendering with a line naming it, not a pod at start.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { loadProfilesFile } from '../../src/config/profiles.ts';
import { readStockRulesFile } from '../../src/config/stockRulesFile.ts';
import { supplierSettings } from './manifests.ts';

/**
 * The figures the pods' resources come from (docs/benchmarks.md, "Density"; docs/deployment.md
 * says why): the request an idle daemon's memory (about 107 MiB resident serving HTTP, 47 MiB of it its own),
 * the limit the largest input's read (bounded at 300 MiB) with room; CPU idle is 2 millicores,
 * the request leaves room for small files, and no CPU limit slows a large read.
 */
export const DEFAULT_RESOURCES = {
  cpuRequest: '50m',
  memoryRequest: '112Mi',
  memoryLimit: '384Mi',
} as const;

/** Settings the generator gives every pod itself (where things are inside it, the prefix). */
const OWNED = new Set([
  'SYNC_QUEUE_PREFIX',
  'SYNC_DATA_DIR',
  'SUPPLIER_PASSWORD_FILE',
  'HTTP_PORT',
  'HTTP_HOST',
  'INBOX_PROFILES_FILE',
  'STOCK_RULES_FILE',
  'SYNC_CONFIG',
]);

const settings = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .superRefine((values, ctx) => {
    for (const key of Object.keys(values)) {
      if (key.startsWith('//')) continue;
      if (key === 'SUPPLIER_PASSWORD')
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'the password goes in a Secret (render --passwords DIR), never in a ConfigMap',
        });
      else if (OWNED.has(key))
        ctx.addIssue({ code: 'custom', path: [key], message: 'is set by the generator' });
    }
  })
  .transform((values) =>
    Object.fromEntries(
      Object.entries(values)
        .filter(([k]) => !k.startsWith('//'))
        .map(([k, v]) => [k, String(v)]),
    ),
  );

/** A Kubernetes quantity as the API reads it (Mi, Gi, m …). */
const quantity = z
  .string()
  .regex(/^\d+(\.\d+)?(m|k|Ki|Mi|Gi|Ti|M|G|T)?$/, 'must be a quantity such as 128Mi or 2Gi');

const supplier = z
  .object({
    /** DNS label: the objects are supplier-sync-<name>, and a StatefulSet's name stays ≤ 52. */
    name: z
      .string()
      .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'must be lower-case letters, digits and -')
      .max(38, 'must be at most 38 characters (supplier-sync-<name> names a StatefulSet)'),
    settings: settings.default({}),
    inboxProfiles: z.unknown().optional(),
    stockRules: z.unknown().optional(),
    dataVolumeSize: quantity.optional(),
  })
  .strict();

export const fleetSchema = z
  .object({
    namespace: z.string().regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'must be a DNS label'),
    image: z.string().min(1),
    storageClassName: z.string().min(1).optional(),
    dataVolumeSize: quantity.default('2Gi'),
    resources: z
      .object({ cpuRequest: quantity, memoryRequest: quantity, memoryLimit: quantity })
      .strict()
      .default(DEFAULT_RESOURCES),
    settings: settings.default({}),
    /** An ReadWriteMany claim the ERP reaches too: <folderPrefix><name>/inbox and /outbox in it. */
    erp: z
      .object({ claimName: z.string().min(1), folderPrefix: z.string().default('') })
      .strict()
      .optional(),
    suppliers: z.array(supplier).min(1, 'must name at least one supplier'),
  })
  .strict()
  .superRefine((fleet, ctx) => {
    const seen = new Set<string>();
    fleet.suppliers.forEach((s, i) => {
      if (seen.has(s.name))
        ctx.addIssue({
          code: 'custom',
          path: ['suppliers', i, 'name'],
          message: `${s.name} twice`,
        });
      seen.add(s.name);
    });
  });

export type Fleet = z.output<typeof fleetSchema>;
export type Supplier = Fleet['suppliers'][number];

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
