import { describe, expect, it } from 'vitest';
import { assess, reasonText } from '../../../src/daemon/assess.ts';
import { declinedNotification } from '../../../src/domain/notification.ts';
import {
  CATALOGUE_READ_EVERY_MS,
  catalogueReadDue,
  decisionOf,
  expectedListPages,
  nextReviewAt,
  reviewMethod,
} from '../../../src/products/decide/reviewPlan.ts';
import { declinedFileContent, declinedFileName } from '../../../src/products/declinedOutbox.ts';
import type { CatalogueEntry } from '../../../src/state/products/catalogueStore.ts';

/** The review's pure decisions (src/products/decide/reviewPlan.ts) and what a decision writes. */

const created = { createdByDaemon: true, platformStatus: 'inactive' };

describe('what a status read means', () => {
  it('is a decision once, for a product the daemon created that turned active or declined', () => {
    expect(decisionOf(created, 'declined')).toBe('declined');
    expect(decisionOf(created, 'active')).toBe('active');
    expect(decisionOf({ ...created, platformStatus: 'declined' }, 'declined')).toBeNull();
    expect(decisionOf({ ...created, platformStatus: 'declined' }, 'active')).toBe('active');
    expect(decisionOf(created, 'pending')).toBeNull();
    expect(decisionOf(created, undefined)).toBeNull();
    expect(decisionOf({ createdByDaemon: false, platformStatus: null }, 'declined')).toBeNull();
    expect(decisionOf(undefined, 'declined')).toBeNull();
  });
});

describe('when the review is looked at', () => {
  it('an interval after the last look, or after the oldest undecided creation when later', () => {
    const interval = 300_000;
    expect(nextReviewAt({ lastLookAt: null, oldestUndecidedAt: null, intervalMs: interval })).toBe(
      null,
    );
    expect(nextReviewAt({ lastLookAt: null, oldestUndecidedAt: 1000, intervalMs: interval })).toBe(
      301_000,
    );
    expect(nextReviewAt({ lastLookAt: 5000, oldestUndecidedAt: 1000, intervalMs: interval })).toBe(
      305_000,
    );
    // A look long before the product existed does not make the next one due at once.
    expect(nextReviewAt({ lastLookAt: 10, oldestUndecidedAt: 9000, intervalMs: interval })).toBe(
      309_000,
    );
  });
});

describe('how the review is looked at', () => {
  it('by the lists filtered by platform status unless one call per product is fewer calls', () => {
    const small = expectedListPages(undefined, { declined: 3, active: 40 });
    expect(small).toEqual({ declined: 1, active: 1 });
    expect(reviewMethod(1, small)).toBe('each');
    expect(reviewMethod(2, small)).toBe('lists');
    expect(reviewMethod(40, small)).toBe('lists');
    // 100,000 products, 80 % active: the active list alone is 800 pages.
    const large = expectedListPages(undefined, { declined: 5000, active: 80_000 });
    expect(large).toEqual({ declined: 50, active: 800 });
    expect(reviewMethod(100, large)).toBe('each');
    expect(reviewMethod(850, large)).toBe('lists');
  });

  it('counts on the pages the lists took when read whole, or more when the catalogue says so', () => {
    expect(expectedListPages({ declined: 2, active: 9 }, { declined: 0, active: 0 })).toEqual({
      declined: 2,
      active: 9,
    });
    expect(expectedListPages({ declined: 2, active: 9 }, { declined: 450, active: 10 })).toEqual({
      declined: 5,
      active: 9,
    });
  });
});

describe('when the catalogue is read', () => {
  const now = 1_800_000_000_000;
  it('goes on with a pass in progress, and starts one 20 h after the last once products matter', () => {
    expect(catalogueReadDue({ inProgress: true, wanted: false, lastStartedAt: now, now })).toEqual({
      due: true,
      at: now,
    });
    expect(
      catalogueReadDue({ inProgress: false, wanted: false, lastStartedAt: null, now }),
    ).toEqual({ due: false, at: null });
    expect(catalogueReadDue({ inProgress: false, wanted: true, lastStartedAt: null, now })).toEqual(
      { due: true, at: now },
    );
    const last = now - CATALOGUE_READ_EVERY_MS + 1;
    expect(catalogueReadDue({ inProgress: false, wanted: true, lastStartedAt: last, now })).toEqual(
      { due: false, at: now + 1 },
    );
    expect(CATALOGUE_READ_EVERY_MS).toBeLessThan(24 * 3_600_000);
  });
});

