import { describe, expect, it } from 'vitest';
import { type RouteFacts, routeFile } from '../../../src/inventory/ingest/route.ts';
import type { LedgerEntry } from '../../../src/state/inbox/inboxLedger.ts';

const entry = (over: Partial<LedgerEntry> = {}): LedgerEntry => ({
  id: 7,
  name: 'stock.csv',
  contentHash: 'ab',
  size: 10,
  kind: 'factory_stock',
  status: 'processed',
  outcome: 'processed',
  destName: '20261122T014501Z-7-stock.csv',
  report: null,
  receivedAt: 1000,
  committedAt: 2000,
  finishedAt: 2100,
  ...over,
});

const facts = (over: Partial<RouteFacts> = {}): RouteFacts => ({
  name: 'stock.csv',
  committed: undefined,
  givenUp: undefined,
  applied: undefined,
  latestAppliedOfKind: undefined,
  snapshotAppliedAt: undefined,
  format: 'csv',
  ...over,
});

describe('routeFile', () => {
  it('reads a new file of a known format', () => {
    expect(routeFile(facts())).toEqual({ type: 'read', format: 'csv' });
  });

  it('refuses an extension no reader knows', () => {
    expect(routeFile(facts({ format: undefined }))).toEqual({ type: 'unsupported' });
  });

  it('finishes a file of this name committed before a crash, before anything else', () => {
    const committed = entry({ status: 'committed' });
    const route = routeFile(facts({ committed, givenUp: 'too many', format: undefined }));
    expect(route).toEqual({ type: 'resume', entry: committed });
  });

  it('does not resume the committed row of another name with the same content', () => {
    const committed = entry({ status: 'committed', name: 'other.csv' });
    expect(routeFile(facts({ committed })).type).toBe('read');
  });

  it('gives up before looking for a duplicate', () => {
    const applied = entry();
    const route = routeFile(
      facts({ givenUp: '3 attempts failed', applied, latestAppliedOfKind: 7 }),
    );
    expect(route).toEqual({ type: 'give_up', reason: '3 attempts failed' });
  });

  it('calls content a duplicate when it is still the newest word of its kind', () => {
    const applied = entry();
    const route = routeFile(facts({ applied, latestAppliedOfKind: 7, snapshotAppliedAt: 1999 }));
    expect(route).toEqual({ type: 'duplicate', prior: applied });
  });

  it('applies content again when a newer file of its kind was applied since', () => {
    const applied = entry();
    expect(routeFile(facts({ applied, latestAppliedOfKind: 9 })).type).toBe('read');
  });

  it('applies stock content again when the snapshot was applied since, not confirmations', () => {
    const stock = entry();
    expect(
      routeFile(facts({ applied: stock, latestAppliedOfKind: 7, snapshotAppliedAt: 2000 })).type,
    ).toBe('read');
    const confirmations = entry({ kind: 'shipment_confirmations' });
    expect(
      routeFile(facts({ applied: confirmations, latestAppliedOfKind: 7, snapshotAppliedAt: 3000 }))
        .type,
    ).toBe('duplicate');
  });

  it('never calls content of no known kind a duplicate', () => {
    const applied = entry({ kind: null });
    expect(routeFile(facts({ applied, latestAppliedOfKind: 7 })).type).toBe('read');
  });
});
