/**
 * Platform SKUs: a seeded, invertible affine map of the product position onto 9 digits shown as
 * 'ddd.ddd.ddd'. Invertible means a platform_sku is looked up without an index of a million
 * strings: position = A⁻¹ · (value − B) mod 10⁹.
 */
import { hash32 } from './prng.ts';

const MODULUS = 1_000_000_000;

export interface PlatformSkuCodec {
  format(position: number): string;
  /** The position a platform_sku stands for, or undefined when the text is not one. */
  parse(text: string): number | undefined;
}

export function platformSkuCodec(seed: number): PlatformSkuCodec {
  // A is odd and not a multiple of 5, so it is coprime with 10⁹ and the map is a bijection.
  let a = 100_000_001 + 2 * (hash32(seed, 0x5a) % 400_000_000);
  while (a % 5 === 0) a += 2;
  const b = hash32(seed, 0xb7) % MODULUS;
  const aInverse = modInverse(BigInt(a), BigInt(MODULUS));
  return {
    format(position) {
      const value = (mulMod(a, position + 1) + b) % MODULUS;
      const digits = String(value).padStart(9, '0');
      return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6)}`;
    },
    parse(text) {
      if (!/^\d{3}\.\d{3}\.\d{3}$/.test(text)) return undefined;
      const value = BigInt(text.replaceAll('.', ''));
      const m = BigInt(MODULUS);
      const n = Number((((aInverse * (value - BigInt(b))) % m) + m) % m);
      return n >= 1 ? n - 1 : undefined;
    },
  };
}

/** a·n mod 10⁹ for a, n below 10⁹, exact in doubles (every partial product stays below 2⁵³). */
function mulMod(a: number, n: number): number {
  const high = Math.floor(n / 100_000);
  const low = n % 100_000;
  return (((((a * high) % MODULUS) * 100_000) % MODULUS) + a * low) % MODULUS;
}

function modInverse(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  return ((oldS % m) + m) % m;
}
