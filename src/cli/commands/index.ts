import type { Command } from '../command.ts';

/**
 * A command as the command list knows it: its name and one line, and its module, loaded only
 * when the command runs or shows its help. `--version`, `--help` and one command load that
 * command's modules alone — `health`, which a container runs every 30 s, not the daemon's
 * queues, HTTP client and watchers.
 */
export interface CommandEntry {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  load(): Promise<Command>;
}

/** Every command of the CLI, in the order `--help` lists them. */
export const commands: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'the daemon: watchers, schedules and workers until SIGTERM/SIGINT',
    load: async () => (await import('./runCommand.ts')).runCommand,
  },
  {
    name: 'status',
    summary:
      'healthy, degraded or needs a person; pending work and when it is done; failures, calls',
    load: async () => (await import('./statusCommand.ts')).statusCommand,
  },
  {
    name: 'failures',
    summary: 'list the items the portal rejected; put them back in line',
    load: async () => (await import('./failuresCommand.ts')).failuresCommand,
  },
  {
    name: 'files',
    summary: 'the inbox files handled, newest first: outcome, rows rejected, report',
    load: async () => (await import('./filesCommand.ts')).filesCommand,
  },
  {
    name: 'plan',
    summary: 'dry run: what a file would change and how many calls it would take',
    load: async () => (await import('./planCommand.ts')).planCommand,
  },
  {
    name: 'products',
    summary:
      "the products the daemon created and the platform's review of each (--all: every one known)",
    load: async () => (await import('./productsCommand.ts')).productsCommand,
  },
  {
    name: 'explain',
    summary: 'the story of one key: where its value came from, what was pushed, what failed',
    load: async () => (await import('./explainCommand.ts')).explainCommand,
  },
  {
    name: 'held',
    summary:
      'list what the guard rails hold (release ID applies one, reject ID moves it to failed/)',
    load: async () => (await import('./heldCommand.ts')).heldCommand,
  },
  {
    name: 'release',
    summary: 'apply a held file or snapshot read as it stands',
    load: async () => (await import('./heldCommand.ts')).releaseCommand,
  },
  {
    name: 'reject',
    summary: 'move a held file to failed/, or drop a held snapshot read',
    load: async () => (await import('./heldCommand.ts')).rejectCommand,
  },
  {
    name: 'pause',
    summary: 'pause the pushes (nothing written to the portal) until resume; survives restarts',
    load: async () => (await import('./pauseCommand.ts')).pauseCommand,
  },
  {
    name: 'resume',
    summary: 'end a pause: the daemon pushes what waited',
    load: async () => (await import('./pauseCommand.ts')).resumeCommand,
  },
  {
    name: 'api',
    summary: 'call any portal endpoint directly (JSON out)',
    load: async () => (await import('./apiCommand.ts')).apiCommand,
  },
  {
    name: 'simulate',
    summary: 'run the bundled Supplier Portal simulator (API v1, in memory)',
    load: async () => (await import('./simulateCommand.ts')).simulateCommand,
  },
  {
    name: 'demo',
    summary: 'the whole loop on this machine: simulator, daemon, sample files',
    load: async () => (await import('./demoCommand.ts')).demoCommand,
  },
  {
    name: 'health',
    summary: 'exit 0 when healthy (readiness); --live: while the daemon answers (liveness)',
    load: async () => (await import('./healthCommand.ts')).healthCommand,
  },
];
