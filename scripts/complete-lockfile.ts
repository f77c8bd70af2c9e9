/**
 * Adds lock entries for optional platform packages (other operating systems and CPUs) that the
 * registry mirror of the build machines does not serve, so that `npm ci` accepts the lock there.
 * npm never installs these entries on linux-x64-glibc; they only complete the lock's picture.
 * Run after `npm install` changes dependencies: node scripts/complete-lockfile.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  optionalDependencies?: Record<string, string>;
  [k: string]: unknown;
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockPackage> };
const packages = lock.packages;
const added: string[] = [];
for (const meta of Object.values(packages)) {
  for (const [dep, version] of Object.entries(meta.optionalDependencies ?? {})) {
    if (`node_modules/${dep}` in packages) continue;
    const m =
      /-(android|darwin|freebsd|linux|win32)-(arm64|x64|arm|ia32|ppc64|riscv64|s390x)(?:-(musl|gnu|gnueabihf|msvc))?$/.exec(
        dep,
      );
    if (!m) continue;
    const entry: LockPackage = { cpu: [m[2]], optional: true, os: [m[1]], version };
    if (meta.dev) entry.dev = true;
    if (m[1] === 'linux') entry.libc = [m[3] === 'musl' ? 'musl' : 'glibc'];
    packages[`node_modules/${dep}`] = Object.fromEntries(
      Object.entries(entry).sort(([a], [b]) => a.localeCompare(b)),
    );
    added.push(dep);
  }
}
const [root, ...rest] = Object.entries(packages);
lock.packages = Object.fromEntries([root!, ...rest.sort(([a], [b]) => a.localeCompare(b))]);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length > 0 ? `added ${added.join(', ')}` : 'lock already complete');
