import type { Writable } from 'node:stream';

/** What every command receives: its own arguments and the process's edges, never globals. */
export interface CommandContext {
  /** Arguments after the command name (and after a sub-command, for commands that have them). */
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Writable;
  readonly stderr: Writable;
  /** Fires on SIGTERM/SIGINT; long-running commands stop gracefully when it aborts. */
  readonly signal: AbortSignal;
  /**
   * The wall clock the command reads "now" from (heartbeat age, last poll, relative times);
   * Date.now unless given (a test gives the clock it gave the daemon).
   */
  readonly now?: () => number;
}

/** The command's "now" (epoch ms). */
export const nowOf = (ctx: Pick<CommandContext, 'now'>): number => (ctx.now ?? Date.now)();

/** A command's module (its one-line summary is in the command list, commands/index.ts). */
export interface Command {
  readonly name: string;
  /** The full `--help` text of the command. */
  readonly usage: string;
  /** Resolves to the process exit code (see ExitCode). */
  run(ctx: CommandContext): Promise<number>;
}

/** Exit codes of the contract. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 2,
  config: 78,
  /** `plan`: the file would be held by the guard rails (nothing applied until released). */
  planWouldHold: 3,
  /** `plan`: the file would go to failed/ (nothing applied). */
  planWouldFail: 4,
} as const;
