/**
 * The dashboard and alert rules that ship in deploy/ (and the compose profile that runs them)
 * name only metrics the running daemon's /metrics has, and are well-formed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Harness, startHarness } from '../helpers/daemonHarness.ts';
import { waitUntil } from '../helpers/sandbox.ts';
import { freePort } from '../setup/redis.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Prometheus's own series, not the daemon's. */
const PROMETHEUS_SERIES = new Set(['up']);
/** Grafana's data source variable, as the dashboard's panels name it. */
const DATASOURCE = { type: 'prometheus', uid: ['$', '{datasource}'].join('') };
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads (functions, labels, keywords and numbers left out). */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const m of bare.matchAll(/(?<![\w.:])([a-zA-Z_:][\w:]*)(\s*\()?/g)) {
    if (m[2] !== undefined || KEYWORDS.has(m[1]!.toLowerCase())) continue;
    names.add(m[1]!);
  }
  return [...names];
}

interface Rule {
  alert?: unknown;
  expr?: unknown;
  for?: unknown;
  labels?: { severity?: unknown };
  annotations?: { summary?: unknown; description?: unknown };
}

const rules = (): Rule[] => {
  const doc = parse(read('deploy/prometheus/alerts.yml')) as {
    groups: Array<{ name: string; rules: Rule[] }>;
  };
  return doc.groups.flatMap((g) => g.rules);
};

interface Panel {
  type: string;
  title?: string;
  datasource?: unknown;
  targets?: Array<{ expr?: string }>;
  panels?: Panel[];
}

const dashboard = () =>
  JSON.parse(read('deploy/grafana/supplier-sync.json')) as {
    uid: string;
    panels: Panel[];
    templating: { list: Array<{ name: string; type: string }> };
  };

const panelsOf = (panels: readonly Panel[]): Panel[] =>
  panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);

describe('metric names in PromQL', () => {
  it('are told from functions, labels, ranges, grouping and keywords', () => {
    expect(
      metricNames(
        'sum by (queue) (rate(a_total{state=~"x|y", lane="stock"}[5m])) > 0 and on() b_metric offset 1h unless time() - c:rec',
      ).sort(),
    ).toEqual(['a_total', 'b_metric', 'c:rec']);
    expect(metricNames('up{job="supplier-sync"} == 0')).toEqual(['up']);
  });
});

