/** Rejects with `<what> timed out after N ms` when `promise` takes longer than `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `fn` with a time limit of `ms`, never more than one call in flight: a call made while an earlier
 * one is unanswered waits for that one, within what is left of its limit; once the limit has
 * passed it fails at once (`<what> has had no answer for N ms`). Probes of a service that may hang
 * (Redis frozen, or during an outage) then neither pile up requests that all run when it answers
 * again, nor make each caller wait the whole limit in turn.
 */
export function oneAtATime<T>(
  fn: () => Promise<T>,
  ms: number,
  what: string,
  now: () => number = Date.now,
): () => Promise<T> {
  let inFlight: { readonly promise: Promise<T>; readonly startedAt: number } | undefined;
  return () => {
    const t = now();
    if (inFlight === undefined) {
      const promise: Promise<T> = fn().finally(() => {
        if (inFlight?.promise === promise) inFlight = undefined;
      });
      inFlight = { promise, startedAt: t };
    }
    const left = inFlight.startedAt + ms - t;
    if (left <= 0) {
      return Promise.reject(
        new Error(`${what} has had no answer for ${t - inFlight.startedAt} ms`),
      );
    }
    return withTimeout(inFlight.promise, left, what);
  };
}
