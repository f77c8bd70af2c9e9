/**
 * Lets the event loop run (timers, I/O, lock renewals of the queue) once `sliceMs` of work has
 * passed since the last time: call `due()` often and cheaply, and `await pause()` when it says so.
 */
export interface Yielder {
  due(): boolean;
  pause(): Promise<void>;
}

/** 10 ms slices: far below the 100 ms an event-loop block may last, at a negligible cost. */
export function createYielder(sliceMs = 10): Yielder {
  let since = performance.now();
  return {
    due: () => performance.now() - since >= sliceMs,
    pause: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          since = performance.now();
          resolve();
        }),
      ),
  };
}

/** Lets the event loop run once (timers, I/O) before going on: between two bounded steps. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}
