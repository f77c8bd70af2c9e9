import { setTimeout as sleep } from 'node:timers/promises';
import { HeldDecisionError, type RejectResult } from '../inventory/index.ts';
import type { Logger } from '../log/logger.ts';
import { OperatorRequests } from '../state/lock/operatorRequests.ts';
import {
  describeHolder,
  takeWriterLock,
  type WriterHolder,
  writerLockState,
} from '../state/lock/writerLock.ts';
import {
  type ActionDeps,
  type FailureKeys,
  type PauseOutcome,
  pause,
  type ReleaseOutcome,
  type ResumeOutcome,
  type RetryOutcome,
  reject,
  release,
  resume,
  retryFailures,
} from './operator.ts';
import { wakeDaemon, watchWakes } from './wakeFile.ts';

/**
 * What a command asks of the daemon instead of writing beside it (issue #28): the operator
 * actions that write (release, reject, failures retry, pause, resume). A command takes the data
 * dir's writer lock and does the work itself only when no daemon holds it; otherwise it records
 * a request in state.db (`operator_requests`) and wakes the daemon (actions/wakeFile.ts),
 * which takes it at once and answers, and waits for the answer. Both ways run the same functions
 * of operator.ts.
 */
export type OperatorRequest =
  | { readonly action: 'release'; readonly id: number }
  | { readonly action: 'reject'; readonly id: number }
  | {
      readonly action: 'retry';
      readonly target: 'all' | Pick<FailureKeys, 'stock' | 'confirmations'>;
    }
  | { readonly action: 'pause'; readonly reason: string | null }
  | { readonly action: 'resume' };

export interface RequestResults {
  release: ReleaseOutcome;
  reject: RejectResult;
  retry: RetryOutcome;
  pause: PauseOutcome;
  resume: ResumeOutcome;
}

export type ResultOf<R extends OperatorRequest> = RequestResults[R['action']];

/** Runs one request with the given deps (the daemon's, or a command's holding the lock). */
export async function perform(deps: ActionDeps, r: OperatorRequest): Promise<unknown> {
  switch (r.action) {
    case 'release':
      return release(deps, r.id);
    case 'reject':
      return reject(deps, r.id);
    case 'retry':
      return retryFailures(deps, r.target);
    case 'pause':
      return pause(deps, r.reason);
    case 'resume':
      return resume(deps);
    default:
      throw new Error(`not an operator action: '${(r as { action?: unknown }).action}'`);
  }
}

type Answer =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly code: string | null; readonly message: string };

function answerOf(err: unknown): Answer {
  const code = (err as { code?: unknown }).code;
  return {
    ok: false,
    code: typeof code === 'string' ? code : null,
    message: err instanceof Error ? err.message : String(err),
  };
}

function resultOf(answer: Answer): unknown {
  if (answer.ok) return answer.result;
  if (answer.code?.startsWith('E_HELD_'))
    throw new HeldDecisionError(answer.code as HeldDecisionError['code'], answer.message);
  throw new Error(answer.message);
}

/**
 * How often the daemon looks for requests without a wake: what a command waits at most where
 * the wake file's changes are not reported (some network mounts).
 */
export const REQUEST_POLL_MS = 1_000;
/** A request nobody took for this long is dropped (its command gave up long before). */
const REQUEST_MAX_AGE_MS = 120_000;

/**
 * The daemon's side: takes requests one at a time and answers them, until stopped. It looks when
 * a command wakes it, after each answer (another may wait), and every `pollMs`.
 */
