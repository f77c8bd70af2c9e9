import { createHash, randomBytes } from 'node:crypto';
import type { StateDb } from '../../state/db.ts';
import { KeyValueStore } from '../../state/kv.ts';
import type { LoginBlock } from '../../state/kvKeys.ts';

const LOGIN_BLOCK_KEY = 'api.login_block';

function credentialHash(salt: string, email: string, password: string): string {
  return createHash('sha256')
    .update(salt)
    .update('\0')
    .update(email.toLowerCase())
    .update('\0')
    .update(password)
    .digest('hex');
}

/** The block that applies to these credentials, if any; a block for other credentials is lifted. */
export function activeLoginBlock(
  db: StateDb,
  email: string,
  password: string,
): LoginBlock | undefined {
  const kv = new KeyValueStore(db);
  const block = kv.get(LOGIN_BLOCK_KEY);
  if (block === undefined) return undefined;
  if (block.hash === credentialHash(block.salt, email, password)) return block;
  kv.delete(LOGIN_BLOCK_KEY); // the configuration changed: try again
  return undefined;
}

export function setLoginBlock(
  db: StateDb,
  email: string,
  password: string,
  status: number,
  now: number,
): LoginBlock {
  const salt = randomBytes(16).toString('hex');
  const block: LoginBlock = {
    salt,
    hash: credentialHash(salt, email, password),
    at: now,
    status,
    account: email,
  };
  new KeyValueStore(db).set(LOGIN_BLOCK_KEY, block, now);
  return block;
}

/** The operator's way out: lets the next call log in again with the same credentials. */
export function clearLoginBlock(db: StateDb): boolean {
  const kv = new KeyValueStore(db);
  const had = kv.get(LOGIN_BLOCK_KEY) !== undefined;
  kv.delete(LOGIN_BLOCK_KEY);
  return had;
}

/** The current block without lifting anything (for status displays). */
export function readLoginBlock(db: StateDb): Omit<LoginBlock, 'salt' | 'hash'> | undefined {
  const block = new KeyValueStore(db).get(LOGIN_BLOCK_KEY);
  return block && { at: block.at, status: block.status, account: block.account };
}
