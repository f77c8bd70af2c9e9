/**
 * compose.yaml as a new user meets it: valid against the Compose Specification's schema (what
 * Compose v2 checks), its quick start creating every host folder the daemon writes (with the
 * daemon's ownership), its settings accepted by the daemon's own loader, and a second supplier
 * one more service (the commented example, uncommented) with its own prefix, data, folders,
 * password and port.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const composeText = read('compose.yaml');

interface Service {
  image?: string;
  build?: unknown;
  user?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: Array<{ source: string; target: string }>;
  ports?: string[];
  healthcheck?: { test: string[] };
  profiles?: string[];
}
interface Compose {
  name: string;
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  secrets: Record<string, { file: string }>;
}

const compose = (text: string) => parse(text, { merge: true }) as Compose;

/**
 * The file with its commented example uncommented: each commented key naming a second
 * supplier's part (`supplier-b:`, `sync-data-b:`, `supplier_b_password:`) and the commented lines
 * indented below it.
 */
function withSecondSupplier(text: string): string {
  const lines = text.split('\n');
  let block: string | undefined;
  return lines
    .map((line) => {
      const start = /^(\s*)# ((?:[a-z_-]+[-_]b)(?:[-_][a-z_]+)?:.*)$/.exec(line);
      if (start) {
        block = start[1];
        return `${start[1]}${start[2]}`;
      }
      if (block !== undefined && line.startsWith(`${block}#   `)) {
        return `${block}${line.slice(block.length + 2)}`;
      }
      block = undefined;
      return line;
    })
    .join('\n');
}

// Its `$schema` (draft-07, under an https address Ajv does not know by that name) is Ajv's default.
const { $schema: _, ...schema } = JSON.parse(
  read('test/fixtures/compose-spec/compose-spec.json'),
) as Record<string, unknown>;
const ajv = new Ajv({ strict: false, allErrors: true });
const validate = ajv.compile(schema);
const problems = (doc: unknown) =>
  validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-compose-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The daemon's settings as compose gives them (interpolated), loaded by the daemon's loader. */
function loadServiceConfig(service: Service, vars: Record<string, string>) {
  const password = join(dir, 'password');
  writeFileSync(password, 'pw');
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(service.environment ?? {})) {
    env[key] = String(value).replace(/\$\{(\w+)(?::\?[^}]*)?\}/g, (_, name: string) => {
      const v = vars[name];
      if (v === undefined) throw new Error(`${key} needs ${name}`);
      return v;
    });
  }
  expect(env.SUPPLIER_PASSWORD_FILE).toMatch(/^\/run\/secrets\//);
  env.SUPPLIER_PASSWORD_FILE = password;
  return loadConfig({ env, require: ['apiUrl', 'email', 'password'] });
}

