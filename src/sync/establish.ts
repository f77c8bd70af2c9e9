import { countDesired } from '../state/desiredStock.ts';
import { KeyValueStore } from '../state/kv.ts';
import { kvKey } from '../state/kvKeys.ts';
import { chooseFirstStart, type FirstStartChoice } from './decide/firstStart.ts';
import type { StockWriter } from './ports.ts';
import { type ReconcileDeps, reconcileKind } from './reconcile.ts';

/**
 * Before the first push of a kind, the portal's stock is unknown. Chooses the cheaper way to learn
 * it — read the portal (then push only differences), or push every desired row — logs the choice
 * (`sync.first_start`) and carries it out. Later calls cost nothing.
 */
export async function establishRemote(
  deps: ReconcileDeps & { readonly writer: StockWriter },
): Promise<FirstStartChoice[]> {
  const kv = new KeyValueStore(deps.db);
  const choices: FirstStartChoice[] = [];
  for (const kind of ['factory', 'dc'] as const) {
    if (kv.get(kvKey.established(kind))) continue;
    const desired = countDesired(deps.db, kind);
    if (desired === 0) continue; // nothing wanted yet: decide when there is
    const choice = chooseFirstStart(kind, desired, deps.writer.maxBatchSize(kind));
    deps.log.info(
      { event: 'sync.first_start', ...choice, desiredRows: desired },
      `first sync of ${kind} stock: ${choice.choice === 'read' ? 'reading the portal' : 'pushing every desired row'} (read ≈ ${choice.readCalls} calls, push ≈ ${choice.pushCalls})`,
    );
    if (choice.choice === 'read') {
      const summary = await reconcileKind(kind, deps);
      if (!summary.complete) break;
    } else {
      kv.set(kvKey.established(kind), true);
    }
    choices.push(choice);
  }
  return choices;
}
