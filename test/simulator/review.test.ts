import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../src/simulator/index.ts';
import { SEED_BRANDS, seededSku } from '../../src/simulator/seed.ts';
import { type Client, expectedApiError, startWithClient } from './helpers.ts';

/** The platform's review of products created through POST /products, on a clock the test moves. */

let sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.map((s) => s.close()));
  sims = [];
});

const START = Date.parse('2025-03-03T09:00:00Z');

async function start(options: SimulatorOptions = {}) {
  const clock = { now: START };
  const { sim, client } = await startWithClient({
    products: 40,
    now: () => clock.now,
    ...options,
  });
  sims.push(sim);
  return { sim, client, clock };
}

const LONG = 'A solid oak lamp with a linen shade. '.repeat(3); // 110 characters once trimmed
const SHORT = 'A lamp.';

function product(sku: string, description?: string) {
  return {
    sku,
    name: `Lamp ${sku}`,
    brand: SEED_BRANDS[0]!.name,
    ...(description === undefined ? {} : { description }),
  };
}

async function create(client: Client, sku: string, description?: string) {
  const r = await client.post('/products', product(sku, description));
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

async function statuses(client: Client, sku: string) {
  const r = await client.get(`/products/${sku}`);
  expect(r.status).toBe(200);
  const { status, platform_status, declined_reason } = r.body.data;
  return { status, platform_status, declined_reason };
}

const PENDING = { status: 'pending', platform_status: 'inactive', declined_reason: null };
const ACTIVE = { status: 'active', platform_status: 'active', declined_reason: null };

describe('the review of a new product', () => {
  it('is pending until the delay has passed on the simulator clock, then decided at once', async () => {
    const { client, clock } = await start({ reviewDelayMs: 60_000 });
    const created = await create(client, 'REV-1', LONG);
    expect(created).toMatchObject({ status: 'pending', platform_status: 'inactive' });
    expect(await statuses(client, 'REV-1')).toEqual(PENDING);
    clock.now += 59_999;
    expect(await statuses(client, 'REV-1')).toEqual(PENDING);
    clock.now += 1;
    expect(await statuses(client, 'REV-1')).toEqual(ACTIVE);
    // a decision sticks, whatever the clock does afterwards
    clock.now -= 120_000;
    expect(await statuses(client, 'REV-1')).toEqual(ACTIVE);
  });

  it('declines a description under 100 characters, saying so, and activates the rest', async () => {
    const { client, clock, sim } = await start({ reviewDelayMs: 1000 });
    await create(client, 'REV-SHORT', SHORT);
    await create(client, 'REV-NONE');
    await create(client, 'REV-99', `${'x'.repeat(99)}   `);
    await create(client, 'REV-100', 'é'.repeat(100));
    await create(client, 'REV-EMOJI', '🌿'.repeat(60)); // 120 UTF-16 units, 60 characters
    await create(client, 'REV-LONG', LONG);
    clock.now += 1000;
    const declined = await statuses(client, 'REV-SHORT');
    expect(declined).toEqual({
      status: 'inactive',
      platform_status: 'declined',
      declined_reason:
        "The description has 7 characters; at least 100 are required before the platform's marketing team can enrich it.",
    });
    expect((await statuses(client, 'REV-NONE')).declined_reason).toMatch(/has 0 characters/);
    expect((await statuses(client, 'REV-99')).platform_status).toBe('declined');
    expect(await statuses(client, 'REV-100')).toEqual(ACTIVE);
    expect((await statuses(client, 'REV-EMOJI')).declined_reason).toMatch(/has 60 characters/);
    expect(await statuses(client, 'REV-LONG')).toEqual(ACTIVE);
    expect(sim.store.review('REV-SHORT')).toMatchObject({
      stage: 'decided',
      decision: 'declined',
      decided_by: 'rule',
      created_at: new Date(START).toISOString(),
      decided_at: new Date(START + 1000).toISOString(),
    });
  });

  it('with a delay of 0 is decided on the next read, the creation answer still pending', async () => {
    const { client, sim } = await start({ reviewDelayMs: 0 });
    const created = await create(client, 'REV-0', SHORT);
    expect(created).toMatchObject({ status: 'pending', platform_status: 'inactive' });
    expect(sim.store.product('REV-0')).toMatchObject({ platform_status: 'declined' });
  });

  it('is applied to the lists: the platform_status and status filters and the list items', async () => {
    const { client, clock, sim } = await start({ reviewDelayMs: 5000 });
    await create(client, 'LIST-A', LONG);
    await create(client, 'LIST-D', SHORT);
    const skus = async (query: string) => {
      const r = await client.get(`/products?${query}&search=list-`);
      expect(r.status).toBe(200);
      return r.body.data.map((p: { sku: string }) => p.sku);
    };
    expect(await skus('platform_status=inactive')).toEqual(['LIST-A', 'LIST-D']);
    expect(await skus('platform_status=active')).toEqual([]);
    clock.now += 5000;
    expect(await skus('platform_status=inactive')).toEqual([]);
    expect(await skus('platform_status=active')).toEqual(['LIST-A']);
    expect(await skus('platform_status=declined')).toEqual(['LIST-D']);
    expect(await skus('status=active')).toEqual(['LIST-A']);
    expect(await skus('status=inactive')).toEqual(['LIST-D']);
    const page = await client.get('/products?platform_status=declined&search=list-d');
    expect(page.body.data[0]).toMatchObject({ sku: 'LIST-D', declined_reason: /7 characters/ });
    const admin = await client.admin('GET', `/state?kind=products&offset=${40}&limit=2`);
    expect(admin.body.data.map((p: { platform_status: string }) => p.platform_status)).toEqual([
      'active',
      'declined',
    ]);
    expect(sim.store.productCount).toBe(42);
  });

  it('gives the same outcomes, platform SKUs and times for the same inputs', async () => {
    const run = async () => {
      const { client, clock } = await start({ seed: 7, reviewDelayMs: 2000 });
      const out: unknown[] = [];
      for (const [i, d] of [
        LONG,
        SHORT,
        undefined,
        LONG.slice(0, 100),
        LONG.slice(0, 99),
      ].entries()) {
        const created = await create(client, `DET-${i}`, d);
        clock.now += 700;
        out.push(created.platform_sku, await statuses(client, `DET-${i}`));
      }
      clock.now += 2000;
      for (let i = 0; i < 5; i++) out.push(await statuses(client, `DET-${i}`));
      return out;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    expect(a.slice(-5).map((s) => (s as { platform_status: string }).platform_status)).toEqual([
      'active',
      'declined',
      'declined',
      'active',
      'declined',
    ]);
  });
});

describe('admin controls of the review', () => {
  it('decides a product through POST /__admin/products/{sku}/review, with or without a reason', async () => {
    const { client, sim } = await start({ reviewDelayMs: 60_000 });
    await create(client, 'ADM-1', LONG);
    await create(client, 'ADM-2', LONG);
    const declined = await client.admin('POST', '/products/ADM-1/review', {
      decision: 'declined',
      reason: 'Images are missing.',
    });
    expect(declined.status).toBe(200);
    expect(declined.body.product).toMatchObject({
      sku: 'ADM-1',
      status: 'inactive',
      platform_status: 'declined',
      declined_reason: 'Images are missing.',
    });
    expect(declined.body.review).toMatchObject({ stage: 'decided', decided_by: 'admin' });
    expect(await statuses(client, 'ADM-1')).toMatchObject({
      declined_reason: 'Images are missing.',
    });
    const byDefault = await client.admin('POST', '/products/ADM-2/review', {
      decision: 'declined',
    });
    expect(byDefault.body.product.declined_reason).toBe("Declined by the platform's review.");
    // decided again, by the platform ID this time
    const { platform_sku } = sim.store.product('ADM-2')!;
    const active = await client.admin('POST', `/products/${platform_sku}/review`, {
      decision: 'active',
    });
    expect(active.body.product).toMatchObject({ sku: 'ADM-2', ...ACTIVE });
    const read = await client.admin('GET', '/products/ADM-2/review');
    expect(read.body).toEqual(active.body);
  });

  it('decides from the in-process API too, seeded products included', async () => {
    const { client, sim, clock } = await start({ reviewDelayMs: 10 });
    await create(client, 'INP-1', SHORT);
    expect(sim.store.reviewProduct('INP-1', 'active')).toMatchObject(ACTIVE);
    clock.now += 10;
    expect(await statuses(client, 'INP-1')).toEqual(ACTIVE);
    const seeded = seededSku(3);
    sim.store.reviewProduct(seeded, 'declined', 'Not sold on this platform.');
    expect(await statuses(client, seeded)).toEqual({
      status: 'inactive',
      platform_status: 'declined',
      declined_reason: 'Not sold on this platform.',
    });
    expect(sim.store.review(seeded)).toBeUndefined();
    const r = await client.admin('GET', `/products/${seeded}/review`);
    expect(r.body).toMatchObject({ product: { sku: seeded }, review: null });
  });

  it('holds a review until decided, and releases it to the rule', async () => {
    const { client, clock, sim } = await start({ reviewDelayMs: 1000 });
    await create(client, 'HOLD-1', LONG);
    await create(client, 'HOLD-2', LONG);
    const held = await client.admin('POST', '/products/HOLD-1/review', { hold: true });
    expect(held.status).toBe(200);
    expect(held.body.review).toMatchObject({ stage: 'held', due_at: null });
    sim.store.holdReview('HOLD-2');
    clock.now += 3_600_000;
    expect(await statuses(client, 'HOLD-1')).toEqual(PENDING);
    expect(await statuses(client, 'HOLD-2')).toEqual(PENDING);
    await client.admin('POST', '/products/HOLD-1/review', { decision: 'active' });
    expect(await statuses(client, 'HOLD-1')).toEqual(ACTIVE);
    const released = await client.admin('POST', '/products/HOLD-2/review', { hold: false });
    expect(released.body.product).toMatchObject(ACTIVE);
    expect(released.body.review).toMatchObject({ stage: 'decided', decided_by: 'rule' });
    const late = await client.admin('POST', '/products/HOLD-2/review', { hold: true });
    expect(late.status).toBe(409);
    expect(late.body).toEqual(expectedApiError('already_reviewed', 'hold'));
  });

  it('holds every new product under the manual policy, set at start or at run time', async () => {
    const { client, clock } = await start({ review: 'manual', reviewDelayMs: 0 });
    await create(client, 'MAN-1', LONG);
    clock.now += 86_400_000;
    expect(await statuses(client, 'MAN-1')).toEqual(PENDING);
    expect((await client.admin('GET', '/products/MAN-1/review')).body.review.stage).toBe('held');
    const policy = await client.admin('POST', '/review-policy', { mode: 'auto', delayMs: 500 });
    expect(policy.body).toEqual({ mode: 'auto', delayMs: 500 });
    await create(client, 'AUTO-1', SHORT);
    clock.now += 500;
    expect((await statuses(client, 'AUTO-1')).platform_status).toBe('declined');
    expect(await statuses(client, 'MAN-1')).toEqual(PENDING);
    expect((await client.admin('GET', '/review-policy')).body).toEqual(policy.body);
  });

  it('refuses bad admin bodies naming the field, and unknown products', async () => {
    const { client } = await start();
    await create(client, 'BAD-1', LONG);
    const cases: Array<[string, unknown, number, string, string]> = [
      ['/products/BAD-1/review', { decision: 'approved' }, 400, 'invalid_parameter', 'decision'],
      ['/products/BAD-1/review', {}, 400, 'invalid_parameter', 'decision'],
      [
        '/products/BAD-1/review',
        { decision: 'active', reason: 'x' },
        400,
        'invalid_parameter',
        'reason',
      ],
      [
        '/products/BAD-1/review',
        { decision: 'declined', reason: ' ' },
        400,
        'invalid_parameter',
        'reason',
      ],
      ['/products/BAD-1/review', { hold: 'yes' }, 400, 'invalid_parameter', 'hold'],
      [
        '/products/BAD-1/review',
        { hold: true, decision: 'active' },
        400,
        'invalid_parameter',
        'decision',
      ],
      ['/products/NOPE/review', { decision: 'active' }, 404, 'not_found', 'sku'],
      ['/products/NOPE/review', { hold: true }, 404, 'not_found', 'sku'],
      [`/products/${seededSku(0)}/review`, { hold: true }, 404, 'not_found', 'sku'],
      ['/review-policy', { mode: 'later' }, 400, 'invalid_parameter', 'mode'],
      ['/review-policy', { delayMs: -1 }, 400, 'invalid_parameter', 'delayMs'],
      ['/review-policy', { speed: 1 }, 400, 'invalid_parameter', 'speed'],
    ];
    for (const [path, body, status, code, field] of cases) {
      const r = await client.admin('POST', path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(r.body).toEqual(expectedApiError(code, field));
    }
    expect((await client.admin('GET', '/products/NOPE/review')).status).toBe(404);
    expect(await statuses(client, 'BAD-1')).toEqual(PENDING);
  });

  it('refuses a bad review option at start', async () => {
    await expect(start({ reviewDelayMs: -5 })).rejects.toThrow(RangeError);
    await expect(start({ review: 'later' as never })).rejects.toThrow(/review mode/);
  });
});
