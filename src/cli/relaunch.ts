import { missingNodeEnv, missingNodeFlags } from './nodeFlags.ts';

/**
 * The daemon's Node flags however it is started (product contract, "However it is started"),
 * and the environment the C library reads at the start (DAEMON_NODE_ENV, nodeFlags.ts).
 *
 * The image, the `supplier-sync` command (its first line) and `npm start` give Node the flags of
 * nodeFlags.ts. A daemon started another way — `node dist/cli/main.js run` in a unit file or a
 * container command, `node src/cli/main.ts run` — would lack them, and they cannot be set from
 * inside: V8 fixes its heap's limits when the process starts (`v8.setFlagsFromString` with
 * `--max-old-space-size=128` afterwards leaves the limit at 4 GiB; docs/deployment.md). So `run`
 * without them replaces its own process with one that has them (`process.execve`), before the
 * commands' code is loaded: the same PID, so that tini, systemd or a supervisor signals and waits
 * for the daemon itself; the same stdin, stdout and stderr; the daemon's own exit code; no second
 * process holding memory; about a tenth of a second. The new process carries RELAUNCH_MARK in its
 * environment and never re-executes again. Other commands are short and start as they are.
 */

/** Set in the environment of the process a relaunch starts; taken out of it at once. */
export const RELAUNCH_MARK = 'SUPPLIER_SYNC_RELAUNCHED';

/** What this process's start did about the daemon's flags (the `daemon.node_flags` line says). */
export interface Launch {
  readonly outcome:
    | 'given' // started with every flag
    | 'relaunched' // re-executed with the flags it lacked
    | 'unavailable' // lacks flags and could not re-execute (no process.execve here, or it failed)
    | 'still-missing'; // re-executed once and lacks them still: not again
  /** The flags the process runs without. */
  readonly missing: readonly string[];
  /** The environment settings it runs without (DAEMON_NODE_ENV's names). */
  readonly missingEnv: readonly string[];
  /** Why it could not re-execute. */
  readonly error?: string;
}

/** Whether a command line starts the daemon: `run`, not its `--help`. */
export function startsDaemon(args: readonly string[]): boolean {
  const [name, ...rest] = args;
  return name === 'run' && !rest.includes('--help') && !rest.includes('-h');
}

/**
 * The argv of the process that takes this one's place: Node, the flags it lacked, the flags it
 * had (an operator's own come after, as they came), the script and the command line.
 */
export function relaunchArgv(p: {
  readonly execPath: string;
  readonly missing: readonly string[];
  readonly execArgv: readonly string[];
  readonly script: string;
  readonly args: readonly string[];
}): string[] {
  return [p.execPath, ...p.missing, ...p.execArgv, p.script, ...p.args];
}

let launch: Launch | undefined;

/** What the entry point did (undefined when the CLI runs inside another program: tests). */
export function launchOf(): Launch | undefined {
  return launch;
}

/** At the entry point, before anything else (main.ts): relaunchIfNeeded for this process. */
export function ensureDaemonFlags(): void {
  launch = relaunchIfNeeded(process);
}

type Proc = Pick<NodeJS.Process, 'argv' | 'execArgv' | 'execPath' | 'env' | 'execve'>;

/**
 * For `run` without the daemon's flags, replaces the process with one that has them, and does
 * not return. Returns what was found when there is nothing to do or it cannot be done; undefined
 * for a command other than `run`.
 */
export function relaunchIfNeeded(proc: Proc): Launch | undefined {
  const marked = proc.env[RELAUNCH_MARK] !== undefined;
  delete proc.env[RELAUNCH_MARK];
  const args = proc.argv.slice(2);
  if (!startsDaemon(args)) return undefined;
  const missing = missingNodeFlags(proc.execArgv, proc.env.NODE_OPTIONS);
  const addEnv = missingNodeEnv(proc.env);
  const missingEnv = Object.keys(addEnv);
  if (missing.length === 0 && missingEnv.length === 0)
    return { outcome: marked ? 'relaunched' : 'given', missing, missingEnv };
  if (marked) return { outcome: 'still-missing', missing, missingEnv };
  const script = proc.argv[1];
  if (typeof proc.execve !== 'function' || script === undefined)
    return {
      outcome: 'unavailable',
      missing,
      missingEnv,
      error: 'process.execve is not available here',
    };
  const argv = relaunchArgv({
    execPath: proc.execPath,
    missing,
    execArgv: proc.execArgv,
    script,
    args,
  });
  try {
    proc.execve(proc.execPath, argv, { ...addEnv, ...proc.env, [RELAUNCH_MARK]: '1' });
  } catch (err) {
    return { outcome: 'unavailable', missing, missingEnv, error: (err as Error).message };
  }
  // Only a stand-in execve returns.
  return undefined;
}
