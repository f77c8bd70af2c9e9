/**
 * Monitoring a fleet: the alert rules and the dashboard work per supplier (the `supplier` label
 * each scrape configuration attaches), and promtool accepts the rules, proves them on two
 * suppliers' series (alerts.test.yml) and accepts the scrape configurations — where promtool is
 * installed (`.ci/run` installs Debian's prometheus package); skipped, saying so, where not.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  annotations: { summary: string };
}
const rules = () =>
  (
    parse(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ rules: Rule[] }> }
  ).groups.flatMap((g) => g.rules);

interface Panel {
  title?: string;
  type: string;
  targets?: Array<{ expr: string; legendFormat?: string }>;
  panels?: Panel[];
}
const panelsOf = (panels: readonly Panel[]): Panel[] =>
  panels.flatMap((p) => [p, ...panelsOf(p.panels ?? [])]);

/** Every `name{…}` or bare `name` of a supplier-sync metric in a PromQL expression. */
const metricRefs = (expr: string) =>
  [...expr.matchAll(/\b(supplier_sync_[a-z0-9_]+)(\{[^}]*\})?/g)].map((m) => ({
    name: m[1]!,
    selector: m[2] ?? '',
  }));

describe('alert rules for a fleet', () => {
  it('keep the supplier label through every aggregation and join, and name it in every summary', () => {
    for (const r of rules()) {
      for (const m of r.expr.matchAll(
        /\b(sum|max|min|avg|count|topk|bottomk)\b\s*(by\s*\(([^)]*)\))?/g,
      )) {
        expect(m[3]?.split(/\s*,\s*/), `${r.alert}: ${m[0]}`).toContain('supplier');
      }
      for (const m of r.expr.matchAll(/\bon\s*\(([^)]*)\)/g)) {
        expect(m[1]!.split(/\s*,\s*/), `${r.alert}: ${m[0]}`).toContain('supplier');
      }
      expect(r.annotations.summary, r.alert).toMatch(/^\{\{ \$labels\.supplier \}\}: /);
    }
  });
});

describe('the dashboard for a fleet', () => {
  const d = JSON.parse(read('deploy/grafana/supplier-sync.json')) as {
    panels: Panel[];
    templating: { list: Array<Record<string, unknown>> };
  };

  it('has a supplier variable (one, several or all) over the supplier label', () => {
    const v = d.templating.list.find((t) => t.name === 'supplier');
    expect(v).toMatchObject({
      type: 'query',
      multi: true,
      includeAll: true,
      definition: 'label_values(supplier_sync_heartbeat_age_seconds, supplier)',
    });
  });

  it('has an instance variable (one, several or all) over the instances of the suppliers chosen', () => {
    const names = d.templating.list.map((t) => t.name);
    expect(names.indexOf('instance')).toBeGreaterThan(names.indexOf('supplier'));
    expect(d.templating.list.find((t) => t.name === 'instance')).toMatchObject({
      type: 'query',
      multi: true,
      includeAll: true,
      allValue: '.*',
      definition:
        'label_values(supplier_sync_heartbeat_age_seconds{supplier=~"$supplier"}, instance)',
    });
    for (const p of panelsOf(d.panels))
      for (const t of p.targets ?? [])
        for (const ref of metricRefs(t.expr))
          expect(ref.selector, `${p.title}: ${ref.name}`).toContain('instance=~"$instance"');
  });

  it('filters every query by it and shows the supplier in every legend', () => {
    const targets = panelsOf(d.panels).flatMap((p) =>
      (p.targets ?? []).map((t) => ({ ...t, title: p.title })),
    );
    expect(targets.length).toBeGreaterThan(15);
    for (const t of targets) {
      const refs = metricRefs(t.expr);
      expect(refs.length, t.title).toBeGreaterThan(0);
      for (const ref of refs)
        expect(ref.selector, `${t.title}: ${ref.name}`).toContain('supplier=~"$supplier"');
      for (const m of t.expr.matchAll(/\bsum by \(([^)]*)\)/g))
        expect(m[1]!.split(/\s*,\s*/), t.title).toContain('supplier');
      expect(t.legendFormat, t.title).toContain('{{supplier}}');
    }
  });
});

