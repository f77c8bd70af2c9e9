/**
 * `supplier-sync simulate`: runs the bundled Supplier Portal simulator until the command's signal
 * aborts. Prints one JSON line (base URL and credentials) on stdout once it listens.
 */
import { parseArgs } from 'node:util';
import type { SimulatorOptions, startSimulator } from '../../simulator/index.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD } from '../../simulator/seed.ts';
import { type Command, type CommandContext, ExitCode } from '../command.ts';

const USAGE = `Usage: supplier-sync simulate [options]

Runs the bundled Supplier Portal simulator (API v1, in memory) until SIGTERM/SIGINT.
Prints one JSON line with baseUrl, email and password once it listens.

Options:
  --port N               TCP port (default 8080; 0 = any free port)
  --host HOST            interface to listen on (default 127.0.0.1)
  --products N           seeded products, 0..5000000 (default 1000)
  --seed N               PRNG seed; same seed and sizes give the same data (default 1)
  --email EMAIL          account e-mail (default ${DEFAULT_EMAIL})
  --password PASSWORD    account password (default ${DEFAULT_PASSWORD})
  --requests-per-hour N  request budget per window, all endpoints but login (default 3600)
  --logins-per-hour N    login budget per window (default 10)
  --rate-window KIND     fixed (aligned clock hours, default) or sliding (last 3600 s)
  --max-bulk-items N     largest bulk-update array accepted (default 1000)
  --review MODE          auto (new products reviewed by the rule after the delay, default) or
                         manual (they stay pending until POST /__admin/products/{sku}/review)
  --review-delay-ms N    ms from a product's creation to its automatic review (default 5000;
                         0 = on the next read)
  --verbose              one JSON line per request on stderr
  --help                 this text

Admin endpoints (no auth): GET /__admin/state, GET /__admin/stats, GET|POST /__admin/faults, …
See docs/simulator.md.`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  products: { type: 'string' },
  seed: { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'requests-per-hour': { type: 'string' },
  'logins-per-hour': { type: 'string' },
  'rate-window': { type: 'string' },
  'max-bulk-items': { type: 'string' },
  review: { type: 'string' },
  'review-delay-ms': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

class ArgError extends Error {}

function int(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ArgError(`--${name} must be an integer in ${min}..${max}; got '${raw}'`);
  }
  return Number(raw);
}

function parse(argv: readonly string[]): {
  options: SimulatorOptions;
  help: boolean;
  verbose: boolean;
} {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (err) {
    throw new ArgError((err as Error).message);
  }
  const rateWindow = values['rate-window'];
  if (rateWindow !== undefined && rateWindow !== 'fixed' && rateWindow !== 'sliding') {
    throw new ArgError(`--rate-window must be fixed or sliding; got '${rateWindow}'`);
  }
  const review = values.review;
  if (review !== undefined && review !== 'auto' && review !== 'manual') {
    throw new ArgError(`--review must be auto or manual; got '${review}'`);
  }
  for (const name of ['email', 'password', 'host'] as const) {
    if (values[name] === '') throw new ArgError(`--${name} must not be empty`);
  }
  const options: SimulatorOptions = {
    port: int('port', values.port, 0, 65535) ?? 8080,
    host: values.host ?? '127.0.0.1',
    products: int('products', values.products, 0, 5_000_000) ?? 1000,
  };
  const seed = int('seed', values.seed, 0, 2 ** 32 - 1);
  const requestsPerHour = int('requests-per-hour', values['requests-per-hour'], 1, 1e9);
  const loginsPerHour = int('logins-per-hour', values['logins-per-hour'], 1, 1e9);
  const maxBulkItems = int('max-bulk-items', values['max-bulk-items'], 1, 1e7);
  const reviewDelayMs = int('review-delay-ms', values['review-delay-ms'], 0, 2_147_483_647);
  if (seed !== undefined) options.seed = seed;
  if (values.email !== undefined) options.email = values.email;
  if (values.password !== undefined) options.password = values.password;
  if (requestsPerHour !== undefined) options.requestsPerHour = requestsPerHour;
  if (loginsPerHour !== undefined) options.loginsPerHour = loginsPerHour;
  if (rateWindow !== undefined) options.rateWindow = rateWindow;
  if (maxBulkItems !== undefined) options.maxBulkItems = maxBulkItems;
  if (review !== undefined) options.review = review;
  if (reviewDelayMs !== undefined) options.reviewDelayMs = reviewDelayMs;
  return { options, help: values.help === true, verbose: values.verbose === true };
}

async function run(ctx: CommandContext): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(ctx.argv);
  } catch (err) {
    if (!(err instanceof ArgError)) throw err;
    ctx.stderr.write(`supplier-sync simulate: ${err.message}\n${USAGE}\n`);
    return ExitCode.usage;
  }
  if (parsed.help) {
    ctx.stdout.write(`${USAGE}\n`);
    return ExitCode.ok;
  }
  const { options } = parsed;
  if (parsed.verbose) options.log = (line) => ctx.stderr.write(`${JSON.stringify(line)}\n`);
  if (ctx.signal.aborted) return ExitCode.ok;
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    // Loaded here, not with the CLI: the daemon (`run`) never holds the simulator.
    sim = await (await import('../../simulator/index.ts')).startSimulator(options);
  } catch (err) {
    ctx.stderr.write(`supplier-sync simulate: cannot start: ${(err as Error).message}\n`);
    return ExitCode.failure;
  }
  ctx.stdout.write(
    `${JSON.stringify({
      event: 'simulator.listening',
      baseUrl: sim.baseUrl,
      origin: sim.origin,
      port: sim.port,
      email: options.email ?? DEFAULT_EMAIL,
      password: options.password ?? DEFAULT_PASSWORD,
      products: sim.store.productCount,
      admin: `${sim.origin}/__admin`,
    })}\n`,
  );
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await sim.close();
  return ExitCode.ok;
}

export const simulateCommand: Command = {
  name: 'simulate',
  usage: USAGE,
  run,
};
