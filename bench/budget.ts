/**
 * Budget benchmark (not a test): a backlog larger than the hourly budget, and what share of that
 * budget the daemon spends in a bounded window, with how many 429s it meets (should be 0).
 *
 * The real daemon runs as a child process with a small API_REQUESTS_PER_HOUR (60) against the
 * simulator in this process, whose own limit is a little lower (54, sliding hour): the client must
 * honour x-ratelimit-remaining, not only its own count. The reserves are the defaults scaled to
 * the small budget (300 and 900 of 3,600 → 5 and 15 of 60). Before the daemon starts, inbox/
 * holds one DC stock CSV that differs from the portal on every row: pushing it takes more bulk
 * calls than the hour allows. Every call the simulator sees from the daemon's start until the end
 * of the window (330 s; 15 s with --quick) counts, logins aside (they have their own cap). The
 * window holds the burst, the stock lane's probes of the portal once it said its remaining calls
 * are reserved, and one shipments poll 300 s after the start.
 *
 *   node bench/budget.ts [--window-s 330] [--per-hour 60] [--portal-per-hour 54]
 *                        [--quick | --scale S] [--json]
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIVE_DC_CODES } from '../src/simulator/index.ts';
import { benchArgs, sized } from './lib/args.ts';
import { cleanupAll } from './lib/cleanup.ts';
import { startBenchDaemon } from './lib/daemon.ts';
import { emitResult, fmtInt, peakRssMiB } from './lib/result.ts';

const args = benchArgs({
  'window-s': { type: 'string' },
  'per-hour': { type: 'string' },
  'portal-per-hour': { type: 'string' },
});
// Long enough for the first shipments poll after the start one (see POLL_AFTER_S); --quick only
// sees the burst.
const windowS = sized(args.values['window-s'], args.quick ? 15 : 330 * args.scale, 1, 15);
/**
 * The shipments poll runs at start and then on SHIPMENTS_POLL_CRON (every 5 minutes by default,
 * aligned to the clock). Here it fires once, 300 s after the start — where the default would fire
 * in the worst phase — so that each run sees the same thing.
 */
const POLL_AFTER_S = 300;
const perHour = sized(args.values['per-hour'], 60, 1, 2);
const portalPerHour = sized(args.values['portal-per-hour'], Math.floor(perHour * 0.9), 1, 1);
const allowed = Math.min(perHour, portalPerHour);
const BATCH = 1000;
// A backlog of at least 1.25 hours of bulk calls, whatever the scale.
const products = Math.max(
  Math.round(50_000 * args.scale),
  Math.ceil((1.25 * perHour * BATCH) / ACTIVE_DC_CODES.length),
);
const stockReserve = Math.round((perHour * 300) / 3600);
const reconcileReserve = Math.round((perHour * 900) / 3600);

const started = performance.now();
const bench = await startBenchDaemon(
  'budget',
  { products, requestsPerHour: portalPerHour, rateWindow: 'sliding' },
  {
    API_REQUESTS_PER_HOUR: String(perHour),
    API_STOCK_RESERVE: String(stockReserve),
    API_RECONCILE_RESERVE: String(reconcileReserve),
    BULK_BATCH_SIZE: String(BATCH),
    INBOX_STABILITY_MS: '200',
    RECONCILE_CRON: '0 0 1 1 *',
  },
);