export function serveRequests(
  deps: ActionDeps & { readonly log: Logger; readonly pollMs?: number },
) {
  const requests = new OperatorRequests(deps.db);
  let running: Promise<void> | undefined;
  let stopped = false;
  let soon: NodeJS.Immediate | undefined;
  const lookSoon = () => {
    soon ??= setImmediate(() => {
      soon = undefined;
      tick();
    });
  };
  const tick = () => {
    try {
      look();
    } catch (err) {
      // state.db busy for long, a row written by hand: the next look tries again.
      deps.log.warn({ event: 'operator.request_failed', err }, 'could not take a request');
    }
  };
  const look = () => {
    if (stopped || running !== undefined || !deps.db.open) return;
    const row = requests.takeNext(Date.now(), REQUEST_MAX_AGE_MS);
    if (row === undefined) return;
    let request: OperatorRequest;
    try {
      request = { action: row.action, ...(JSON.parse(row.args) as object) } as OperatorRequest;
    } catch (err) {
      requests.answer(row.id, answerOf(err), Date.now());
      return;
    }
    deps.log.info(
      { event: 'operator.request', requestId: row.id, action: row.action },
      `doing what a \`${row.action}\` command asked`,
    );
    running = perform(deps, request)
      .then((result): Answer => ({ ok: true, result }), answerOf)
      .then((answer) => {
        if (deps.db.open) requests.answer(row.id, answer, Date.now());
      })
      .catch((err) =>
        deps.log.error({ event: 'operator.request_failed', err }, 'could not answer a request'),
      )
      .finally(() => {
        running = undefined;
        lookSoon();
      });
  };
  const wakes = watchWakes(deps.config.dataDir, lookSoon, (err) =>
    deps.log.warn(
      { event: 'operator.wake_unwatched', err },
      `commands' requests are looked for every ${(deps.pollMs ?? REQUEST_POLL_MS) / 1000} s: the wake file cannot be watched`,
    ),
  );
  const timer = setInterval(tick, deps.pollMs ?? REQUEST_POLL_MS);
  return {
    /** Takes no more requests; resolves once the one in hand is answered. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      wakes?.close();
      if (soon !== undefined) clearImmediate(soon);
      await running;
    },
  };
}

export interface AskOptions {
  /** The data dir whose writer lock is asked for. */
  readonly dataDir: string;
  readonly signal?: AbortSignal;
  /** How long to wait for the daemon's answer, or for another command to let go of the lock. */
  readonly waitMs?: number;
}

/**
 * The command's side: does `request` under the writer lock when nobody holds it, or asks the
 * daemon that holds it and returns its answer (its errors thrown as they were). `deps` are the
 * command's own (used only when it works alone).
 */
export async function performAsWriter<R extends OperatorRequest>(
  deps: ActionDeps,
  request: R,
  opts: AskOptions,
): Promise<ResultOf<R>> {
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  for (;;) {
    const attempt = takeWriterLock(opts.dataDir, deps.db, request.action);
    if (attempt.lock) {
      try {
        return (await perform(deps, request)) as ResultOf<R>;
      } finally {
        attempt.lock.release();
      }
    }
    if (attempt.heldBy?.role === 'daemon') {
      const answer = await askDaemon(deps, request, attempt.heldBy, opts, deadline);
      if (answer !== 'gone') return resultOf(answer) as ResultOf<R>;
      continue;
    }
    // Another command working alone: it lets go when done.
    if (Date.now() >= deadline || opts.signal?.aborted) {
      throw new Error(
        `the data dir's writer lock is held by ${describeHolder(attempt.heldBy)}: try again once it is done`,
      );
    }
    await sleep(100);
  }
}

/** The daemon's answer, or 'gone' when it stopped before taking the request (now cancelled). */
async function askDaemon(
  deps: ActionDeps,
  request: OperatorRequest,
  holder: WriterHolder,
  opts: AskOptions,
  deadline: number,
): Promise<Answer | 'gone'> {
  const requests = new OperatorRequests(deps.db);
  const { action, ...args } = request;
  const id = requests.ask(action, args, Date.now());
  wakeDaemon(opts.dataDir, Date.now());
  for (let n = 1; ; n++) {
    await sleep(50);
    const row = requests.get(id);
    if (row?.doneAt != null && row.answer !== null) return JSON.parse(row.answer) as Answer;
    // Every half second: is the daemon still there?
    if (n % 10 === 0 && !writerLockState(opts.dataDir, deps.db).held) {
      if (requests.cancel(id, Date.now())) return 'gone';
      throw new Error(
        `${describeHolder(holder)} stopped while doing it: \`status\` shows what is left; the next start finishes an interrupted apply`,
      );
    }
    const late = Date.now() >= deadline;
    if ((late || opts.signal?.aborted) && requests.cancel(id, Date.now())) {
      throw new Error(
        late
          ? `${describeHolder(holder)} did not take the request within ${Math.round((opts.waitMs ?? 60_000) / 1000)} s (is it stuck?): nothing was done`
          : 'interrupted: nothing was asked of the daemon',
      );
    }
    if (opts.signal?.aborted) {
      throw new Error(`interrupted: ${describeHolder(holder)} goes on with it`);
    }
  }
}
