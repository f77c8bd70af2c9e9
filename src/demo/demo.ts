import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { budgetStatus } from '../api/index.ts';
import { dataPaths, loadConfig, maskUrlPassword } from '../config/index.ts';
import { startDaemon } from '../daemon/daemon.ts';
import { productsList } from '../daemon/views.ts';
import { when, zoneName } from '../domain/humanTime.ts';
import { rejectHeld } from '../inventory/index.ts';
import { createLogger } from '../log/logger.ts';
import { startSimulator } from '../simulator/index.ts';
import { DEFAULT_EMAIL, DEFAULT_PASSWORD } from '../simulator/seed.ts';
import { openStateDb } from '../state/db.ts';
import { HeldStore } from '../state/inbox/heldStore.ts';
import { ConfirmationSends } from '../state/shipments/confirmationSends.ts';
import { StockFailures } from '../state/stock/stockFailures.ts';
import { Narrator } from './narrator.ts';
import { demoRedis } from './redis.ts';

export interface DemoOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly out: NodeJS.WritableStream;
  readonly signal: AbortSignal;
  /** Keep the daemon and the simulator running after the tour, until SIGINT/SIGTERM. */
  readonly keep: boolean;
  /** Print the daemon's JSON log lines instead of the narration. */
  readonly verbose: boolean;
}

/** How far ahead of the start the tour's shipments deadline lies (past the confirmations). */
const DEADLINE_AHEAD_MS = 25_000;

/** How soon the simulated platform decides a new product, and how often the daemon looks. */
const REVIEW_DELAY_MS = 3000;
const REVIEW_INTERVAL_MS = 4000;

/** The sample files the tour drops (also the README's examples). */
const EXAMPLES = new URL('../../examples/', import.meta.url);

/**
 * The whole loop on this machine: the simulator, Redis, and the daemon on a fresh data dir; sample
 * stock files in, stock pushed, new products created and reviewed, shipments out to the ERP,
 * confirmations back, a failure listed.
 */