describe('what a declined product writes', () => {
  const at = Date.UTC(2026, 4, 1, 10, 11, 12, 345);
  const product: CatalogueEntry = {
    sku: 'NEW-2',
    platformSku: '123.456.789',
    name: 'Stool',
    status: 'inactive',
    platformStatus: 'declined',
    declinedReason: 'Too short.',
    createdByDaemon: true,
    createdAt: at - 600_000,
    createdFileId: 4,
    createdBy: 'new-range.csv',
    seenAt: at,
    statusAt: at,
  };

  it('a file for the ERP, named by time, in the API field names', () => {
    expect(declinedFileName(at, 7)).toBe('products-declined-20260501T101112345Z-000007.json');
    expect(
      JSON.parse(declinedFileContent([{ product, reason: 'Too short.', noticedAt: at }], at)),
    ).toEqual({
      generated_at: '2026-05-01T10:11:12.345Z',
      count: 1,
      products: [
        {
          sku: 'NEW-2',
          platform_sku: '123.456.789',
          name: 'Stool',
          status: 'inactive',
          platform_status: 'declined',
          declined_reason: 'Too short.',
          declined_at: '2026-05-01T10:11:12.345Z',
          created_at: '2026-05-01T10:01:12.345Z',
          created_by: 'new-range.csv',
        },
      ],
    });
  });

  it('a notification whose names a chat tool shows as text', () => {
    const n = declinedNotification(
      {
        sku: 'SKU-<@here>',
        platformSku: null,
        name: null,
        reason: 'See <http://x|here> @channel',
        createdBy: 'drop`s.csv',
        createdAt: null,
        outboxFile: 'products-declined-x.json',
      },
      at,
    );
    expect(n.event).toBe('product.declined');
    expect(n.text).toBe(
      'The platform declined product `SKU-&lt;@here&gt;` (created from `dropˋs.csv`): See &lt;http://x|here&gt; @\u2060channel.',
    );
    expect(n.details).toMatchObject({ sku: 'SKU-<@here>', outboxFile: 'products-declined-x.json' });
  });
});

describe('status', () => {
  it('is degraded by products declined in the last 7 days, naming them', () => {
    const base = assess({ status: statusWith(0, []) });
    expect(base.verdict).toBe('healthy');
    const recent = ['A-1', 'A-2', 'A-3', 'A-4'].map((sku) => ({
      sku,
      reason: 'x'.repeat(120),
      noticedAt: 1,
      outboxFile: null,
    }));
    const a = assess({ status: statusWith(4, recent) });
    expect(a.verdict).toBe('degraded');
    expect(a.reasons[0]?.about).toBe('products');
    expect(reasonText(a.reasons[0]!)).toBe(
      `4 product(s) the daemon created were declined by the platform's review in the last 7 days: A-1 (${'x'.repeat(79)}…); A-2 (${'x'.repeat(79)}…); A-3 (${'x'.repeat(79)}…), and 1 more: see \`supplier-sync products --status declined\``,
    );
  });
});

// biome-ignore lint/suspicious/noExplicitAny: a status built for assess, only what it reads set
function statusWith(count: number, recent: any[]): any {
  const now = 1_800_000_000_000;
  return {
    at: now,
    daemon: { at: now, pid: 1, startedAt: now },
    disk: null,
    pendingDifferences: { factory: 0, dc: 0, oldestSince: null },
    failures: {
      stock: { total: 0, notFound: 0 },
      confirmations: { pending: 0, confirmedToday: 0, failed: 0, conflicts: 0 },
    },
    budget: { starved: [], remainingByLane: { stock: 100 } },
    loginBlock: null,
    foreignLogins: { lastHour: 0, lastAt: null },
    shipments: { overdue: null, deadline: null },
    polls: { lastAt: null, dueAt: null, overdue: false, datedAhead: false },
    stale: false,
    files: { problemCount: 0, problems: [] },
    held: { files: 0, snapshots: 0, oldestAt: null },
    paused: null,
    unfinishedApplies: [],
    products: {
      created: count,
      undecided: 0,
      declined: { count, recent },
      toCreate: 0,
      catalogueReadAt: null,
      catalogueProducts: null,
    },
  };
}
