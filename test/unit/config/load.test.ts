import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfigJson, withSettingsTable } from '../../../src/config/defaults.ts';
import {
  configSecrets,
  describeConfig,
  extractConfigFlags,
  loadConfig,
} from '../../../src/config/index.ts';
import { configError } from '../../helpers/configError.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'supplier-sync-config-'));

describe('loadConfig', () => {
  it('gives the built-in defaults and freezes the result', () => {
    const config = loadConfig({ env: {}, cwd: '/srv' });
    expect(config.requestsPerHour).toBe(3600);
    expect(config.loginsPerHour).toBe(10);
    expect(config.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(config.queuePrefix).toBe('supplier-sync');
    expect(config.shipmentsPollCron).toBe('*/5 * * * *');
    expect(config.dataDir).toBe('/srv/data');
    expect(config.snapshotDb).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes flags over env over file over defaults', () => {
    const dir = tmp();
    const file = join(dir, 'c.json');
    writeFileSync(
      file,
      JSON.stringify({
        API_REQUESTS_PER_HOUR: 100,
        LOG_LEVEL: 'warn',
        BULK_BATCH_SIZE: 50,
        '// note': 'comment',
      }),
    );
    const config = loadConfig({
      configFile: file,
      env: { API_REQUESTS_PER_HOUR: '200', LOG_LEVEL: 'debug' },
      flags: { API_REQUESTS_PER_HOUR: '300' },
    });
    expect(config.requestsPerHour).toBe(300);
    expect(config.logLevel).toBe('debug');
    expect(config.bulkBatchSize).toBe(50);
    expect(config.configFile).toBe(file);
  });

  it('names the key of an invalid value', () => {
    expect(configError(() => loadConfig({ env: { API_REQUESTS_PER_HOUR: '1.5' } })).key).toBe(
      'API_REQUESTS_PER_HOUR',
    );
    expect(configError(() => loadConfig({ env: { API_LOGINS_PER_HOUR: '11' } })).message).toMatch(
      /API_LOGINS_PER_HOUR: must be at most 10/,
    );
    expect(
      configError(() => loadConfig({ env: { SUPPLIER_API_URL: 'http://x/api' } })).message,
    ).toMatch(/SUPPLIER_API_URL: must end with \/api\/v1/);
    expect(configError(() => loadConfig({ env: { SHIPMENTS_POLL_CRON: '* *' } })).key).toBe(
      'SHIPMENTS_POLL_CRON',
    );
    expect(configError(() => loadConfig({ env: { LOG_LEVEL: 'loud' } })).key).toBe('LOG_LEVEL');
  });

  it('accepts a 6-field cron with seconds and trims a trailing slash of the API URL', () => {
    const config = loadConfig({
      env: { SHIPMENTS_POLL_CRON: '*/10 * * * * *', SUPPLIER_API_URL: 'https://h:1/api/v1/' },
    });
    expect(config.shipmentsPollCron).toBe('*/10 * * * * *');
    expect(config.apiUrl).toBe('https://h:1/api/v1');
  });

  it('rejects unknown keys in the file, in flags and in our own env prefixes', () => {
    const file = join(tmp(), 'c.json');
    writeFileSync(file, JSON.stringify({ API_REQUEST_PER_HOUR: 1 }));
    expect(configError(() => loadConfig({ configFile: file })).key).toBe('API_REQUEST_PER_HOUR');
    expect(configError(() => loadConfig({ env: { SYNC_DATADIR: 'x' } })).key).toBe('SYNC_DATADIR');
    expect(configError(() => loadConfig({ flags: { NOPE: '1' } })).key).toBe('NOPE');
    // Variables that are not ours are left alone.
    expect(() => loadConfig({ env: { HOME: '/root', PATH: '/bin' } })).not.toThrow();
  });

  it('names --config when the file is missing or not JSON', () => {
    expect(configError(() => loadConfig({ configFile: '/nonexistent/x.json' })).message).toMatch(
      /--config: cannot read/,
    );
    const file = join(tmp(), 'bad.json');
    writeFileSync(file, '{nope');
    expect(configError(() => loadConfig({ configFile: file })).message).toMatch(/not valid JSON/);
  });

  it('reads the password from SUPPLIER_PASSWORD_FILE', () => {
    const file = join(tmp(), 'pw');
    writeFileSync(file, 's3cret-from-file\n');
    expect(loadConfig({ env: { SUPPLIER_PASSWORD_FILE: file } }).password).toBe('s3cret-from-file');
    expect(
      configError(() =>
        loadConfig({ env: { SUPPLIER_PASSWORD_FILE: file, SUPPLIER_PASSWORD: 'x' } }),
      ).key,
    ).toBe('SUPPLIER_PASSWORD_FILE');
    const missing = configError(() =>
      loadConfig({ env: { SUPPLIER_PASSWORD_FILE: '/nonexistent/pw' } }),
    );
    expect(missing.key).toBe('SUPPLIER_PASSWORD_FILE');
  });

  it('names a required key that is missing', () => {
    expect(configError(() => loadConfig({ env: {}, require: ['apiUrl'] })).key).toBe(
      'SUPPLIER_API_URL',
    );
    expect(configError(() => loadConfig({ env: {}, require: ['password'] })).key).toBe(
      'SUPPLIER_PASSWORD',
    );
  });
});

describe('settings that cannot work together or at all (#13)', () => {
  it('refuses a REDIS_URL that is not a redis:// URL with a host, without echoing it', () => {
    for (const bad of [
      'foo',
      'http://127.0.0.1:6379',
      'redis://',
      'redis:///0',
      '127.0.0.1:6379',
    ]) {
      const err = configError(() => loadConfig({ env: { REDIS_URL: bad } }));
      expect(err.key, bad).toBe('REDIS_URL');
      expect(err.message).toMatch(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    }
    const secret = configError(() => loadConfig({ env: { REDIS_URL: 'redis//:hunter22@host' } }));
    expect(secret.message).not.toContain('hunter22');
    for (const good of ['redis://127.0.0.1:6379', 'rediss://:p%40ss@cache.internal:6380/2'])
      expect(loadConfig({ env: { REDIS_URL: good } }).redisUrl).toBe(good);
  });

  it('refuses API_BACKOFF_BASE_MS above API_BACKOFF_MAX_MS (and the same for failures)', () => {
    const err = configError(() =>
      loadConfig({ env: { API_BACKOFF_BASE_MS: '5000', API_BACKOFF_MAX_MS: '1000' } }),
    );
    expect(err.key).toBe('API_BACKOFF_BASE_MS');
    expect(err.message).toMatch(/API_BACKOFF_MAX_MS \(1000\)/);
    expect(
      loadConfig({ env: { API_BACKOFF_BASE_MS: '1000', API_BACKOFF_MAX_MS: '1000' } }).backoffMaxMs,
    ).toBe(1000);
    expect(
      configError(() =>
        loadConfig({
          env: { FAILURE_BACKOFF_BASE_MS: '7200000', FAILURE_BACKOFF_MAX_MS: '60000' },
        }),
      ).key,
    ).toBe('FAILURE_BACKOFF_BASE_MS');
  });

  it('refuses plain http to a host that is not loopback unless SUPPLIER_API_INSECURE=true', () => {
    const err = configError(() =>
      loadConfig({ env: { SUPPLIER_API_URL: 'http://portal.example.com/api/v1' } }),
    );
    expect(err.key).toBe('SUPPLIER_API_URL');
    expect(err.message).toMatch(/https.*SUPPLIER_API_INSECURE=true/);
    expect(
      configError(() => loadConfig({ env: { SUPPLIER_API_URL: 'http://10.0.0.5:8080/api/v1' } }))
        .key,
    ).toBe('SUPPLIER_API_URL');
    const insecure = loadConfig({
      env: { SUPPLIER_API_URL: 'http://portal.example.com/api/v1', SUPPLIER_API_INSECURE: 'true' },
    });
    expect(insecure.apiUrl).toBe('http://portal.example.com/api/v1');
    expect(insecure.apiInsecure).toBe(true);
    for (const loopback of [
      'http://127.0.0.1:8080/api/v1',
      'http://127.9.9.9/api/v1',
      'http://localhost:3000/api/v1',
      'http://[::1]:3000/api/v1',
      'https://portal.example.com/api/v1',
    ])
      expect(loadConfig({ env: { SUPPLIER_API_URL: loopback } }).apiUrl, loopback).toBe(loopback);
  });

  it('listens on 127.0.0.1 unless HTTP_HOST says otherwise, and refuses a host that is not one', () => {
    expect(loadConfig({ env: {} }).httpHost).toBe('127.0.0.1');
    expect(loadConfig({ env: { HTTP_HOST: '0.0.0.0' } }).httpHost).toBe('0.0.0.0');
    expect(loadConfig({ env: { HTTP_HOST: '::' } }).httpHost).toBe('::');
    expect(loadConfig({ env: { HTTP_HOST: 'localhost' } }).httpHost).toBe('localhost');
    for (const bad of ['0.0.0.0:9464', 'http://0.0.0.0', 'two words'])
      expect(configError(() => loadConfig({ env: { HTTP_HOST: bad } })).key, bad).toBe('HTTP_HOST');
  });

  it('takes CONSOLE_TRUSTED_PROXIES as addresses or CIDR ranges, none by default, and refuses anything else', () => {
    expect(loadConfig({ env: {} }).consoleTrustedProxies).toEqual([]);
    expect(
      loadConfig({ env: { CONSOLE_TRUSTED_PROXIES: ' 10.0.0.0/8, 127.0.0.1 ,fd00::/8' } })
        .consoleTrustedProxies,
    ).toEqual(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
    for (const bad of ['proxy.internal', '10.0.0.0/33', '10.0.0.0/8/1', '::1/129', '10.0.0.0/x'])
      expect(
        configError(() => loadConfig({ env: { CONSOLE_TRUSTED_PROXIES: bad } })).key,
        bad,
      ).toBe('CONSOLE_TRUSTED_PROXIES');
  });
});

describe('Redis Cluster settings (#31)', () => {
  it('takes several comma-separated nodes with REDIS_CLUSTER=true, and refuses them without', () => {
    const nodes = 'redis://:pw@10.0.0.1:6379, redis://:pw@10.0.0.2:6379';
    const config = loadConfig({ env: { REDIS_URL: nodes, REDIS_CLUSTER: 'true' } });
    expect(config.redisCluster).toBe(true);
    expect(config.redisUrl).toBe(nodes);
    const alone = configError(() => loadConfig({ env: { REDIS_URL: nodes } }));
    expect(alone.message).toBe(
      'REDIS_URL: names 2 Redis nodes: several are for a Redis Cluster (set REDIS_CLUSTER=true), one otherwise',
    );
    // One node of a cluster is enough (the client learns the others); a password with a comma
    // keeps a single URL whole.
    expect(
      loadConfig({ env: { REDIS_URL: 'redis://redis-cluster:6379', REDIS_CLUSTER: 'yes' } })
        .redisCluster,
    ).toBe(true);
    expect(loadConfig({ env: { REDIS_URL: 'redis://:a,b@h:6379' } }).redisUrl).toBe(
      'redis://:a,b@h:6379',
    );
  });

  it('refuses nodes that differ in scheme or password, a bad node, and a bad REDIS_CLUSTER', () => {
    const mixed = configError(() =>
      loadConfig({
        env: {
          REDIS_URL: 'redis://:one@10.0.0.1:6379,rediss://:one@10.0.0.2:6379',
          REDIS_CLUSTER: 'true',
        },
      }),
    );
    expect(mixed.key).toBe('REDIS_URL');
    expect(mixed.message).not.toContain('one@');
    const bad = configError(() =>
      loadConfig({
        env: { REDIS_URL: 'redis://10.0.0.1:6379,10.0.0.2:6379', REDIS_CLUSTER: 'true' },
      }),
    );
    expect(bad.message).toMatch(/^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(configError(() => loadConfig({ env: { REDIS_CLUSTER: 'maybe' } })).key).toBe(
      'REDIS_CLUSTER',
    );
  });

  it('masks and registers the password of every node', () => {
    const config = loadConfig({
      env: {
        REDIS_URL: 'redis://:s3cret@10.0.0.1:6379,redis://:s3cret@10.0.0.2:6379',
        REDIS_CLUSTER: 'true',
      },
    });
    expect(describeConfig(config).REDIS_URL).toBe(
      'redis://:***@10.0.0.1:6379,redis://:***@10.0.0.2:6379',
    );
    expect(configSecrets(config)).toEqual(['s3cret']);
  });

  it('lets SYNC_QUEUE_PREFIX carry one hash tag in braces, nothing else', () => {
    for (const good of ['{acme}', 'sync-{acme}', 'acme', 'a.b_c-{d}-e'])
      expect(loadConfig({ env: { SYNC_QUEUE_PREFIX: good } }).queuePrefix).toBe(good);
    for (const bad of ['{}', '{a}{b}', '{a', 'a}', 'a:b', '{a{b}}']) {
      const err = configError(() => loadConfig({ env: { SYNC_QUEUE_PREFIX: bad } }));
      expect(err.message, bad).toMatch(/one hash tag in braces/);
    }
  });
});

describe('secrets of URL settings (#13)', () => {
  it('masks the password of every URL setting where the configuration is described', () => {
    const config = loadConfig({
      env: {
        REDIS_URL: 'redis://default:p%40ss%2Fw0rd@cache.internal:6380/2',
        SUPPLIER_API_URL: 'https://api-user:t0p-secret@portal.example.com/api/v1',
        SUPPLIER_PASSWORD: 'portal-pw',
      },
    });
    const described = describeConfig(config);
    expect(described.REDIS_URL).toBe('redis://default:***@cache.internal:6380/2');
    expect(described.SUPPLIER_API_URL).toBe('https://api-user:***@portal.example.com/api/v1');
    expect(described.SUPPLIER_PASSWORD).toBeUndefined();
    const text = JSON.stringify(described);
    for (const secret of ['p%40ss', 'p@ss/w0rd', 't0p-secret', 'portal-pw'])
      expect(text).not.toContain(secret);
    // A URL without a password is shown as it is.
    expect(describeConfig(loadConfig({ env: {} })).REDIS_URL).toBe('redis://127.0.0.1:6379');
  });

  it('lists every secret to register with the scrubber: as written and decoded', () => {
    const config = loadConfig({
      env: {
        REDIS_URL: 'redis://:p%40ss%2Fw0rd@cache.internal:6380',
        SUPPLIER_PASSWORD: 'portal-pw',
      },
    });
    expect(configSecrets(config).sort()).toEqual(['p%40ss%2Fw0rd', 'p@ss/w0rd', 'portal-pw']);
    expect(configSecrets(loadConfig({ env: {} }))).toEqual([]);
  });
});

describe('extractConfigFlags', () => {
  it('takes setting flags and --config out, leaving the rest in order', () => {
    const out = extractConfigFlags([
      '--json',
      '--sync-data-dir',
      '/d',
      '--config=/c.json',
      'KEY',
      '--log-level=debug',
    ]);
    expect(out.flags).toEqual({ SYNC_DATA_DIR: '/d', LOG_LEVEL: 'debug' });
    expect(out.configFile).toBe('/c.json');
    expect(out.rest).toEqual(['--json', 'KEY']);
  });
});

describe('docs/configuration.md settings table', () => {
  it('lists every setting with its default (regenerate with node scripts/write-default-config.ts)', () => {
    const doc = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    expect(doc).toBe(withSettingsTable(doc));
  });
});

describe('config/default.json', () => {
  it('matches the settings table (regenerate with node scripts/write-default-config.ts)', () => {
    const text = readFileSync(new URL('../../../config/default.json', import.meta.url), 'utf8');
    expect(text).toBe(defaultConfigJson());
    // And it loads as a config file.
    expect(
      loadConfig({ configFile: new URL('../../../config/default.json', import.meta.url).pathname })
        .requestsPerHour,
    ).toBe(3600);
  });
});

describe('schedules and time zone', () => {
  it('rejects a cron expression that cannot run and an unknown time zone', () => {
    expect(configError(() => loadConfig({ env: { RECONCILE_CRON: '61 * * * *' } })).key).toBe(
      'RECONCILE_CRON',
    );
    expect(configError(() => loadConfig({ env: { SYNC_TIMEZONE: 'Mars/Olympus' } })).key).toBe(
      'SYNC_TIMEZONE',
    );
    expect(loadConfig({ env: { SYNC_TIMEZONE: 'Europe/London' } }).timezone).toBe('Europe/London');
  });
});
