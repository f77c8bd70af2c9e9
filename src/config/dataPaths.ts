import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from './configError.ts';

/** Every path under the data dir (SYNC_DATA_DIR): built here and nowhere else. */
export interface DataPaths {
  readonly dataDir: string;
  /** The state database. */
  readonly stateDb: string;
  readonly inbox: string;
  readonly processed: string;
  readonly failed: string;
  readonly outbox: string;
  /** Stock files the guard rails stopped, until an operator releases or rejects them. */
  readonly held: string;
  /** The one writer's OS lock (src/state/lock/writerLock.ts). */
  readonly writerLock: string;
  /** What a command writes to wake the daemon to take its request (src/actions/wakeFile.ts). */
  readonly requestWake: string;
  /**
   * The running daemon's heartbeat and disk state, rewritten in place (src/daemon/heartbeatFile.ts):
   * readable by commands while state.db cannot be written.
   */
  readonly heartbeatFile: string;
}

/** The folders `ensureDataDirs` creates. */
const FOLDERS = ['inbox', 'processed', 'failed', 'outbox', 'held'] as const;

export function dataPaths(dataDir: string): DataPaths {
  return {
    dataDir,
    stateDb: join(dataDir, 'state.db'),
    inbox: join(dataDir, 'inbox'),
    processed: join(dataDir, 'processed'),
    failed: join(dataDir, 'failed'),
    outbox: join(dataDir, 'outbox'),
    held: join(dataDir, 'held'),
    writerLock: join(dataDir, 'writer.lock'),
    requestWake: join(dataDir, 'requests.wake'),
    heartbeatFile: join(dataDir, 'heartbeat.json'),
  };
}

/** The longest file name most file systems take, in bytes (NAME_MAX). */
const NAME_MAX = 255;

/**
 * Why `name` is not the plain name of a file directly inside a folder (no `/`, not `.` or `..`,
 * no NUL, at most 255 bytes); undefined when it is. Names from outside — a job payload someone
 * may have written into Redis by hand — pass here before they become a path.
 */
export function fileNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string')
    return `not a file name but ${name === null ? 'null' : typeof name}`;
  if (name === '') return 'an empty name';
  if (name === '.' || name === '..') return `'${name}' names a folder, not a file`;
  if (name.includes('/')) return 'a path, not a file name (it holds a /)';
  if (name.includes('\u0000')) return 'a name holding a NUL byte';
  if (Buffer.byteLength(name) > NAME_MAX) return `a name longer than ${NAME_MAX} bytes`;
  return undefined;
}

/**
 * The path of the file `name` in inbox/: the one way a name from a job becomes a path. Throws
 * on anything but a plain file name (see fileNameProblem), so no job can reach outside inbox/.
 */
export function inboxFilePath(paths: DataPaths, name: string): string {
  const problem = fileNameProblem(name);
  if (problem !== undefined) throw new Error(`refused inbox file name: ${problem}`);
  return join(paths.inbox, name);
}

/**
 * Creates the data dir and its folders (inbox/, processed/, failed/, outbox/, held/), and makes
 * sure this process may create, rename and delete files in each of them. A folder it cannot
 * write — typically one a container engine created for a bind mount, owned by root — is a
 * ConfigError on SYNC_DATA_DIR naming that folder (exit 78 at start), never a stream of EACCES
 * failures later while the daemon looks healthy.
 */
export async function ensureDataDirs(dataDir: string): Promise<DataPaths> {
  const paths = dataPaths(dataDir);
  for (const folder of FOLDERS) {
    try {
      await mkdir(paths[folder], { recursive: true });
    } catch (err) {
      if (!isPermissionError(err)) throw err;
      throw await unwritableError(await closestExisting(paths[folder]), err);
    }
  }
  for (const dir of [paths.dataDir, ...FOLDERS.map((f) => paths[f])]) {
    try {
      await access(dir, constants.W_OK | constants.X_OK);
    } catch (err) {
      throw await unwritableError(dir, err);
    }
  }
  return paths;
}

function isPermissionError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EACCES' || code === 'EPERM' || code === 'EROFS';
}

/** The folder itself, or its nearest parent that exists (the one a mkdir failed in). */
async function closestExisting(dir: string): Promise<string> {
  for (let d = dir; ; d = join(d, '..')) {
    if ((await stat(d).catch(() => undefined)) !== undefined || d === join(d, '..')) return d;
  }
}

/** One line: the folder, who owns it, who this process is, and what to do. */
async function unwritableError(dir: string, cause: unknown): Promise<ConfigError> {
  const st = await stat(dir).catch(() => undefined);
  const uid = process.getuid?.();
  const gid = process.getgid?.();
  const owner =
    st === undefined
      ? ''
      : `owner uid ${st.uid} gid ${st.gid}, mode ${(st.mode & 0o7777).toString(8).padStart(4, '0')}; `;
  const code = (cause as NodeJS.ErrnoException).code ?? 'not writable';
  const readOnly = code === 'EROFS' ? ' (a read-only file system)' : '';
  const who = uid === undefined ? 'this process' : `uid ${uid} gid ${gid}`;
  return new ConfigError(
    'SYNC_DATA_DIR',
    `cannot write ${dir}${readOnly} (${owner}the daemon runs as ${who}): give the folder to ${who} (chown, or fsGroup in Kubernetes) or mount it writable, then start again`,
    { cause },
  );
}
