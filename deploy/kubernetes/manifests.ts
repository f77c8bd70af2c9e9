/**
 * The Kubernetes objects of one supplier's daemon, built from a fleet file (fleet.ts): a
 * StatefulSet of one replica with its own data volume, the portal password as a Secret mounted
 * as a file, the settings and the inbox profiles / stock rules in ConfigMaps, probes on /livez
 * (liveness: `health --live`) and /healthz (readiness: `health`), and a Service for the console
 * and /metrics. docs/deployment.md ("Kubernetes") explains each choice. Built with the kubernetes-models classes, so that a misspelt field fails the type
 * check and a wrong value fails validate() against the Kubernetes API schemas.
 */
import { createHash } from 'node:crypto';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IVolumeMount } from 'kubernetes-models/v1/VolumeMount';
import type { Fleet, Supplier } from './fleetSchema.ts';

export type Manifest = ConfigMap | Secret | Service | StatefulSet;

/** The port of /healthz, /metrics and the console in every pod. */
export const HTTP_PORT = 9464;
const DATA_DIR = '/data';
const SECRET_DIR = '/run/secrets/supplier-sync';
const FILES_DIR = '/etc/supplier-sync';
/** The image's user (the Dockerfile's `node`). */
const APP_UID = 1000;

/** No privileges, nothing written outside the volumes. */
const containerSecurity = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** Every name of a supplier's objects: `supplier-sync-<name>`. */
export const baseName = (s: Supplier) => `supplier-sync-${s.name}`;
export const secretName = (s: Supplier) => `${baseName(s)}-portal`;

const labels = (s: Supplier) => ({
  'app.kubernetes.io/name': 'supplier-sync',
  'app.kubernetes.io/instance': s.name,
  'app.kubernetes.io/component': 'daemon',
  // The label Prometheus copies onto every series (deploy/prometheus: `supplier`).
  'supplier-sync/supplier': s.name,
});
const selector = (s: Supplier) => ({
  'app.kubernetes.io/name': 'supplier-sync',
  'app.kubernetes.io/instance': s.name,
});

/**
 * The settings the pod gets from its ConfigMap: the fleet's, then the supplier's. The generator
 * owns where things are in the pod (data dir, password file, HTTP endpoint, watched files) and
 * the queue prefix (the supplier's name, unique in the fleet).
 */
export function supplierSettings(fleet: Fleet, s: Supplier): Record<string, string> {
  return {
    // An ERP share is a network file system: file-system events do not cross it.
    ...(fleet.erp === undefined ? {} : { INBOX_POLLING: 'true' }),
    ...fleet.settings,
    ...s.settings,
    SYNC_QUEUE_PREFIX: s.name,
    SYNC_DATA_DIR: DATA_DIR,
    SUPPLIER_PASSWORD_FILE: `${SECRET_DIR}/password`,
    HTTP_PORT: String(HTTP_PORT),
    HTTP_HOST: '0.0.0.0',
    ...(s.inboxProfiles === undefined
      ? {}
      : { INBOX_PROFILES_FILE: `${FILES_DIR}/inbox-profiles.json` }),
    ...(s.stockRules === undefined ? {} : { STOCK_RULES_FILE: `${FILES_DIR}/stock-rules.json` }),
  };
}

/** The JSON files of the supplier's files ConfigMap (re-read by the daemon when they change). */
function supplierFiles(s: Supplier): Record<string, string> {
  const files: Record<string, string> = {};
  if (s.inboxProfiles !== undefined)
    files['inbox-profiles.json'] = `${JSON.stringify(s.inboxProfiles, null, 2)}\n`;
  if (s.stockRules !== undefined)
    files['stock-rules.json'] = `${JSON.stringify(s.stockRules, null, 2)}\n`;
  return files;
}

const hash = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

/**
 * The objects of one supplier, in the order to apply them. The Secret only when its password is
 * given (`password`); otherwise it is created apart (docs/deployment.md) and only referred to.
 */