describe('scrape configurations', () => {
  it('compose: every daemon target carries its supplier label (the second supplier too)', () => {
    const text = read('deploy/prometheus/prometheus.yml');
    const config = parse(text) as {
      scrape_configs: Array<{
        static_configs: Array<{ targets: string[]; labels: { supplier: string } }>;
      }>;
    };
    const statics = config.scrape_configs[0]!.static_configs;
    expect(statics).toEqual([{ targets: ['daemon:9464'], labels: { supplier: 'daemon' } }]);
    // The commented second target, as compose.yaml's commented second service.
    expect(text).toContain('# - targets: ["supplier-b:9464"]');
    expect(text).toContain('#     supplier: supplier-b');
  });

  it("kubernetes: the supplier label comes from the pods' supplier-sync/supplier label", async () => {
    const { supplierManifests } = await import('../../deploy/kubernetes/manifests.ts');
    const { readFleet } = await import('../../deploy/kubernetes/fleet.ts');
    const fleet = readFleet(join(ROOT, 'deploy/kubernetes/fleet.example.json'));
    const set = supplierManifests(fleet, fleet.suppliers[0]!).find((m) => m.kind === 'StatefulSet');
    const podLabels = Object.keys(
      (set!.toJSON() as { spec: { template: { metadata: { labels: object } } } }).spec.template
        .metadata.labels,
    );
    const config = parse(read('deploy/kubernetes/prometheus.yml')) as {
      scrape_configs: Array<{
        relabel_configs: Array<{ source_labels: string[]; target_label?: string }>;
      }>;
    };
    const relabel = config.scrape_configs[0]!.relabel_configs.find(
      (r) => r.target_label === 'supplier',
    );
    // Prometheus names a pod label __meta_kubernetes_pod_label_<name, non-alphanumerics as _>.
    const source = relabel?.source_labels[0]?.replace('__meta_kubernetes_pod_label_', '');
    expect(podLabels.map((l) => l.replace(/[^A-Za-z0-9_]/g, '_'))).toContain(source);
  });
});

const promtool = spawnSync('promtool', ['--version']).status === 0;
const skipped = promtool
  ? ''
  : ' (SKIPPED: promtool is not installed; Debian: apt-get install prometheus)';

describe.skipIf(!promtool)(`promtool${skipped}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-promtool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tool = (...args: string[]) => {
    const r = spawnSync('promtool', args, { encoding: 'utf8', cwd: dir });
    return { code: r.status, output: `${r.stdout}${r.stderr}` };
  };
  for (const f of ['alerts.yml', 'alerts.test.yml'])
    copyFileSync(join(ROOT, 'deploy/prometheus', f), join(dir, f));

  it('check rules: the alert rules are valid', () => {
    const r = tool('check', 'rules', 'alerts.yml');
    expect(r.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.code).toBe(0);
  });

  it('test rules: on three suppliers, each alert fires for the right one only', () => {
    const r = tool('test', 'rules', 'alerts.test.yml');
    expect(r.output).toContain('SUCCESS');
    expect(r.code).toBe(0);
  });

  it('check config: the compose profile’s Prometheus configuration is valid', () => {
    // Its rule file is where compose mounts it; beside it here.
    writeFileSync(
      join(dir, 'prometheus.yml'),
      read('deploy/prometheus/prometheus.yml').replace('/etc/prometheus/alerts.yml', 'alerts.yml'),
    );
    const r = tool('check', 'config', 'prometheus.yml');
    expect(r.output).toMatch(/SUCCESS/);
    expect(r.code).toBe(0);
  });

  it('check config: the Kubernetes Prometheus configuration is valid (where promtool knows Kubernetes discovery)', (ctx) => {
    copyFileSync(join(ROOT, 'deploy/kubernetes/prometheus.yml'), join(dir, 'kubernetes.yml'));
    const r = tool('check', 'config', 'kubernetes.yml');
    if (/field kubernetes_sd_configs not found/.test(r.output)) {
      // Debian builds Prometheus without Kubernetes service discovery.
      ctx.skip(
        `SKIPPED: this promtool (${execFileSync('promtool', ['--version'], { encoding: 'utf8' }).split('\n')[0]}) has no Kubernetes discovery`,
      );
    }
    expect(r.output).toMatch(/SUCCESS/);
    expect(r.code).toBe(0);
  });
});
