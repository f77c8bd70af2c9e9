import { describe, expect, it } from 'vitest';
import { platformSkuCodec } from '../../src/simulator/platformSku.ts';
import {
  ACTIVE_DC_CODES,
  DC_CODES,
  DISTRIBUTION_CENTRES,
  INACTIVE_DC_CODE,
  parseSeededSku,
  seededSku,
} from '../../src/simulator/seed.ts';

describe('seed', () => {
  it('formats and parses seeded SKUs', () => {
    expect(seededSku(0)).toBe('SKU-0000001');
    expect(seededSku(999_999)).toBe('SKU-1000000');
    expect(parseSeededSku('SKU-0000001')).toBe(0);
    expect(parseSeededSku('SKU-1000000')).toBe(999_999);
    for (const bad of ['SKU-1', 'SKU-00000001', 'sku-0000001', 'SKU-0000000', 'SKU-00000x1']) {
      expect(parseSeededSku(bad)).toBeUndefined();
    }
  });

  it('maps positions to distinct platform SKUs and back', () => {
    const codec = platformSkuCodec(1);
    const seen = new Set<string>();
    for (let i = 0; i < 50_000; i += 7) {
      const text = codec.format(i);
      expect(text).toMatch(/^\d{3}\.\d{3}\.\d{3}$/);
      expect(codec.parse(text)).toBe(i);
      seen.add(text);
    }
    expect(seen.size).toBe(Math.ceil(50_000 / 7));
    expect(codec.parse('12.34')).toBeUndefined();
    expect(platformSkuCodec(2).format(0)).not.toBe(codec.format(0));
  });

  it('has four distribution centres, one of them inactive', () => {
    expect(DC_CODES).toEqual(['DC-LON', 'DC-MAN', 'DC-DUB', 'DC-BER']);
    expect(ACTIVE_DC_CODES).toEqual(['DC-LON', 'DC-MAN', 'DC-DUB']);
    expect(DISTRIBUTION_CENTRES.find((d) => d.code === INACTIVE_DC_CODE)?.is_active).toBe(false);
  });
});