export function supplierManifests(fleet: Fleet, s: Supplier, password?: string): Manifest[] {
  const name = baseName(s);
  const namespace = fleet.namespace;
  const meta = (objectName: string) => ({ name: objectName, namespace, labels: labels(s) });
  const settings = supplierSettings(fleet, s);
  const files = supplierFiles(s);
  const hasFiles = Object.keys(files).length > 0;

  const out: Manifest[] = [new ConfigMap({ metadata: meta(`${name}-settings`), data: settings })];
  if (hasFiles) out.push(new ConfigMap({ metadata: meta(`${name}-files`), data: files }));
  if (password !== undefined) {
    out.push(
      new Secret({
        metadata: meta(secretName(s)),
        type: 'Opaque',
        stringData: { password },
      }),
    );
  }

  const mounts: IVolumeMount[] = [
    { name: 'data', mountPath: DATA_DIR },
    { name: 'portal-password', mountPath: SECRET_DIR, readOnly: true },
    { name: 'tmp', mountPath: '/tmp' },
  ];
  const volumes: IVolume[] = [
    {
      name: 'portal-password',
      // Readable by the pod's group (fsGroup) only; a rotated password is read at the next start.
      secret: { secretName: secretName(s), defaultMode: 0o440 },
    },
    { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
  ];
  if (hasFiles) {
    mounts.push({ name: 'files', mountPath: FILES_DIR, readOnly: true });
    volumes.push({ name: 'files', configMap: { name: `${name}-files` } });
  }
  const initContainers: IContainer[] = [];
  if (fleet.erp !== undefined) {
    // The ERP's share, the supplier's folder in it: inbox/ and outbox/ over the data volume's.
    const folder = `${fleet.erp.folderPrefix}${s.name}`;
    mounts.push(
      { name: 'erp', mountPath: `${DATA_DIR}/inbox`, subPath: `${folder}/inbox` },
      { name: 'erp', mountPath: `${DATA_DIR}/outbox`, subPath: `${folder}/outbox` },
    );
    volumes.push({ name: 'erp', persistentVolumeClaim: { claimName: fleet.erp.claimName } });
    // The kubelet would create missing subPath folders owned by root, which the daemon cannot
    // write (it would stop at start, exit 78, naming the folder): they are made first, as the
    // daemon's user.
    initContainers.push({
      name: 'erp-folders',
      image: fleet.image,
      command: ['mkdir', '-p', `/erp/${folder}/inbox`, `/erp/${folder}/outbox`],
      volumeMounts: [{ name: 'erp', mountPath: '/erp' }],
      securityContext: containerSecurity,
      resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
    });
  }

  const probe = (path: '/healthz' | '/livez', periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path, port: 'http' },
    periodSeconds,
    timeoutSeconds: 10,
    failureThreshold,
  });
  const container: IContainer = {
    name: 'daemon',
    image: fleet.image,
    args: ['run'],
    envFrom: [{ configMapRef: { name: `${name}-settings` } }],
    ports: [{ name: 'http', containerPort: HTTP_PORT, protocol: 'TCP' }],
    // Readiness is `supplier-sync health`'s check over HTTP (/healthz: the disk is not full, Redis
    // answers, state.db opens, the heartbeat is under 60 s old); liveness and startup are
    // `supplier-sync health --live`'s (/livez: the daemon's process answers and beats), since a
    // restart mends a stuck process but never a full disk, a Redis outage or a portal that
    // refuses. Over HTTP: no process started per probe. Startup allows 10 minutes (a large
    // state.db's migrations); readiness drops the pod from the Service within 30 s; liveness
    // restarts it after 5 minutes without an answer.
    startupProbe: probe('/livez', 5, 120),
    readinessProbe: probe('/healthz', 15, 2),
    livenessProbe: probe('/livez', 30, 10),
    resources: {
      requests: { cpu: fleet.resources.cpuRequest, memory: fleet.resources.memoryRequest },
      limits: { memory: fleet.resources.memoryLimit },
    },
    volumeMounts: mounts,
    securityContext: containerSecurity,
  };

  out.push(
    new StatefulSet({
      metadata: meta(name),
      spec: {
        replicas: 1,
        serviceName: name,
        selector: { matchLabels: selector(s) },
        template: {
          metadata: {
            labels: labels(s),
            annotations: {
              // A changed setting rolls the pod (settings are read at start; the JSON files are
              // re-read by the running daemon).
              'supplier-sync/settings-hash': hash(settings),
            },
          },
          spec: {
            // Kubernetes would put <SERVICE>_SERVICE_HOST variables for every Service of the
            // namespace into the environment: `SUPPLIER_SYNC_…` ones are settings' typos to the
            // daemon (exit 78).
            enableServiceLinks: false,
            // SIGTERM: the call in flight finishes, exit 0 within about 10 s.
            terminationGracePeriodSeconds: 30,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: APP_UID,
              runAsGroup: APP_UID,
              // The data volume (and the password file) belong to the daemon's group: a fresh
              // volume is usable as it comes.
              fsGroup: APP_UID,
              fsGroupChangePolicy: 'OnRootMismatch',
              seccompProfile: { type: 'RuntimeDefault' },
            },
            ...(initContainers.length > 0 ? { initContainers } : {}),
            containers: [container],
            volumes,
          },
        },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', labels: labels(s) },
            spec: {
              accessModes: ['ReadWriteOnce'],
              ...(fleet.storageClassName === undefined
                ? {}
                : { storageClassName: fleet.storageClassName }),
              resources: { requests: { storage: s.dataVolumeSize ?? fleet.dataVolumeSize } },
            },
          },
        ],
      },
    }),
    new Service({
      metadata: meta(name),
      spec: {
        type: 'ClusterIP',
        selector: selector(s),
        ports: [{ name: 'http', port: HTTP_PORT, targetPort: 'http', protocol: 'TCP' }],
      },
    }),
  );
  return out;
}
