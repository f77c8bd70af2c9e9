/**
 * The daemon's Node flags however it is started (src/cli/relaunch.ts, src/cli/nodeFlags.ts): which
 * flags a process lacks, and what `run` re-executes with. The real re-execution, PID and memory:
 * test/e2e/launchFlags.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  DAEMON_NODE_ENV,
  DAEMON_NODE_FLAGS,
  missingNodeEnv,
  missingNodeFlags,
} from '../../../src/cli/nodeFlags.ts';
import { RELAUNCH_MARK, relaunchIfNeeded, startsDaemon } from '../../../src/cli/relaunch.ts';

const ALL = [...DAEMON_NODE_FLAGS];
/** The environment the daemon starts with, as a process that has it. */
const ENV = { ...DAEMON_NODE_ENV };
const ENV_NAMES = Object.keys(DAEMON_NODE_ENV);

/** A process as relaunchIfNeeded sees it, whose execve records its call (and returns). */
function proc(argv: string[], execArgv: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const calls: { file: string; args: readonly string[]; env: NodeJS.ProcessEnv }[] = [];
  return {
    calls,
    p: {
      argv: ['/usr/bin/node', '/app/dist/cli/main.js', ...argv],
      execArgv,
      execPath: '/usr/bin/node',
      env: { PATH: '/usr/bin', ...env } as NodeJS.ProcessEnv,
      execve: ((file: string, args: readonly string[] = [], e: NodeJS.ProcessEnv = {}) => {
        calls.push({ file, args, env: e });
      }) as NodeJS.Process['execve'],
    },
  };
}

describe("the daemon's Node flags", () => {
  it('are missing unless Node’s command line or NODE_OPTIONS names them, whatever their value', () => {
    expect(missingNodeFlags([], undefined)).toEqual(ALL);
    expect(missingNodeFlags(ALL, undefined)).toEqual([]);
    expect(missingNodeFlags([], ALL.join(' '))).toEqual([]);
    expect(missingNodeFlags([], `  ${ALL[1]}  `)).toEqual([ALL[0], ALL[2]]);
    // An operator's own ceiling stays; `_` and `-` are one to V8.
    expect(missingNodeFlags(['--max_old_space_size=512', '--expose_gc'], undefined)).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(missingNodeFlags(['--inspect', '--max-old-space-size'], '--require ./x.js')).toEqual([
      '--max-semi-space-size=16',
      '--expose-gc',
    ]);
  });

  it('are asked for by `run` alone, not by its --help nor by any other command', () => {
    expect(startsDaemon(['run'])).toBe(true);
    expect(startsDaemon(['run', '--config', 'x.json'])).toBe(true);
    expect(startsDaemon(['run', '--help'])).toBe(false);
    expect(startsDaemon(['run', '-h'])).toBe(false);
    for (const other of [[], ['--version'], ['status'], ['health', '--live'], ['demo']])
      expect(startsDaemon(other)).toBe(false);
  });

  it('`run` without them re-executes the same script and arguments with the ones it lacks, the flags it had after them, marked', () => {
    const { p, calls } = proc(['run', '--log-level', 'info'], ['--max-old-space-size=512']);
    expect(relaunchIfNeeded(p)).toBeUndefined();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.file).toBe('/usr/bin/node');
    expect(calls[0]!.args).toEqual([
      '/usr/bin/node',
      '--max-semi-space-size=16',
      '--expose-gc',
      '--max-old-space-size=512',
      '/app/dist/cli/main.js',
      'run',
      '--log-level',
      'info',
    ]);
    expect(calls[0]!.env).toEqual({
      PATH: '/usr/bin',
      MALLOC_ARENA_MAX: '1',
      [RELAUNCH_MARK]: '1',
    });
  });

  it('`run` with every flag but without the environment re-executes for it; a value of its own is kept', () => {
    expect(missingNodeEnv({})).toEqual({ MALLOC_ARENA_MAX: '1' });
    expect(missingNodeEnv({ MALLOC_ARENA_MAX: '4' })).toEqual({});
    const bare = proc(['run'], ALL);
    expect(relaunchIfNeeded(bare.p)).toBeUndefined();
    expect(bare.calls[0]!.args).toEqual(['/usr/bin/node', ...ALL, '/app/dist/cli/main.js', 'run']);
    expect(bare.calls[0]!.env).toMatchObject({ MALLOC_ARENA_MAX: '1' });
    const own = proc(['run'], [], { MALLOC_ARENA_MAX: '4' });
    relaunchIfNeeded(own.p);
    expect(own.calls[0]!.env).toMatchObject({ MALLOC_ARENA_MAX: '4' });
  });

  it('the re-executed process never re-executes again, and takes the mark out of its environment', () => {
    const done = proc(['run'], ALL, { ...ENV, [RELAUNCH_MARK]: '1' });
    expect(relaunchIfNeeded(done.p)).toEqual({
      outcome: 'relaunched',
      missing: [],
      missingEnv: [],
    });
    expect(done.p.env[RELAUNCH_MARK]).toBeUndefined();

    // Something between dropped the flags again: no loop, and the daemon says which are missing.
    const dropped = proc(['run'], [], { [RELAUNCH_MARK]: '1' });
    expect(relaunchIfNeeded(dropped.p)).toEqual({
      outcome: 'still-missing',
      missing: ALL,
      missingEnv: ENV_NAMES,
    });
    expect(dropped.calls).toHaveLength(0);
  });

  it('nothing is done for other commands or a process that has them; a platform without execve is said', () => {
    const status = proc(['status']);
    expect(relaunchIfNeeded(status.p)).toBeUndefined();
    const given = proc(['run'], ALL, ENV);
    expect(relaunchIfNeeded(given.p)).toEqual({ outcome: 'given', missing: [], missingEnv: [] });
    expect([...status.calls, ...given.calls]).toHaveLength(0);

    const windows = proc(['run']);
    const { execve: _, ...withoutExecve } = windows.p;
    expect(relaunchIfNeeded(withoutExecve as typeof windows.p)).toMatchObject({
      outcome: 'unavailable',
      missing: ALL,
    });
    const failing = proc(['run']);
    failing.p.execve = (() => {
      throw new Error('EACCES');
    }) as NodeJS.Process['execve'];
    expect(relaunchIfNeeded(failing.p)).toEqual({
      outcome: 'unavailable',
      missing: ALL,
      missingEnv: ENV_NAMES,
      error: 'EACCES',
    });
  });
});