describe('deploy/: alert rules and dashboard over the running daemon', () => {
  let h: Harness;
  let exposed: Set<string>;

  beforeAll(async () => {
    const port = await freePort();
    h = await startHarness('monitoring', {}, { HTTP_PORT: String(port) });
    const d = await h.start();
    await d.waitForEvent('shipments.polled', 15_000);
    const text = await waitUntil(
      async () => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        return res.ok ? res.text() : undefined;
      },
      { message: '/metrics' },
    );
    exposed = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    expect(exposed.size).toBeGreaterThan(10);
  }, 60_000);

  afterAll(async () => {
    await h?.cleanup();
  });

  it('alerts.yml: every rule well-formed, every metric it names in /metrics', () => {
    const all = rules();
    expect(all.length).toBeGreaterThanOrEqual(10);
    const names = new Set<string>();
    for (const r of all) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^SupplierSync[A-Z]\w+$/);
      expect(typeof r.expr, String(r.alert)).toBe('string');
      if (r.for !== undefined) expect(r.for, String(r.alert)).toMatch(/^\d+[smhd]$/);
      expect(['page', 'ticket'], String(r.alert)).toContain(r.labels?.severity);
      expect(typeof r.annotations?.summary, String(r.alert)).toBe('string');
      const used = metricNames(r.expr as string);
      expect(used.length, String(r.alert)).toBeGreaterThan(0);
      for (const m of used) names.add(m);
    }
    expect(new Set(all.map((r) => r.alert)).size).toBe(all.length);
    const missing = [...names].filter((m) => !PROMETHEUS_SERIES.has(m) && !exposed.has(m));
    expect(missing).toEqual([]);
    // The "alert on" list of docs/logs.md: failures, budget, logins, staleness, health, products.
    for (const m of [
      'supplier_sync_stock_failures',
      'supplier_sync_api_budget_remaining',
      'supplier_sync_login_blocked',
      'supplier_sync_sync_stale',
      'supplier_sync_heartbeat_age_seconds',
      'supplier_sync_foreign_logins_last_hour',
      'supplier_sync_shipments',
      'supplier_sync_products_declined_last_7d',
      'supplier_sync_catalogue_read_age_seconds',
    ])
      expect(names).toContain(m);
  });

  it('supplier-sync.json: every panel queries metrics that /metrics has', () => {
    const d = dashboard();
    expect(d.uid).toBe('supplier-sync');
    expect(d.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource' }),
    );
    const panels = panelsOf(d.panels).filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(10);
    const names = new Set<string>();
    for (const p of panels) {
      expect(p.datasource, String(p.title)).toEqual(DATASOURCE);
      expect(p.targets?.length, String(p.title)).toBeGreaterThan(0);
      for (const t of p.targets ?? []) {
        expect(typeof t.expr, String(p.title)).toBe('string');
        for (const m of metricNames(t.expr!)) names.add(m);
      }
    }
    expect([...names].filter((m) => !exposed.has(m))).toEqual([]);
    for (const m of [
      'supplier_sync_api_lane_calls_last_hour',
      'supplier_sync_pending_differences',
      'supplier_sync_eta_seconds',
      'supplier_sync_stock_failures',
      'supplier_sync_shipments',
      'supplier_sync_drifted_keys_total',
      'supplier_sync_held',
      'supplier_sync_last_full_read_timestamp_seconds',
      'supplier_sync_products_to_create',
      'supplier_sync_products_under_review',
      'supplier_sync_products_declined_last_7d',
      'supplier_sync_products_created_total',
      'supplier_sync_catalogue_read_age_seconds',
      'supplier_sync_catalogue_products',
    ])
      expect(names).toContain(m);
  });
});

describe('compose.yaml: the monitoring profile', () => {
  const compose = parse(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      { profiles?: string[]; volumes?: string[]; environment?: Record<string, string> }
    >;
  };
  /** host path → container path of a service's bind mounts of repository files. */
  const mounts = (service: string) =>
    new Map(
      (compose.services[service]?.volumes ?? [])
        .filter((v) => v.startsWith('./'))
        .map((v) => v.split(':') as [string, string]),
    );

  it('runs Prometheus and Grafana only with --profile monitoring, on the files in deploy/', () => {
    for (const name of ['prometheus', 'grafana'])
      expect(compose.services[name]?.profiles).toEqual(['monitoring']);
    expect(compose.services.daemon?.profiles).toBeUndefined();
    for (const name of ['prometheus', 'grafana'])
      for (const host of mounts(name).keys()) expect(existsSync(join(ROOT, host)), host).toBe(true);

    const prom = mounts('prometheus');
    const config = parse(read('deploy/prometheus/prometheus.yml')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(prom.get('./deploy/prometheus/prometheus.yml')).toBe('/etc/prometheus/prometheus.yml');
    expect(config.rule_files).toContain(prom.get('./deploy/prometheus/alerts.yml'));
    // The job the rules name, scraping the port the daemon serves /metrics on.
    expect(config.scrape_configs[0]?.job_name).toBe('supplier-sync');
    expect(config.scrape_configs[0]?.static_configs[0]?.targets).toEqual([
      `daemon:${compose.services.daemon?.environment?.HTTP_PORT}`,
    ]);

    const graf = mounts('grafana');
    const provider = parse(read('deploy/grafana/provisioning/dashboards/supplier-sync.yml')) as {
      providers: Array<{ options: { path: string } }>;
    };
    expect(graf.get('./deploy/grafana/supplier-sync.json')).toBe(
      `${provider.providers[0]?.options.path}/supplier-sync.json`,
    );
    expect(graf.get('./deploy/grafana/provisioning')).toBe('/etc/grafana/provisioning');
  });
});
