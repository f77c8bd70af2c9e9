import type { Stats } from 'node:fs';
import { HeldStore } from '../../state/inbox/heldStore.ts';
import { ProductRequests } from '../../state/products/productRequests.ts';
import { releasedContent } from '../apply/guardFile.ts';
import type { CollectedFile } from './collect.ts';
import type { FileContext, FileOutcome } from './fileContext.ts';
import { afterCommit } from './finishFile.ts';
import { commit } from './ledgerCommit.ts';
import type { CatalogueGuard } from './productsSection.ts';

/**
 * A products file: its products the portal is not known to have are queued for creation in the
 * commit transaction itself (the products flow creates them, and their answers complete the
 * report); those it has are counted as existing. The guard rail first: a file that would create
 * more than CATALOGUE_MAX_NEW products is held (held/, nothing queued) until an operator releases
 * it — a released file is read again and passes, this once — or rejects it.
 */
export async function commitProducts(
  ctx: FileContext,
  st: Stats,
  hash: string,
  c: CollectedFile,
): Promise<FileOutcome> {
  const { deps } = ctx;
  const read = c.products!;
  const guard = catalogueGuard(ctx, hash, read.toCreate.length);
  let queued = 0;
  // Held, they wait with the file; else in line for creation.
  const states = read.toCreate.map((r) => ({
    line: r.line,
    sku: r.draft.sku,
    state: 'queued' as const,
  }));
  const committed = commit(
    ctx,
    { kind: c.kind, hash, size: st.size, ino: st.ino },
    ({ ledgerId, storedAs }) => {
      if (guard?.held) {
        const heldId = new HeldStore(deps.db).hold(
          {
            source: 'file',
            fileId: ledgerId,
            name: ctx.name,
            storedAs,
            kind: c.kind,
            contentHash: hash,
            reason: guard.reason,
            report: JSON.stringify({
              tripped: ['catalogue'],
              reason: guard.reason,
              catalogue: { wouldCreate: guard.wouldCreate, max: guard.CATALOGUE_MAX_NEW },
              examples: [],
            }),
            sourceAt: Math.floor(st.mtimeMs),
            heldAt: ctx.clock.now(),
          },
          [],
        );
        return { type: 'products', read: c, queued: states, guard: { ...guard, heldId } };
      }
      queued = new ProductRequests(deps.db).queue(
        read.toCreate,
        { id: ledgerId, name: ctx.name },
        ctx.clock.now(),
      );
      return { type: 'products', read: c, queued: states, guard };
    },
  );
  const outcome = await afterCommit(ctx, committed, st);
  return typeof committed === 'object' ? { ...outcome, productsQueued: queued } : outcome;
}

/**
 * The guard rail's verdict (CATALOGUE_MAX_NEW); undefined when it is off (no setting given). The
 * content an operator released passes, named in the report.
 */
function catalogueGuard(
  ctx: FileContext,
  hash: string,
  wouldCreate: number,
): CatalogueGuard | undefined {
  const max = ctx.deps.products?.maxNew;
  if (max === undefined) return undefined;
  const over = wouldCreate > max;
  const reason = over
    ? `it would create ${wouldCreate} products, more than CATALOGUE_MAX_NEW (${max}); creation cannot be undone through the API`
    : `it creates ${wouldCreate} products, within CATALOGUE_MAX_NEW (${max})`;
  const base = { held: over, reason, wouldCreate, CATALOGUE_MAX_NEW: max };
  if (!over) return base;
  const released = releasedContent(ctx.deps.db, hash);
  if (released === undefined) return base;
  return {
    ...base,
    held: false,
    released: { heldId: released.id, heldAt: new Date(released.heldAt).toISOString() },
  };
}