export async function runDemo(o: DemoOptions): Promise<void> {
  const say = (text = '') => o.out.write(`${text}\n`);
  // The platform reviews a new product 3 s after its creation (a description under 100
  // characters is declined); the daemon looks every 4 s (CATALOGUE_REVIEW_INTERVAL_MS below).
  const sim = await startSimulator({ products: 1000, reviewDelayMs: REVIEW_DELAY_MS });
  const cleanups: Array<() => Promise<void>> = [() => sim.close()];
  try {
    const redis = await demoRedis(o.env);
    cleanups.unshift(() => redis.stop());
    const dataDir = mkdtempSync(join(tmpdir(), 'supplier-sync-demo-'));
    say('supplier-sync demo');
    say(`  simulator: ${sim.baseUrl} (1,000 seeded products, 3 active distribution centres)`);
    say(`  redis:     ${maskUrlPassword(redis.url)} (${redis.origin})`);
    say(`  data dir:  ${dataDir}`);
    say();

    // A shipments deadline a little ahead, to show what happens to orders the ERP leaves unconfirmed.
    const deadlineAt = Date.now() + DEADLINE_AHEAD_MS;
    const deadline = new Date(deadlineAt).toISOString().slice(11, 19);
    const narrator = new Narrator(o.out, o.verbose);
    const log = createLogger({ destination: narrator.stream, pretty: false, level: 'info' });
    const config = loadConfig({
      env: {
        SUPPLIER_API_URL: sim.baseUrl,
        SUPPLIER_EMAIL: DEFAULT_EMAIL,
        SUPPLIER_PASSWORD: DEFAULT_PASSWORD,
        REDIS_URL: redis.url,
        REDIS_CLUSTER: String(redis.cluster),
        SYNC_DATA_DIR: dataDir,
        SYNC_QUEUE_PREFIX: `demo-${randomBytes(3).toString('hex')}`,
        INBOX_STABILITY_MS: '300',
        INBOX_SCAN_INTERVAL_MS: '2000',
        SHIPMENTS_POLL_CRON: '*/20 * * * * *',
        SHIPMENTS_DEADLINE: deadline,
        CATALOGUE_REVIEW_INTERVAL_MS: String(REVIEW_INTERVAL_MS),
      },
    });
    const daemon = await startDaemon({ config, log });
    cleanups.unshift(() => daemon.stop('demo finished'));

    say('1. The ERP drops two stock files into inbox/ (one row of each is bad on purpose).');
    for (const name of ['factory-stock.csv', 'dc-stock.json'])
      dropIntoInbox(dataDir, name, join(EXAMPLES.pathname, name));
    await narrator.waitFor(
      (l) => l.event === 'file.processed' || l.event === 'file.failed',
      'both stock files',
      2,
    );
    await narrator.waitFor((l) => l.event === 'sync.pushed', 'the stock push');
    say();

    await newProducts(
      dataDir,
      narrator,
      say,
      config.timezone,
      (sku) => sim.store.factoryStock(sku)?.stock_quantity,
    );
    say();

    await guardRails(dataDir, narrator, say, (sku) => sim.store.factoryStock(sku)?.stock_quantity);
    say();

    say('4. The daemon polls the orders ready to ship today and hands them to the ERP (outbox/).');
    const [exported] = await narrator.waitFor(
      (l) => l.event === 'shipments.exported',
      'the ready-to-ship export',
    );
    const file = String(exported?.file);
    const orders = (
      JSON.parse(readFileSync(join(dataPaths(dataDir).outbox, file), 'utf8')) as {
        shipments: Array<{ order_number: string }>;
      }
    ).shipments.map((s) => s.order_number);
    say();

    say(
      '5. The ERP ships three of them and drops its confirmations (plus one for an unknown order).',
    );
    const rows = [
      'order_number,carrier,tracking_number,is_collected,action',
      `${orders[0]},DPD,DPD-${randomBytes(4).toString('hex')},false,shipped`,
      `${orders[1]},UPS,1Z${randomBytes(5).toString('hex')},true,shipped`,
      `${orders[2]},DHL,JD${randomBytes(5).toString('hex')},,collected`,
      'ORD-DOES-NOT-EXIST,DPD,DPD-000,false,shipped',
    ];
    dropContent(dataDir, 'confirmations.csv', `${rows.join('\n')}\n`);
    await narrator.waitFor((l) => l.event === 'shipment.confirmed', 'three confirmations', 3);
    await narrator.waitFor(
      (l) => l.event === 'shipment.confirm_failed',
      'the refused confirmation',
    );
    say();

    say(
      `6. The shipments deadline (SHIPMENTS_DEADLINE=${deadline}, UTC here) passes: the daemon names the orders handed over today that the ERP has not confirmed.`,
    );
    await narrator.waitFor(
      (l) => l.event === 'shipments.overdue' || l.event === 'shipments.deadline_met',
      'the shipments deadline',
    );
    say();

    say(
      `7. What the portal rejected is kept for retry (supplier-sync failures; times in ${zoneName(config.timezone, Date.now())}):`,
    );
    const paths = dataPaths(dataDir);
    const db = openStateDb(paths.stateDb);
    try {
      for (const f of new StockFailures(db).list())
        say(
          `  ${f.key}  quantity ${f.quantity}  ${f.error}  (next try ${when(f.nextAttemptAt, Date.now(), config.timezone)})`,
        );
      for (const c of new ConfirmationSends(db).failures())
        say(`  ${c.key}  ${c.status}: ${c.error ?? ''}`);
      const pushed = narrator.lines
        .filter((l) => l.event === 'sync.pushed')
        .reduce((n, l) => n + Number(l.updated ?? 0), 0);
      const budget = budgetStatus(db, config, Date.now());
      const failures =
        new StockFailures(db).count().total + new ConfirmationSends(db).failures().length;
      const created = productsList(db).length;
      const declined = productsList(db, { status: 'declined' }).length;
      say();
      say(
        `Summary: ${budget.usedLastHour} portal calls used (of ${budget.limit} an hour), ${pushed} stock items pushed, ${created} products created (${declined} declined by the platform), ${failures} failure(s) kept for retry.`,
      );
      say(
        `Reports are in ${paths.processed} and ${paths.failed}; the ERP's files in ${paths.outbox}.`,
      );
    } finally {
      db.close();
    }
    if (o.keep) {
      say();
      say(
        `Still running (--keep): drop files into ${dataPaths(dataDir).inbox}; the portal is at ${sim.baseUrl}. Ctrl-C stops.`,
      );
      if (!o.signal.aborted) await once(o.signal, 'abort');
    }
  } finally {
    for (const c of cleanups) await c().catch(() => {});
  }
}

/**
 * New products: the ERP drops its products file (a new brand among them; SKU-NOT-ON-PORTAL, whose
 * stock came back "Product not found" in step 1, is one); the daemon creates them, the stock that
 * waited goes out with its product, the platform reviews them and declines the one with a short
 * description, and the operator sees why: `supplier-sync products`, and the file in outbox/.
 */
