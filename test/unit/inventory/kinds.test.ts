import { describe, expect, it } from 'vitest';
import { detectKind, objectKind } from '../../../src/inventory/validate/kinds.ts';
import { validateConfirmationRow, validateStockRow } from '../../../src/inventory/validate/rows.ts';

describe('detectKind', () => {
  it('tells each kind and lists ignored columns', () => {
    expect(detectKind(['sku', 'stock_quantity'])).toEqual({
      ok: true,
      kind: 'factory_stock',
      ignored: [],
    });
    expect(detectKind(['distribution_centre_code', 'sku', 'stock_quantity', 'note'])).toEqual({
      ok: true,
      kind: 'dc_stock',
      ignored: ['note'],
    });
    expect(
      detectKind(['order_number', 'carrier', 'tracking_number', 'is_collected', 'action']),
    ).toEqual({ ok: true, kind: 'shipment_confirmations', ignored: [] });
  });

  it('refuses headers that name no kind, or two', () => {
    const none = detectKind(['sku', 'qty']);
    expect(none.ok).toBe(false);
    expect(!none.ok && none.reason).toContain('no columns naming a kind');
    const both = detectKind([
      'sku',
      'stock_quantity',
      'order_number',
      'carrier',
      'tracking_number',
    ]);
    expect(!both.ok && both.reason).toContain('ambiguous');
  });

  it('tells the kind one object claims', () => {
    expect(objectKind(['sku'])).toBe('factory_stock');
    expect(objectKind(['distribution_centre_code', 'sku'])).toBe('dc_stock');
    expect(objectKind(['carrier'])).toBe('shipment_confirmations');
    expect(objectKind(['colour'])).toBeUndefined();
  });
});

describe('row validation', () => {
  const rules = { maxSkuLength: 10 };

  it('accepts and cleans a stock row', () => {
    expect(
      validateStockRow(
        'dc_stock',
        { distribution_centre_code: ' DC1 ', sku: ' A ', stock_quantity: ' 4 ' },
        rules,
      ),
    ).toEqual({ ok: true, row: { dc: 'DC1', sku: 'A', quantity: 4 } });
  });

  it('names the first field at fault, with the value', () => {
    expect(validateStockRow('factory_stock', { sku: 'A', stock_quantity: '1.5' }, rules)).toEqual({
      ok: false,
      key: 'factory:A',
      field: 'stock_quantity',
      reason: 'not a whole number ≥ 0',
      value: '1.5',
    });
    expect(validateStockRow('factory_stock', { stock_quantity: '1' }, rules)).toEqual({
      ok: false,
      field: 'sku',
      reason: 'missing',
    });
    expect(
      validateStockRow(
        'dc_stock',
        { distribution_centre_code: '', sku: 'A', stock_quantity: 1 },
        rules,
      ),
    ).toMatchObject({ ok: false, field: 'distribution_centre_code', reason: 'empty' });
  });

  it('cuts long values in reports', () => {
    const r = validateStockRow('factory_stock', { sku: 'x'.repeat(500), stock_quantity: 1 }, rules);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.value?.length).toBe(101);
  });

  it('checks confirmation rows', () => {
    expect(
      validateConfirmationRow({
        order_number: 'O1',
        carrier: 'UPS',
        tracking_number: 'T1',
        is_collected: 'true',
        action: 'collected',
      }),
    ).toEqual({
      ok: true,
      row: {
        orderNumber: 'O1',
        carrier: 'UPS',
        trackingNumber: 'T1',
        isCollected: true,
        action: 'collected',
      },
    });
    expect(
      validateConfirmationRow({ order_number: 'O1', carrier: ' ', tracking_number: 'T1' }),
    ).toMatchObject({ ok: false, field: 'carrier', reason: 'empty' });
    expect(
      validateConfirmationRow({ order_number: 'O1', carrier: 'UPS', tracking_number: '' }),
    ).toMatchObject({ ok: false, field: 'tracking_number', reason: 'empty' });
    expect(
      validateConfirmationRow({
        order_number: 'O1',
        carrier: 'UPS',
        tracking_number: 'T',
        is_collected: 'perhaps',
      }),
    ).toMatchObject({ ok: false, field: 'is_collected' });
    expect(
      validateConfirmationRow({
        order_number: 'O1',
        carrier: 'UPS',
        tracking_number: 'T',
        action: 'lost',
      }),
    ).toMatchObject({ ok: false, field: 'action' });
  });
});
