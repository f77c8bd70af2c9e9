/**
 * The shape of a fleet file (docs/deployment.md, "Kubernetes"): what every supplier shares, each
 * supplier's name and settings, and the pods' resources. Read and checked by fleet.ts; the
 * manifests (manifests.ts) are rendered from what it describes.
 */
import { z } from 'zod';

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
