import type { JobPayloads, Queues } from './queues.ts';

/**
 * The ways work is asked for. Each add is deduplicated so that nudges never pile up: a push or a
 * confirm keeps at most one waiting job behind the active one; a schedule slot's job id is the
 * same in every daemon sharing the Redis, so a tick is never doubled; a file's job id is its
 * identity, so one file is never worked twice at once.
 */
export class Nudges {
  readonly #queues: Queues;

  constructor(queues: Queues) {
    this.#queues = queues;
  }

  /**
   * A file's job is removed as soon as it ends, so that a file still in inbox/ after a failure (a
   * portal outage while checking its distribution centres) is offered again by the next scan.
   * The job carries the file's name only: the worker looks for it in inbox/, nowhere else.
   */
  ingest(name: string, identity: string): Promise<unknown> {
    return this.#queues.ingest.add(
      'ingest',
      { name },
      { jobId: jobId('ingest', identity), removeOnComplete: true, removeOnFail: true },
    );
  }

  push(reason: string): Promise<unknown> {
    return this.#queues.push.add(
      'push',
      { reason },
      { deduplication: { id: 'push', keepLastIfActive: true } },
    );
  }

  /** A run of product creations (one waiting behind the active one at most). */
  products(reason: string): Promise<unknown> {
    return this.#queues.products.add(
      'products',
      { reason },
      { deduplication: { id: 'products', keepLastIfActive: true } },
    );
  }

  /**
   * Wakes the products queue in `delayMs`: when the platform's review (or the catalogue pass) is
   * next due. One such timer at a time, apart from the nudges above (a timer never holds a run
   * of creations back); the periodic recovery asks whenever something is due, so a dropped timer
   * costs 30 s at most.
   */
  productsIn(delayMs: number, reason: string): Promise<unknown> {
    const delay = Math.max(0, Math.round(delayMs));
    return this.#queues.products.add(
      'products',
      { reason },
      { deduplication: { id: 'products-timer', ttl: Math.max(1, delay) }, delay },
    );
  }

  confirm(reason: string): Promise<unknown> {
    return this.#queues.shipments.add(
      'confirm',
      { task: 'confirm', reason },
      { deduplication: { id: 'confirm', keepLastIfActive: true }, priority: 1 },
    );
  }

  poll(reason: string, slot?: string): Promise<unknown> {
    const opts = slot ? { jobId: jobId('poll', slot) } : { deduplication: { id: 'poll' } };
    return this.#queues.shipments.add(
      'poll',
      { task: 'poll', reason, slot },
      { ...opts, priority: 2 },
    );
  }

  reconcile(reason: string, slot?: string): Promise<unknown> {
    const opts = slot
      ? { jobId: jobId('reconcile', slot) }
      : { deduplication: { id: 'reconcile', keepLastIfActive: true } };
    return this.#queues.reconcile.add('reconcile', { reason, slot }, opts);
  }

  /**
   * Wakes the reconciliation queue at `at` (epoch ms): when its next pass is due. One such timer
   * at a time (a later ask is dropped while one waits); the periodic recovery also sets the queue
   * going whenever something is due, so a dropped ask costs 30 s at most.
   */
  reconcileAt(at: number, reason: string): Promise<unknown> {
    const delay = Math.max(0, at - Date.now());
    // Throttle mode: the id is taken until the timer fires, not until its job ends, so the job it
    // starts can set the next timer.
    return this.#queues.reconcile.add(
      'reconcile',
      { reason },
      { deduplication: { id: 'reconcile-timer', ttl: Math.max(1, delay) }, delay },
    );
  }

  maintenance(
    task: JobPayloads['maintenance']['task'],
    reason: string,
    slot?: string,
  ): Promise<unknown> {
    const opts = slot
      ? { jobId: jobId(task, slot) }
      : { deduplication: { id: task, keepLastIfActive: true } };
    return this.#queues.maintenance.add(task, { task, reason, slot }, opts);
  }
}

/** BullMQ job ids may not contain ':' (it separates its keys). */
function jobId(kind: string, id: string): string {
  return `${kind}-${id.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}
