// Screenshots of each console page into docs/console/ (npm run screenshots): a daemon and a
// simulator in this process, a few files that show each state (applied, rejected rows, failed,
// held, a failure, shipments overdue, new products: one activated, one declined), the system's
// Chromium. Redis: REDIS_URL, else a private
// redis-server as the demo starts one.
import { mkdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { demoRedis } from '../src/demo/redis.ts';
import {
  CHROMIUM_ARGS,
  CONSOLE_PASSWORD,
  factoryCsv,
  findChromium,
  keys,
  type Scene,
  seededSku,
  startScene,
  waitFor,
} from '../test/console/scene.ts';

const OUT = new URL('../docs/console/', import.meta.url).pathname;
const PRODUCTS = new URL('../examples/products.csv', import.meta.url).pathname;

async function stage(scene: Scene): Promise<void> {
  const portal = (i: number) => scene.sim.store.factoryStock(seededSku(i))?.stock_quantity;
  const has = (event: string, file: string) =>
    scene.lines().some((l) => l.event === event && l.file === file);
  scene.drop(
    'items-0600.csv',
    factoryCsv(keys(0, 60).map((i) => [seededSku(i), 100 + i] as const)),
    new Date(Date.now() - 300_000),
  );
  await waitFor(() => keys(0, 60).every((i) => portal(i) === 100 + i), 'the first file applied');
  scene.drop(
    'items-0700.csv',
    factoryCsv([
      [seededSku(1), 12],
      [seededSku(2), 'twelve'],
      [seededSku(3), 4.5],
      ['NOT-ON-PORTAL', 4],
    ]),
    new Date(Date.now() - 240_000),
  );
  await waitFor(() => has('file.processed', 'items-0700.csv'), 'the file with bad rows');
  scene.drop('export-notes.csv', 'colour,size\nred,XL\n');
  await waitFor(() => has('file.failed', 'export-notes.csv'), 'the failed file');
  scene.drop(
    'items-0800.csv',
    factoryCsv(keys(0, 60).map((i) => [seededSku(i), i < 55 ? 0 : 100 + i] as const)),
    new Date(Date.now() - 60_000),
  );
  await waitFor(() => has('file.held', 'items-0800.csv'), 'the held file');
  await waitFor(
    () => scene.lines().some((l) => l.event === 'stock.item_failed'),
    'the unknown SKU refused',
  );
  await waitFor(() => scene.lines().some((l) => l.event === 'shipments.exported'), 'shipments');
  // The ERP's new products (examples/products.csv): the lamp's short description is declined by
  // the platform's review, the rest activated.
  scene.drop('new-products.csv', readFileSync(PRODUCTS, 'utf8'));
  await waitFor(
    () => scene.lines().some((l) => l.event === 'product.declined'),
    'a product declined',
  );
}

async function main(): Promise<void> {
  const executablePath = findChromium();
  if (executablePath === undefined)
    throw new Error('no Chromium found: apt-get install chromium, or set CHROMIUM_PATH');
  mkdirSync(OUT, { recursive: true });
  const redis = await demoRedis(process.env);
  const scene = await startScene({
    redisUrl: redis.url,
    prefix: `screenshots-${process.pid}`,
    password: true,
    // The review is looked at every second while a created product is undecided.
    env: {
      GUARD_MIN_KEYS: '50',
      SHIPMENTS_DEADLINE: '00:00',
      CATALOGUE_REVIEW_INTERVAL_MS: '1000',
    },
  });
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS, headless: true });
  try {
    await stage(scene);
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const shot = async (name: string) => {
      await page.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
      console.log(`docs/console/${name}.png`);
    };
    await page.goto(`${scene.url}/login`);
    await shot('login');
    await page.fill('input[name=password]', CONSOLE_PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('p.verdict');
    await shot('status');
    for (const [path, name] of [
      ['/files', 'files'],
      ['/held', 'held'],
      ['/failures', 'failures'],
      ['/shipments', 'shipments'],
      ['/products', 'products'],
      [`/explain?key=${encodeURIComponent(`factory:${seededSku(2)}`)}`, 'explain'],
    ] as const) {
      await page.goto(`${scene.url}${path}`);
      await shot(name);
    }
    await page.goto(`${scene.url}/files`);
    await page.click('a:has-text("items-0700.csv")');
    await shot('file');
  } finally {
    await browser.close();
    await scene.stop();
    await redis.stop();
  }
}

await main();
