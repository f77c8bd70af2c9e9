/** A setting that is missing, unknown or invalid; `key` names it as the operator wrote it. */
export class ConfigError extends Error {
  readonly code = 'E_CONFIG';
  readonly key: string;

  constructor(key: string, problem: string, options?: ErrorOptions) {
    super(`${key}: ${problem}`, options);
    this.name = 'ConfigError';
    this.key = key;
  }
}
