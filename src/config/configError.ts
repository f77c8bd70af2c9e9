/** A setting that is missing, unknown or invalid; `key` names it as the operator wrote it. */
import { CodedError } from '../failures/codedError.ts';

export class ConfigError extends CodedError {
  readonly code = 'E_CONFIG';
  readonly key: string;

  constructor(key: string, problem: string, options?: ErrorOptions) {
    super(`${key}: ${problem}`, options);
    this.key = key;
  }
}
