import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { assess, reasonText } from '../../src/daemon/assess.ts';
import { readStatus } from '../../src/daemon/status.ts';
import { openStateDb } from '../../src/state/db.ts';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { answered, LONG_DESCRIPTION, productsCsv, reportOf } from '../helpers/productFiles.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { type Receiver, startReceiver } from '../helpers/webhookReceiver.ts';
import { freePort } from '../setup/redis.ts';

/**
 * The platform's review of the products the daemon created (docs/products.md, "The platform's
 * review"): the simulator reviews by hand here (`review: 'manual'`), an admin decides, and the
 * daemon's clock is moved on to the next look (CATALOGUE_REVIEW_INTERVAL_MS, 5 min by default).
 * A declined product is seen in `products`, the console and its JSON, `outbox/`, a notification
 * and `status`; the one activated is followed no more.
 */

const SECRET = 'whsec-review-test-31d0';
const REASON =
  "The description has 6 characters; at least 100 are required before the platform's marketing team can enrich it.";
let h: Harness | undefined;
let receiver: Receiver | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  h = receiver = dir = undefined;
});

const json = (text: string) => JSON.parse(text.slice(text.search(/[[{]/)));
const outboxFiles = (h: Harness) =>
  readdirSync(join(h.box.dataDir, 'outbox')).filter((f) => f.startsWith('products-declined-'));
const looks = (h: Harness) => h.daemon!.lines.filter((l) => l.event === 'catalogue.reviewed');

it('notices a decision within CATALOGUE_REVIEW_INTERVAL_MS and shows a declined product in products, the console, outbox/, a notification and status', async () => {
  receiver = await startReceiver(SECRET);
  dir = mkdtempSync(join(tmpdir(), 'review-'));
  writeFileSync(join(dir, 'secret'), SECRET);
  const port = await freePort();
  h = await startHarness(
    'products-review',
    { products: 50, review: 'manual' },
    {
      NOTIFY_WEBHOOK_URL: receiver.url,
      NOTIFY_WEBHOOK_SECRET_FILE: join(dir, 'secret'),
      HTTP_PORT: String(port),
      SYNC_TIMEZONE: 'Europe/Berlin',
    },
  );
  const d = await h.start();
  h.drop(
    'new-range.csv',
    productsCsv(
      ['sku', 'name', 'description', 'brand'],
      [
        ['NEW-1', 'Oak chair', LONG_DESCRIPTION, 'Hearth'],
        ['NEW-2', 'Stool', 'Stool.', 'Hearth'],
      ],
    ),
  );
  expect(await reportOf(h.box.dataDir, 'processed', 'new-range.csv', answered)).toMatchObject({
    created: 2,
    shortDescription: 1,
  });
  // The daemon now deals in products: the portal's product list is read once (50 + 2 products).
  const pass = await d.waitForEvent('catalogue.read');
  expect(pass).toMatchObject({ rows: 52, pages: 1 });
  const underReview = json((await h.cli(['products', '--json'])).stdout);
  expect(underReview.map((p: { sku: string }) => p.sku).sort()).toEqual(['NEW-1', 'NEW-2']);
  for (const p of underReview) {
    expect(p).toMatchObject({
      status: 'pending',
      platformStatus: 'inactive',
      declinedReason: null,
    });
    expect(p.createdBy).toBe('new-range.csv');
    expect(Date.parse(p.createdAt)).toBeGreaterThan(0);
  }

  // The platform decides; the daemon has not looked yet.
  h.sim.store.reviewProduct('NEW-1', 'active');
  h.sim.store.reviewProduct('NEW-2', 'declined', REASON);
  h.clock.advance(240_000);
  await h.runNow('recover');
  await h.waitForIdle(['products']);
  expect(looks(h)).toHaveLength(0);
  expect(d.lines.some((l) => l.event === 'product.declined')).toBe(false);

  // An interval after the creations: one look, by the lists filtered by platform status (one
  // page each: cheaper than, or as cheap as, one call per undecided product).
  h.clock.advance(60_000);
  await h.runNow('recover');
  const declined = await d.waitFor((l) => l.event === 'product.declined');
  expect(declined).toMatchObject({ level: 'warn', sku: 'NEW-2', reason: REASON });
  await d.waitFor((l) => l.event === 'product.activated' && l.sku === 'NEW-1');
  expect(looks(h)).toEqual([expect.objectContaining({ how: 'lists', calls: 2, undecided: 2 })]);

  // products: the declined one with its reason; --status filters.
  const list = json((await h.cli(['products', '--json', '--status', 'declined'])).stdout);
  expect(list).toEqual([
    expect.objectContaining({
      sku: 'NEW-2',
      status: 'inactive',
      platformStatus: 'declined',
      declinedReason: REASON,
      createdBy: 'new-range.csv',
    }),
  ]);
  const text = await h.cli(['products']);
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^2 products created by the daemon\n/);
  expect(text.stdout).toMatch(/NEW-2 .*DECLINED/);
  expect(text.stdout).toMatch(/declined: The description has 6 characters/);
  expect(text.stdout).toMatch(/NEW-1 .*active/);
  expect(text.stdout).toMatch(/times in Europe\/Berlin/);
  expect((await h.cli(['products', '--status', 'declined'])).stdout).toMatch(
    /^1 product created by the daemon with platform status declined\n/,
  );
  expect((await h.cli(['products', '--status', 'pending'])).stdout).toMatch(
    /^no product created by the daemon with platform status pending\n/,
  );
  expect((await h.cli(['products', '--status', 'gone'])).code).toBe(2);

  // outbox/: one file for the ERP, written once.
  await waitUntil(() => outboxFiles(h!).length === 1, { message: 'the declined-products file' });
  const file = outboxFiles(h)[0]!;
  expect(file).toMatch(/^products-declined-\d{8}T\d{9}Z-\d{6}\.json$/);
  const content = JSON.parse(readFileSync(join(h.box.dataDir, 'outbox', file), 'utf8'));
  expect(content).toMatchObject({
    count: 1,
    products: [
      {
        sku: 'NEW-2',
        platform_status: 'declined',
        declined_reason: REASON,
        created_by: 'new-range.csv',
      },
    ],
  });
  await d.waitFor((l) => l.event === 'products.declined_exported' && l.file === file);

  // The notification, its name quoted.
  await h.runNow('notifications');
  await waitUntil(() => receiver!.delivered().some((r) => r.json.event === 'product.declined'), {
    message: 'product.declined delivered',
  });
  const told = receiver.delivered().find((r) => r.json.event === 'product.declined')!;
  expect(told.signatureOk).toBe(true);
  expect(told.json.text).toBe(
    `The platform declined product \`NEW-2\` (created from \`new-range.csv\`): ${REASON}.`,
  );
  expect(told.json.details).toMatchObject({ sku: 'NEW-2', reason: REASON, outboxFile: file });

  // status: degraded, naming it, for 7 days.
  const status = await h.statusJson();
  expect(status.health.verdict).toBe('degraded');
  expect(status.health.reasons).toContainEqual(
    expect.stringMatching(
      /^1 product\(s\) the daemon created were declined by the platform's review in the last 7 days: NEW-2 \(The description has 6 characters.*\): see `supplier-sync products --status declined`$/,
    ),
  );
  expect(status.products).toMatchObject({
    toCreate: 0,
    created: 2,
    undecided: 0,
    declined: { count: 1 },
  });
  expect((await h.cli(['status'])).output).toMatch(
    /\nproducts +2 created, 0 under the platform's review, 1 declined in the last 7 days: `supplier-sync products`; /,
  );

  // The console: the Products page, its JSON in the shape of `products --json`, the status link.
  const base = `http://127.0.0.1:${port}`;
  const page = await fetch(`${base}/products?status=declined`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('<td><a href="/explain?key=factory%3ANEW-2">NEW-2</a></td>');
  expect(html).toContain('The description has 6 characters; at least 100 are required');
  expect(html).toContain('>new-range.csv</a>');
  expect(html).toMatch(/Times in Europe\/Berlin/);
  expect(html).not.toContain('NEW-1');
  const api = await (await fetch(`${base}/api/products?status=declined`)).json();
  expect(api).toEqual(list);
  expect((await fetch(`${base}/api/products?status=nope`)).status).toBe(400);
  const statusPage = await (await fetch(`${base}/`)).text();
  expect(statusPage).toContain('<a href="/products?status=declined">see the declined products</a>');

  // Seven days on (the daemon's clock), status no longer names it; the product stays listed.
  h.clock.advance(7 * 24 * 3_600_000);
  const config = loadConfig({ env: h.env });
  const db = openStateDb(join(h.box.dataDir, 'state.db'));
  try {
    const later = readStatus(db, config, h.clock.now());
    expect(later.products.declined.count).toBe(0);
    expect(assess({ status: later }).reasons.map(reasonText).join()).not.toContain('NEW-2');
  } finally {
    db.close();
  }
  expect(json((await h.cli(['products', '--json', '--status', 'declined'])).stdout)).toHaveLength(
    1,
  );
  // Decided: nothing is looked at any more, and no second file or notification.
  await h.runNow('recover');
  await h.waitForIdle(['products']);
  expect(looks(h)).toHaveLength(1);
  expect(outboxFiles(h)).toHaveLength(1);
  expect(d.lines.filter((l) => l.event === 'product.declined')).toHaveLength(1);
});
