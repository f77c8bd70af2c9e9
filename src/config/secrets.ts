import { type Config, type SettingName, settings } from './settings.ts';

/** What stands for a URL's password wherever the URL is shown. */
export const MASKED_PASSWORD = '***';

/** The URL's password, as written (percent-encoded) and decoded; none when it has none. */
function urlPassword(value: string): { written: string; decoded: string } | undefined {
  if (!value.includes('://')) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.password === '') return undefined;
  let decoded = url.password;
  try {
    decoded = decodeURIComponent(url.password);
  } catch {
    // not valid percent-encoding: the client reads it as written
  }
  return { written: url.password, decoded };
}

/** The URLs a setting holds: the value when it is one URL, else its comma-separated parts. */
function urlsIn(value: string): string[] {
  if (!value.includes(',') || !value.includes('://')) return [value];
  try {
    if (!new URL(value).hostname.includes(',')) return [value];
  } catch {
    // not one URL
  }
  return value.split(',').map((u) => u.trim());
}

/**
 * A URL with its password replaced by `***` (`redis://:***@redis:6379`); any other text as it is.
 * For every place a setting is shown (`daemon.started`, messages naming a URL).
 */
export function maskUrlPassword(value: string): string {
  const parts = urlsIn(value);
  // A list of URLs (REDIS_URL's nodes of a cluster): each masked.
  if (parts.length > 1) return parts.map(maskUrlPassword).join(',');
  if (urlPassword(value) === undefined) return value;
  const url = new URL(value);
  url.password = MASKED_PASSWORD;
  return url.toString();
}

/**
 * Every secret the configuration holds: the portal password and the password of each URL
 * setting (REDIS_URL, SUPPLIER_API_URL), percent-encoded as written and decoded as clients use
 * it. Each is registered with the log scrubber at start, so that an error quoting one is cut.
 */
export function configSecrets(config: Config): string[] {
  const out: string[] = [];
  if (config.password) out.push(config.password);
  for (const name of Object.keys(settings) as SettingName[]) {
    const value = config[name];
    if (typeof value !== 'string') continue;
    for (const part of urlsIn(value)) {
      const p = urlPassword(part);
      if (p) out.push(p.written, p.decoded);
    }
  }
  return [...new Set(out)];
}