describe('compose.yaml', () => {
  const doc = compose(composeText);

  it('is valid against the Compose Specification schema, and says it needs Compose v2', () => {
    expect(problems(doc)).toEqual([]);
    // `name` is what Compose v1 (Debian's docker-compose 1.29) refuses: the file says so.
    expect(doc.name).toBe('supplier-sync');
    expect(composeText).toMatch(/^# Needs Compose v2 \(`docker compose`\)/m);
    expect(composeText).toMatch(/podman-compose .*`monitoring` profile/);
  });

  it("has a quick start that creates every host folder the daemon writes, owned by the daemon's uid", () => {
    const quick = composeText
      .split('\n')
      .filter((l) => /^# {3}\S/.test(l))
      .map((l) => l.slice(4));
    const mkdir =
      quick
        .find((l) => l.startsWith('mkdir -p '))
        ?.split(/\s+/)
        .slice(2) ?? [];
    const chown = /^chown 1000:1000 ([^#]+)/.exec(quick.find((l) => l.startsWith('chown')) ?? '');
    const owned = chown?.[1]?.trim().split(/\s+/) ?? [];
    const daemon = doc.services.daemon!;
    const binds = (daemon.volumes ?? [])
      .map((v) => v.split(':'))
      .filter(([host]) => host!.startsWith('./'))
      .map(([host]) => host!.slice(2));
    expect(binds.sort()).toEqual(['erp/inbox', 'erp/outbox']);
    for (const folder of binds) {
      expect(mkdir, folder).toContain(folder);
      expect(owned, folder).toContain(folder);
    }
    const secretDir = doc.secrets.supplier_password!.file.replace(/^\.\//, '').split('/')[0];
    expect(mkdir).toContain(secretDir);
    expect(quick.some((l) => l.includes(`> ${doc.secrets.supplier_password!.file.slice(2)}`))).toBe(
      true,
    );
    // The command the quick start ends with is on the image's PATH (the Dockerfile links it).
    expect(quick).toContain('docker compose exec daemon supplier-sync status');
    expect(read('Dockerfile')).toMatch(
      /ln -s \/app\/dist\/cli\/main\.js \/usr\/local\/bin\/supplier-sync/,
    );
    expect(daemon.healthcheck?.test).toEqual(['CMD', 'supplier-sync', 'health']);
  });

  it('gives the daemon settings its own loader accepts (nothing but the two asked for)', () => {
    const config = loadServiceConfig(doc.services.daemon!, {
      SUPPLIER_API_URL: 'https://portal.example.com/api/v1',
      SUPPLIER_EMAIL: 'ops@example.com',
    });
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(config.dataDir).toBe('/data');
    expect(config.httpPort).toBe(9464);
    expect(() => loadServiceConfig(doc.services.daemon!, {})).toThrow(/needs SUPPLIER_API_URL/);
  });

  it('takes a second supplier as one more service, with its own prefix, data, folders, password and port', () => {
    const text = withSecondSupplier(composeText);
    expect(text).not.toBe(composeText);
    const two = compose(text);
    expect(problems(two)).toEqual([]);
    const [a, b] = [two.services.daemon!, two.services['supplier-b']!];
    expect(b).toBeDefined();
    // The same image, health check and shared settings…
    expect(b.image).toBe(a.image);
    expect(b.healthcheck).toEqual(a.healthcheck);
    for (const key of ['REDIS_URL', 'SYNC_DATA_DIR', 'HTTP_PORT', 'SUPPLIER_PASSWORD_FILE']) {
      expect(b.environment?.[key], key).toBe(a.environment?.[key]);
    }
    // …and its own of everything that is a supplier's.
    const vars = {
      SUPPLIER_API_URL: 'https://portal.example.com/api/v1',
      SUPPLIER_EMAIL: 'a@example.com',
      SUPPLIER_B_API_URL: 'https://portal.example.com/api/v1',
      SUPPLIER_B_EMAIL: 'b@example.com',
    };
    const [ca, cb] = [loadServiceConfig(a, vars), loadServiceConfig(b, vars)];
    expect(cb.queuePrefix).not.toBe(ca.queuePrefix);
    expect(cb.email).not.toBe(ca.email);
    const hostSide = (s: Service) => (s.volumes ?? []).map((v) => v.split(':')[0]);
    expect(hostSide(b).filter((h) => hostSide(a).includes(h))).toEqual([]);
    expect(b.volumes?.some((v) => v.endsWith(':/data') && !v.startsWith('./'))).toBe(true);
    expect(b.secrets?.[0]?.source).not.toBe(a.secrets?.[0]?.source);
    expect(b.secrets?.[0]?.target).toBe(a.secrets?.[0]?.target);
    expect(two.secrets[b.secrets![0]!.source]).toBeDefined();
    const hostPort = (s: Service) => s.ports?.[0]?.split(':').slice(0, -1).join(':');
    expect(hostPort(b)).not.toBe(hostPort(a));
    for (const v of hostSide(b).filter((h) => !h!.startsWith('./'))) {
      expect(two.volumes, v).toHaveProperty(v!);
    }
  });
});
