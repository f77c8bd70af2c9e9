import {
  parseFailureKeys,
  pause,
  reject,
  release,
  resume,
  retryFailures,
} from '../../actions/operator.ts';
import { HeldDecisionError } from '../../inventory/index.ts';
import type { ConsoleDeps } from './consoleDeps.ts';

/** What an action did, in one sentence for the page it returns to. */
export interface ActionOutcome {
  readonly text: string;
  readonly error: boolean;
  /** The page to go back to. */
  readonly back: string;
}

/**
 * The console's actions: POST paths → the operator actions the commands call (actions/), so that a
 * button does exactly what `release ID`, `reject ID` and `failures retry` do. Undefined for a
 * path that is no action.
 */
export async function runAction(
  deps: ConsoleDeps,
  path: string,
  form: URLSearchParams,
): Promise<ActionOutcome | undefined> {
  const held = /^\/held\/(\d{1,15})\/(release|reject)$/.exec(path);
  if (held) {
    const id = Number(held[1]);
    try {
      return {
        ...(await decide(deps, id, held[2] as 'release' | 'reject')),
        error: false,
        back: '/held',
      };
    } catch (err) {
      if (err instanceof HeldDecisionError)
        return { text: err.message, error: true, back: '/held' };
      throw err;
    }
  }
  if (path === '/failures/retry') return retry(deps, form);
  if (path === '/pause') {
    const reason = (form.get('reason') ?? '').trim().slice(0, 500) || null;
    const r = pause(deps.actions, reason);
    return {
      text: `${r.already ? 'already paused' : 'pushes paused'}${r.reason ? ` (${r.reason})` : ''}: nothing is written to the portal until Resume`,
      error: false,
      back: '/',
    };
  }
  if (path === '/resume') {
    const r = await resume(deps.actions);
    return {
      text:
        r.pause === null
          ? 'not paused: nothing to resume'
          : `pushes resumed${r.daemonNudged ? '' : '; the push follows at the next periodic check (Redis did not answer)'}`,
      error: false,
      back: '/',
    };
  }
  return undefined;
}

async function decide(deps: ConsoleDeps, id: number, what: 'release' | 'reject') {
  if (what === 'reject') {
    const r = await reject(deps.actions, id);
    return {
      text:
        r.source === 'snapshot'
          ? `rejected snapshot read ${id}: dropped; the last applied values stay`
          : `rejected held file ${id} (${r.file}): ${r.destination === null ? 'it was no longer in held/' : 'moved to failed/ with its report'}`,
    };
  }
  const r = await release(deps.actions, id);
  if (r.source === 'snapshot')
    return {
      text: `released snapshot read ${id}: ${r.keys} keys applied, ${r.superseded} superseded by newer files, ${r.pendingKeys} differ from the portal${r.daemonNudged ? '' : '; the push follows at the next periodic check (Redis did not answer)'}`,
    };
  return {
    text: `released held file ${id} (${r.file}): back in inbox/ as ${r.inboxName}; the daemon applies it as it reads inbox/ (see Files)`,
  };
}

async function retry(deps: ConsoleDeps, form: URLSearchParams): Promise<ActionOutcome> {
  const back = '/failures';
  const all = form.get('all') === '1';
  const keys = form.getAll('key').filter((k) => k !== '');
  if (all === keys.length > 0)
    return { text: 'Retry takes every failure or the keys named, not both', error: true, back };
  const parsed = parseFailureKeys(keys);
  if (parsed.invalid.length > 0)
    return { text: `not a failure key: '${parsed.invalid[0]}'`, error: true, back };
  const r = await retryFailures(deps.actions, all ? 'all' : parsed);
  const missing = all ? 0 : keys.length - r.stock - r.confirmations;
  return {
    text: `put back in line: ${r.stock} stock item(s), ${r.confirmations} confirmation(s)${missing > 0 ? `; ${missing} of the keys named are no longer failures` : ''}${r.daemonNudged ? '' : '; the daemon picks them up at its next periodic check (Redis did not answer)'}`,
    error: missing > 0,
    back,
  };
}
