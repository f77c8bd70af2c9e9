import { ConfigError } from '../../src/config/configError.ts';

/** The ConfigError `fn` throws; fails the test when it throws something else or nothing. */
export function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}
