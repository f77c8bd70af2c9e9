/**
 * Fault injection. Counters (next429, next500, nextReset) are consumed first, in the order reset,
 * 500, 429; then the random rates are drawn from a seeded PRNG so runs are reproducible.
 */
import { hash32, mulberry32 } from './prng.ts';

export interface FaultSettings {
  /** 0..1 share of /api/v1 requests answered 500 with an HTML (non-JSON) body. */
  error500Rate: number;
  /** 0..1 share whose connection is destroyed mid-request (no response). */
  resetRate: number;
  /** Delay in ms before answering every /api/v1 request. */
  slowMs: number;
  /** The next N /api/v1 requests get 429 (spec body), then normal. */
  next429: number;
  /** The next N get 500 HTML. */
  next500: number;
  /** The next N get their socket destroyed without a response. */
  nextReset: number;
  /** When set, 429s (injected and real) carry Retry-After with this many seconds. */
  retryAfterSeconds: number | null;
}

export interface FaultControls {
  set(f: Partial<FaultSettings>): void;
  clear(): void;
  /** All tokens of the account become invalid (401). */
  invalidateTokens(): void;
  current(): FaultSettings;
}

export type FaultDecision = 'reset' | '500' | '429' | null;

export const NO_FAULTS: Readonly<FaultSettings> = Object.freeze({
  error500Rate: 0,
  resetRate: 0,
  slowMs: 0,
  next429: 0,
  next500: 0,
  nextReset: 0,
  retryAfterSeconds: null,
});

/** Validates a partial settings object (from the admin endpoint); returns an error text or null. */
export function validateFaults(input: unknown): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return 'body must be a JSON object';
  }
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case 'error500Rate':
      case 'resetRate':
        if (typeof value !== 'number' || !(value >= 0 && value <= 1)) return `${key} must be 0..1`;
        break;
      case 'slowMs':
      case 'next429':
      case 'next500':
      case 'nextReset':
        if (!Number.isInteger(value) || (value as number) < 0) {
          return `${key} must be a non-negative integer`;
        }
        break;
      case 'retryAfterSeconds':
        if (value !== null && (!Number.isInteger(value) || (value as number) < 0)) {
          return 'retryAfterSeconds must be a non-negative integer or null';
        }
        break;
      default:
        return `unknown fault setting ${key}`;
    }
  }
  return null;
}

export class FaultEngine {
  #settings: FaultSettings = { ...NO_FAULTS };
  readonly #random: () => number;

  constructor(seed: number) {
    this.#random = mulberry32(hash32(seed, 0xfa17));
  }

  current(): FaultSettings {
    return { ...this.#settings };
  }

  set(f: Partial<FaultSettings>): void {
    const error = validateFaults(f);
    if (error) throw new RangeError(error);
    this.#settings = { ...this.#settings, ...f };
  }

  clear(): void {
    this.#settings = { ...NO_FAULTS };
  }

  /** Decides the fault for one request (consuming counters). */
  decide(): FaultDecision {
    const s = this.#settings;
    if (s.nextReset > 0) {
      s.nextReset--;
      return 'reset';
    }
    if (s.next500 > 0) {
      s.next500--;
      return '500';
    }
    if (s.next429 > 0) {
      s.next429--;
      return '429';
    }
    if (s.resetRate > 0 && this.#random() < s.resetRate) return 'reset';
    if (s.error500Rate > 0 && this.#random() < s.error500Rate) return '500';
    return null;
  }
}
