/**
 * Renders the Kubernetes manifests of every supplier of a fleet file (docs/deployment.md,
 * "Kubernetes"):
 *
 *   node deploy/kubernetes/render.ts FLEET.json [--passwords DIR] [--out DIR] > fleet.yaml
 *   kubectl apply -f fleet.yaml
 *
 * Without --out, one YAML stream on stdout; with it, DIR/<name>.yaml per supplier. With
 * --passwords DIR, each supplier's Secret is rendered too, from DIR/<name> (a trailing newline
 * ignored); without it the Secrets are created apart (`kubectl create secret generic
 * supplier-sync-<name>-portal --from-file=password=…`) and only referred to. Every object is
 * checked against the Kubernetes API schemas (kubernetes-models) before it is written.
 * Exit 0, or 1 with one line naming what is wrong.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { type Fleet, readFleet, type Supplier } from './fleet.ts';
import { type Manifest, supplierManifests } from './manifests.ts';

/** The YAML of one supplier's objects, each checked against the API schemas. */
export function renderSupplier(
  fleet: Fleet,
  supplier: Supplier,
  source: string,
  password?: string,
): string {
  const docs = supplierManifests(fleet, supplier, password).map((m: Manifest) => {
    m.validate();
    return stringify(m.toJSON(), { lineWidth: 0 });
  });
  return `# supplier-sync for ${supplier.name}: rendered by deploy/kubernetes/render.ts from ${source}; edit that file, not this one.\n---\n${docs.join('---\n')}`;
}

function main(argv: readonly string[]): number {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: { passwords: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help || positionals.length !== 1) {
    process.stderr.write(
      'usage: node deploy/kubernetes/render.ts FLEET.json [--passwords DIR] [--out DIR]\n',
    );
    return values.help ? 0 : 2;
  }
  const source = positionals[0]!;
  const fleet = readFleet(source);
  const password = (s: Supplier) => {
    if (values.passwords === undefined) return undefined;
    const text = readFileSync(join(values.passwords, s.name), 'utf8').replace(/\r?\n$/, '');
    if (text === '') throw new Error(`${join(values.passwords, s.name)}: empty password`);
    return text;
  };
  const rendered = fleet.suppliers.map((s) => ({
    name: s.name,
    yaml: renderSupplier(fleet, s, source, password(s)),
  }));
  if (values.out === undefined) {
    process.stdout.write(rendered.map((r) => r.yaml).join('---\n'));
  } else {
    mkdirSync(values.out, { recursive: true });
    for (const r of rendered) writeFileSync(join(values.out, `${r.name}.yaml`), r.yaml);
    process.stderr.write(`wrote ${rendered.length} suppliers to ${values.out}\n`);
  }
  return 0;
}

if (import.meta.filename === process.argv[1]) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`render: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