try {
  // The backlog: every DC stock row of the catalogue, each one different from the portal's.
  const store = bench.sim.store;
  const lines = ['distribution_centre_code,sku,stock_quantity'];
  for (let k = 0; k < store.dcRecordCount; k++) {
    const r = store.dcRecordAt(k);
    lines.push(`${r.distribution_centre_code},${r.sku},${r.stock_quantity + 1}`);
  }
  const backlogRows = lines.length - 1;
  mkdirSync(bench.inbox, { recursive: true });
  const temp = join(bench.inbox, '.backlog.csv.tmp');
  writeFileSync(temp, `${lines.join('\n')}\n`);
  renameSync(temp, join(bench.inbox, 'backlog.csv'));
  const backlogCalls = Math.ceil(backlogRows / BATCH);

  console.error(
    `budget: ${fmtInt(backlogRows)} DC rows (${backlogCalls} bulk calls) against ${perHour} calls/h (portal ${portalPerHour}/h), watching ${windowS} s`,
  );
  const from = Date.now();
  const poll = new Date(from + POLL_AFTER_S * 1000);
  await bench.start({
    SHIPMENTS_POLL_CRON: `${poll.getUTCSeconds()} ${poll.getUTCMinutes()} * * * *`,
    SYNC_TIMEZONE: 'UTC',
  });
  const until = from + windowS * 1000;
  await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now())));
  const daemonRss = bench.daemonPeakRssMiB();
  const daemonLines = bench.daemon?.lines ?? [];
  const clientRateLimited = daemonLines.filter((l) => l.event === 'api.rate_limited').length;
  const stats = bench.sim.stats();
  await cleanupAll();

  const seen = stats.requests.filter((r) => r.at >= from && r.at <= until);
  const calls = seen.filter((r) => r.route !== 'POST /login');
  const used = calls.filter((r) => r.status !== 429).length;
  const rateLimited = seen
    .filter((r) => r.status === 429)
    .map((r) => ({ route: r.route, atS: Number(((r.at - from) / 1000).toFixed(3)) }));
  const tooMany = rateLimited.length;
  const byRoute: Record<string, number> = {};
  for (const r of calls) byRoute[r.route] = (byRoute[r.route] ?? 0) + 1;
  const rowsPushed = calls
    .filter((r) => r.route.endsWith('/bulk-update') && r.status === 200)
    .reduce((n, r) => n + (r.items ?? 0), 0);
  const lastCallS = calls.length > 0 ? (calls.at(-1)!.at - from) / 1000 : 0;
  const share = used / allowed;

  const wallS = (performance.now() - started) / 1000;
  console.log(
    `budget: backlog ${fmtInt(backlogRows)} DC rows = ${backlogCalls} bulk calls; API_REQUESTS_PER_HOUR ${perHour} (reserves: stock ${stockReserve}, reconcile ${reconcileReserve}); portal ${portalPerHour}/h sliding; window ${windowS} s`,
  );
  console.log('');
  console.log(
    `calls answered in the window: ${used} of ${allowed} allowed (${(share * 100).toFixed(0)} %)`,
  );
  for (const [route, n] of Object.entries(byRoute)) console.log(`  ${route}: ${n}`);
  console.log(`last call ${lastCallS.toFixed(1)} s after the daemon was started`);
  console.log(`rows pushed: ${fmtInt(rowsPushed)} of ${fmtInt(backlogRows)}`);
  console.log(`429s met: ${tooMany} (daemon logged api.rate_limited ${clientRateLimited}×)`);
  for (const r of rateLimited) console.log(`  429 at ${r.atS.toFixed(1)} s: ${r.route}`);
  console.log(
    `wall ${wallS.toFixed(1)} s, peak RSS ${peakRssMiB().toFixed(0)} MiB (bench), ${daemonRss?.toFixed(0) ?? '?'} MiB (daemon)`,
  );
  if (args.json) {
    emitResult({
      name: 'budget',
      wallS,
      peakRssMiB: peakRssMiB(),
      daemonPeakRssMiB: daemonRss,
      rows: [
        {
          measure: `backlog of ${backlogCalls} bulk calls, ${perHour}/h client, ${portalPerHour}/h portal: calls in ${windowS} s (real daemon)`,
          result: `${used} calls (last at ${lastCallS.toFixed(1)} s), ${tooMany} × 429`,
          reference: `${allowed} allowed (the portal's hour)`,
          ratio: `${(share * 100).toFixed(0)} % used`,
        },
      ],
      data: {
        perHour,
        portalPerHour,
        stockReserve,
        reconcileReserve,
        windowS,
        backlogRows,
        backlogCalls,
        used,
        allowed,
        share,
        tooMany,
        rateLimited,
        clientRateLimited,
        byRoute,
        rowsPushed,
        lastCallS,
        calls: calls.map((r) => ({
          atS: Number(((r.at - from) / 1000).toFixed(3)),
          route: r.route,
          status: r.status,
        })),
      },
    });
  }
} finally {
  await cleanupAll();
}
