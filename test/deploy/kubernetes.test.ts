/**
 * deploy/kubernetes: the example fleet of three suppliers renders to objects that validate
 * against the Kubernetes API schemas (kubernetes-models, offline), each supplier with its own
 * prefix, Secret, volume and Service; the pods' settings are accepted by the daemon's own loader;
 * the committed one-supplier manifests are what the generator renders; a fleet file's mistakes
 * stop the rendering with a line naming them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseFleet, readFleet } from '../../deploy/kubernetes/fleet.ts';
import { renderSupplier } from '../../deploy/kubernetes/render.ts';
import { loadConfig } from '../../src/config/index.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const EXAMPLE = 'deploy/kubernetes/fleet.example.json';
const fleet = readFleet(join(ROOT, EXAMPLE));

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } };
const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/StatefulSet': StatefulSet,
};

/** The objects of one supplier as `kubectl apply` would read them back from the YAML. */
function objectsOf(name: string, password?: string): Obj[] {
  const supplier = fleet.suppliers.find((s) => s.name === name)!;
  const yaml = renderSupplier(fleet, supplier, EXAMPLE, password);
  return parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

const dir = mkdtempSync(join(tmpdir(), 'supplier-sync-k8s-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface PodSpec {
  enableServiceLinks: boolean;
  securityContext: { runAsNonRoot: boolean; runAsUser: number; fsGroup: number };
  containers: Array<{
    envFrom: Array<{ configMapRef: { name: string } }>;
    ports: Array<{ name: string; containerPort: number }>;
    livenessProbe: { httpGet: { path: string; port: string } };
    startupProbe: { httpGet: { path: string; port: string } };
    readinessProbe: { httpGet: { path: string; port: string } };
    resources: { requests: Record<string, string>; limits: Record<string, string> };
    volumeMounts: Array<{ name: string; mountPath: string; subPath?: string }>;
  }>;
  volumes: Array<{ name: string; secret?: { secretName: string } }>;
}
const statefulSet = (objs: Obj[]) =>
  objs.find((o) => o.kind === 'StatefulSet') as Obj & {
    spec: {
      replicas: number;
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
      volumeClaimTemplates: Array<{ metadata: { name: string } }>;
    };
  };

describe('the Kubernetes manifests', () => {
  it('for the three suppliers of the example validate against the API schemas', () => {
    expect(fleet.suppliers.map((s) => s.name)).toEqual(['acme', 'globex', 'initech']);
    for (const s of fleet.suppliers) {
      const objs = objectsOf(s.name, 'pw');
      expect(objs.map((o) => o.kind).sort()).toEqual(
        s.inboxProfiles === undefined
          ? ['ConfigMap', 'Secret', 'Service', 'StatefulSet']
          : ['ConfigMap', 'ConfigMap', 'Secret', 'Service', 'StatefulSet'],
      );
      for (const o of objs) {
        const Model = MODELS[`${o.apiVersion}/${o.kind}`];
        expect(Model, `${o.apiVersion} ${o.kind}`).toBeDefined();
        expect(() => new Model!(o as never).validate(), o.metadata.name).not.toThrow();
        expect(o.metadata.namespace).toBe('supplier-sync');
      }
    }
    // The schemas do refuse a wrong value: the check can fail.
    const broken = statefulSet(objectsOf('acme'));
    (broken.spec as { replicas: unknown }).replicas = 'one';
    expect(() => new StatefulSet(broken as never).validate()).toThrow(/replicas must be integer/);
  });

  it('give each supplier its own prefix, Secret, volume, Service and names', () => {
    const all = fleet.suppliers.map((s) => {
      const objs = objectsOf(s.name);
      const set = statefulSet(objs);
      const settings = objs.find(
        (o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-settings'),
      ) as Obj & { data: Record<string, string> };
      const service = objs.find((o) => o.kind === 'Service') as Obj & {
        spec: { selector: Record<string, string>; ports: Array<{ targetPort: string }> };
      };
      const pod = set.spec.template.spec;
      // One replica; the Service and the StatefulSet select this supplier's pod only.
      expect(set.spec.replicas).toBe(1);
      expect(set.spec.template.metadata.labels).toMatchObject(service.spec.selector);
      expect(set.spec.template.metadata.labels).toMatchObject(set.spec.selector.matchLabels);
      expect(service.spec.selector['app.kubernetes.io/instance']).toBe(s.name);
      // Probes and the Service reach the container's named port: liveness (and startup) ask
      // /livez, `health --live`'s check (a restart cannot free a full disk); readiness /healthz,
      // `health`'s.
      const c = pod.containers[0]!;
      expect(c.ports.map((p) => p.name)).toContain(service.spec.ports[0]!.targetPort);
      expect(c.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
      expect(c.startupProbe.httpGet).toEqual({ path: '/livez', port: 'http' });
      expect(c.readinessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(c.envFrom[0]!.configMapRef.name).toBe(settings.metadata.name);
      // Never root; the data volume belongs to the daemon's group; no service-link variables.
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 1000,
        fsGroup: 1000,
      });
      expect(pod.enableServiceLinks).toBe(false);
      expect(c.resources.requests).toEqual({
        cpu: fleet.resources.cpuRequest,
        memory: fleet.resources.memoryRequest,
      });
      expect(c.resources.limits).toEqual({ memory: fleet.resources.memoryLimit });
      return {
        prefix: settings.data.SYNC_QUEUE_PREFIX,
        secret: pod.volumes.find((v) => v.secret)?.secret?.secretName,
        claim: `${set.spec.volumeClaimTemplates[0]!.metadata.name}-${set.metadata.name}-0`,
        inbox: c.volumeMounts.find((m) => m.mountPath === '/data/inbox')?.subPath,
        names: objs.map((o) => `${o.kind}/${o.metadata.name}`),
      };
    });
    for (const key of ['prefix', 'secret', 'claim', 'inbox'] as const) {
      expect(new Set(all.map((a) => a[key])).size, key).toBe(3);
      for (const a of all) expect(a[key], key).toBeTruthy();
    }
    expect(new Set(all.flatMap((a) => a.names)).size).toBe(all.flatMap((a) => a.names).length);
  });

  it('give the daemon settings its own loader accepts, and show why service links are off', () => {
    const objs = objectsOf('acme', 'the-password');
    const settings = objs.find((o) => o.metadata.name === 'supplier-sync-acme-settings') as Obj & {
      data: Record<string, string>;
    };
    const secret = objs.find((o) => o.kind === 'Secret') as Obj & {
      stringData: Record<string, string>;
    };
    // The password is in the Secret only.
    expect(JSON.stringify(settings)).not.toContain('the-password');
    writeFileSync(join(dir, 'password'), secret.stringData.password!);
    const env: Record<string, string> = {
      ...settings.data,
      SUPPLIER_PASSWORD_FILE: join(dir, 'password'),
    };
    delete env.INBOX_PROFILES_FILE;
    delete env.STOCK_RULES_FILE;
    const config = loadConfig({ env, require: ['apiUrl', 'email', 'password'] });
    expect(config.password).toBe('the-password');
    expect(config.queuePrefix).toBe('acme');
    expect(config.httpPort).toBe(9464);
    expect(config.inboxPolling).toBe(true);
    // What Kubernetes would add for the Service of the namespace, had enableServiceLinks stayed on.
    expect(() =>
      loadConfig({ env: { ...env, SUPPLIER_SYNC_ACME_SERVICE_HOST: '10.0.0.7' } }),
    ).toThrow(/SUPPLIER_SYNC_ACME_SERVICE_HOST: unknown setting/);
  });

  it('for one supplier are committed as the generator renders them', () => {
    const committed = readFileSync(join(ROOT, 'deploy/kubernetes/acme.yaml'), 'utf8');
    const acme = fleet.suppliers.find((s) => s.name === 'acme')!;
    expect(
      committed,
      'regenerate: node deploy/kubernetes/render.ts deploy/kubernetes/fleet.example.json --out deploy/kubernetes and keep acme.yaml',
    ).toBe(renderSupplier(fleet, acme, EXAMPLE));
  });
});

describe('a fleet file with a mistake', () => {
  const example = JSON.parse(readFileSync(join(ROOT, EXAMPLE), 'utf8')) as {
    suppliers: Array<Record<string, unknown> & { settings?: Record<string, string> }>;
  };
  const variant = (change: (f: typeof example) => void) => {
    const copy = structuredClone(example);
    change(copy);
    return () => parseFleet(JSON.stringify(copy), 'fleet.json');
  };

  it('stops the rendering with one line naming the supplier and what is wrong', () => {
    expect(variant((f) => (f.suppliers[1]!.name = 'acme'))).toThrow(
      /^fleet\.json: suppliers\.1\.name: acme twice$/,
    );
    expect(variant((f) => (f.suppliers[0]!.name = 'Acme Ltd'))).toThrow(
      /^fleet\.json: suppliers\.0\.name: must be lower-case/,
    );
    expect(variant((f) => (f.suppliers[0]!.settings!.SUPPLIER_PASSWORD = 'pw'))).toThrow(
      /SUPPLIER_PASSWORD: the password goes in a Secret/,
    );
    expect(variant((f) => (f.suppliers[0]!.settings!.SYNC_QUEUE_PREFIX = 'x'))).toThrow(
      /SYNC_QUEUE_PREFIX: is set by the generator/,
    );
    expect(variant((f) => (f.suppliers[2]!.settings!.RECONCILE_CRON = 'nightly'))).toThrow(
      /^fleet\.json: supplier initech: RECONCILE_CRON: must be a cron expression/,
    );
    expect(variant((f) => delete f.suppliers[1]!.settings!.SUPPLIER_EMAIL)).toThrow(
      /^fleet\.json: supplier globex: SUPPLIER_EMAIL: /,
    );
    expect(
      variant((f) => (f.suppliers[0]!.stockRules = { rules: [{ sku: 'X', percent: 900 }] })),
    ).toThrow(/^fleet\.json: supplier acme: STOCK_RULES_FILE: /);
    expect(variant((f) => (f.suppliers[0]!.bogus = true))).toThrow(/suppliers\.0/);
  });
});