async function newProducts(
  dataDir: string,
  narrator: Narrator,
  say: (t?: string) => void,
  timezone: string,
  onPortal: (sku: string) => number | undefined,
) {
  say('2. The ERP drops its new products (three, a new brand among them). SKU-NOT-ON-PORTAL is');
  say('   one: its stock of 7 waited for it since step 1.');
  dropIntoInbox(dataDir, 'products.csv', join(EXAMPLES.pathname, 'products.csv'));
  await narrator.waitFor((l) => l.event === 'product.created', 'the three new products', 3);
  say(
    `   The portal holds ${onPortal('SKU-NOT-ON-PORTAL')} of SKU-NOT-ON-PORTAL: the stock that waited went out with its product.`,
  );
  say(
    `   The platform reviews them (here ${REVIEW_DELAY_MS / 1000} s after their creation); the daemon looks every ${REVIEW_INTERVAL_MS / 1000} s.`,
  );
  await narrator.waitFor(
    (l) => l.event === 'product.declined' || l.event === 'product.activated',
    'the review of the three products',
    3,
  );
  const [exported] = await narrator.waitFor(
    (l) => l.event === 'products.declined_exported',
    'the declined products file',
  );
  const db = openStateDb(dataPaths(dataDir).stateDb);
  try {
    say('   supplier-sync products:');
    for (const p of productsList(db)) {
      const review =
        p.platformStatus === 'declined'
          ? 'DECLINED'
          : p.platformStatus === 'active'
            ? 'active'
            : 'under review';
      say(
        `     ${p.sku}  ${p.platformSku ?? '-'}  ${review}  from ${p.createdBy ?? '?'}, ${when(Date.parse(p.createdAt ?? ''), Date.now(), timezone)}`,
      );
      if (p.declinedReason !== null) say(`       declined: ${p.declinedReason}`);
    }
  } finally {
    db.close();
  }
  const file = String(exported?.file);
  const content = JSON.parse(readFileSync(join(dataPaths(dataDir).outbox, file), 'utf8')) as {
    products: Array<{ sku: string; declined_reason: string }>;
  };
  say(
    `   For the ERP, outbox/${file}: ${content.products.map((p) => p.sku).join(', ')}, each with its reason.`,
  );
}

/** Seeded SKUs of the simulator that the guard rails step uses (apart from the sample files'). */
const RANGE = Array.from({ length: 100 }, (_, i) => `SKU-${String(101 + i).padStart(7, '0')}`);

/**
 * The guard rails: the ERP's range goes to the portal, then a night job that went wrong zeroes
 * most of it; the file is held (nothing sent), listed as `supplier-sync held` lists it, and
 * rejected as an operator would with `supplier-sync reject ID`.
 */
async function guardRails(
  dataDir: string,
  narrator: Narrator,
  say: (t?: string) => void,
  onPortal: (sku: string) => number | undefined,
) {
  say('3. Guard rails: the ERP sends its range (100 SKUs); then a night job goes wrong and sends');
  say('   the same range with 90 of them at 0. Pushed, that would take the range off sale.');
  dropContent(
    dataDir,
    'range.csv',
    `sku,stock_quantity\n${RANGE.map((s, i) => `${s},${500 + (i % 7)}`).join('\n')}\n`,
  );
  // Pushes are nudges that may cover several files: wait until the portal holds the range.
  const deadline = Date.now() + 30_000;
  while (!RANGE.every((sku, i) => onPortal(sku) === 500 + (i % 7))) {
    if (Date.now() > deadline) throw new Error('the demo waited 30 s for the range on the portal');
    await new Promise((r) => setTimeout(r, 100));
  }
  dropContent(
    dataDir,
    'range-night.csv',
    `sku,stock_quantity\n${RANGE.map((s, i) => `${s},${i < 90 ? 0 : 500 + (i % 7)}`).join('\n')}\n`,
  );
  const [held] = await narrator.waitFor((l) => l.event === 'file.held', 'the held file');
  const db = openStateDb(dataPaths(dataDir).stateDb);
  try {
    say('   supplier-sync held:');
    for (const e of new HeldStore(db).open()) say(`     ${e.id}  ${e.name}  ${e.reason}`);
    say(
      `   Nothing of it was sent: the portal still holds ${onPortal(RANGE[0]!)} of ${RANGE[0]}. The operator looks and rejects it:`,
    );
    say(`   supplier-sync reject ${String(held?.heldId)}`);
    const log = createLogger({ destination: narrator.stream, pretty: false, level: 'info' });
    await rejectHeld({ db, dataDir, now: Date.now, log }, Number(held?.heldId));
  } finally {
    db.close();
  }
}

/** Copies a file into inbox/ the way an ERP should: a temporary name, then a rename. */
function dropIntoInbox(dataDir: string, name: string, from: string): void {
  const temp = join(dataPaths(dataDir).inbox, `${name}.part`);
  copyFileSync(from, temp);
  renameSync(temp, join(dataPaths(dataDir).inbox, name));
}

function dropContent(dataDir: string, name: string, content: string): void {
  const temp = join(dataPaths(dataDir).inbox, `${name}.part`);
  writeFileSync(temp, content);
  renameSync(temp, join(dataPaths(dataDir).inbox, name));
}
