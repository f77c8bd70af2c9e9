/**
 * Every place that starts the daemon's process gives Node the flags of src/cli/nodeFlags.ts, and
 * the environment beside them (DAEMON_NODE_ENV).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DAEMON_NODE_ENV,
  DAEMON_NODE_ENV_PREFIX,
  DAEMON_NODE_FLAGS,
} from '../../src/cli/nodeFlags.ts';

const root = process.cwd();
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const flags = DAEMON_NODE_FLAGS.join(' ');

describe("the daemon's Node flags", () => {
  it('are given by the npm scripts that start it', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> })
      .scripts;
    for (const name of ['start', 'dev', 'demo']) {
      expect(scripts[name], name).toMatch(new RegExp(`^${DAEMON_NODE_ENV_PREFIX} node ${flags} `));
    }
  });

  it("are given by the image's entry point: the installed command, linked to dist/cli/main.js", () => {
    const dockerfile = read('Dockerfile');
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
    const argv = JSON.parse(entry ?? '[]') as string[];
    expect(argv.at(-1)).toBe('supplier-sync');
    for (const [name, value] of Object.entries(DAEMON_NODE_ENV))
      expect(dockerfile).toMatch(new RegExp(`^ENV (.*\\\\\\n)*\\s*${name}=${value}$`, 'm'));
    expect(dockerfile).toMatch(/ln -s \/app\/dist\/cli\/main\.js \/usr\/local\/bin\/supplier-sync/);
    // scripts/image-check.ts sees the running daemon as `node <flags> …/supplier-sync run`.
  });

  it("are given by the installed command's first line", () => {
    expect(read('src/cli/main.ts').split('\n')[0]).toBe(
      `#!/usr/bin/env -S ${DAEMON_NODE_ENV_PREFIX} node ${flags}`,
    );
  });
});
