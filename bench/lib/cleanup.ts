/**
 * Clean-up that also runs when the benchmark is interrupted (Ctrl-C, or bench/run.ts stopping
 * it): every child process, temp dir and Redis key prefix a benchmark makes is registered here.
 */

type Task = () => Promise<void> | void;

const tasks: Task[] = [];
let running: Promise<void> | undefined;

/** Registers a clean-up task; returns a function that runs it now (once) and unregisters it. */
export function onCleanup(task: Task): () => Promise<void> {
  let done = false;
  const once: Task = async () => {
    if (done) return;
    done = true;
    await task();
  };
  tasks.push(once);
  return async () => {
    const i = tasks.indexOf(once);
    if (i >= 0) tasks.splice(i, 1);
    await once();
  };
}

/** Runs every registered task, newest first; errors are reported and do not stop the others. */
export function cleanupAll(): Promise<void> {
  running ??= (async () => {
    while (tasks.length > 0) {
      const task = tasks.pop()!;
      try {
        await task();
      } catch (err) {
        console.error(`clean-up failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  })();
  return running;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: cleaning up`);
    void cleanupAll().finally(() => process.exit(130));
  });
}
