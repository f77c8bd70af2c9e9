import { parseCommand } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';

const usage = `Usage: supplier-sync demo [--keep] [--verbose]

Shows the whole loop on this machine with nothing configured: starts the bundled simulator and a
Redis (REDIS_URL when it answers, else a private redis-server from the PATH), runs the daemon on
a temporary data dir, drops the sample files of examples/ into its inbox, and narrates: files
processed, stock pushed, shipments handed to the ERP and confirmed, failures kept for retry.
Ends with a summary and exit 0.

Options:
  --keep      keep everything running after the tour, until Ctrl-C
  --verbose   print the daemon's JSON log lines instead of the narration
  --help      this text`;

export const demoCommand: Command = {
  name: 'demo',
  usage,
  async run(ctx) {
    const { values } = parseCommand(ctx, {
      keep: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
    });
    // Loaded here, not with the CLI: the daemon (`run`) never holds the demo and the simulator.
    const { runDemo } = await import('../../demo/demo.ts');
    await runDemo({
      env: ctx.env,
      out: ctx.stdout,
      signal: ctx.signal,
      keep: values.keep,
      verbose: values.verbose,
    });
    return ExitCode.ok;
  },
};
