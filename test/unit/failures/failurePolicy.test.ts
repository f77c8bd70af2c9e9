import { describe, expect, it } from 'vitest';
import {
  BadResponseError,
  BudgetExhaustedError,
  BulkIncompleteError,
  ClientClosedError,
  LoginBlockedError,
  LoginRejectedError,
  LoginWaitError,
  NetworkError,
  PortalHttpError,
  RateLimitedError,
  RequestTimeoutError,
  TokenRefusedError,
} from '../../../src/api/portalErrors.ts';
import { UsageError } from '../../../src/cli/usage.ts';
import { ConfigError } from '../../../src/config/configError.ts';
import { DiskFullError } from '../../../src/daemon/diskSpace.ts';
import { CodedError, ERROR_CODES, type ErrorCode } from '../../../src/failures/codedError.ts';
import {
  countsAgainstFile,
  DISK_FULL_WAIT_MS,
  failurePolicy,
  isDiskFull,
} from '../../../src/failures/failurePolicy.ts';
import { HeldDecisionError } from '../../../src/inventory/held/heldLookup.ts';
import {
  DcListUnavailableError,
  FileChangedError,
  SnapshotReadError,
} from '../../../src/inventory/index.ts';
import { PortalStockUnknownError } from '../../../src/inventory/ingest/ingestErrors.ts';
import { FileFormatError } from '../../../src/inventory/parse/records.ts';
import { ReferencesUnavailableError } from '../../../src/products/index.ts';
import { StagingError } from '../../../src/state/staging/stagingError.ts';

const http = (status: number, extra: Record<string, unknown> = {}) =>
  new PortalHttpError(`POST /x: HTTP ${status}`, { status, ...extra });

describe('the failure policy', () => {
  it('a 4xx refusal is final, with the portal’s own words', () => {
    for (const status of [400, 404, 409, 422]) {
      expect(failurePolicy(http(status, { apiMessage: 'Shipment already shipped' }))).toEqual({
        kind: 'final',
        message: 'Shipment already shipped',
        status,
      });
    }
    expect(failurePolicy(http(400, { excerpt: 'Bad Request page' }))).toMatchObject({
      kind: 'final',
      message: 'Bad Request page',
    });
  });

  it('403 and refused credentials need a person: fix-config, never final', () => {
    expect(failurePolicy(http(403, { apiMessage: 'Insufficient permissions' }))).toEqual({
      kind: 'fix-config',
      reason: 'the portal answered 403 (insufficient permissions): Insufficient permissions',
    });
    expect(failurePolicy(new LoginRejectedError('refused', { status: 401 })).kind).toBe(
      'fix-config',
    );
    expect(failurePolicy(new LoginBlockedError('blocked')).kind).toBe('fix-config');
  });

  it('what may pass is retried, at the time the portal named when it named one', () => {
    expect(failurePolicy(http(503))).toEqual({
      kind: 'retry',
      notBefore: undefined,
      outcomeUnknown: false,
    });
    expect(failurePolicy(http(500, { outcomeUnknown: true }))).toMatchObject({
      kind: 'retry',
      outcomeUnknown: true,
    });
    expect(failurePolicy(http(408)).kind).toBe('retry');
    // A 4xx the client knows may pass (a 'collected' refused while not shipped yet).
    expect(failurePolicy(http(409, { retryable: true })).kind).toBe('retry');
    expect(failurePolicy(new RateLimitedError('429', { status: 429, retryAt: 1234 }))).toEqual({
      kind: 'retry',
      notBefore: 1234,
      outcomeUnknown: false,
    });
    for (const err of [
      new NetworkError('reset', { outcomeUnknown: true }),
      new RequestTimeoutError('slow', { outcomeUnknown: true }),
      new BadResponseError('odd body'),
      new ClientClosedError('closing'),
      new Error('a bug'),
      'not even an error',
    ]) {
      expect(failurePolicy(err).kind).toBe('retry');
    }
  });

  it('a spent budget, the login cap and the re-login spacing wait until their time', () => {
    expect(failurePolicy(new BudgetExhaustedError('stock', 5000))).toMatchObject({
      kind: 'wait',
      until: 5000,
    });
    expect(failurePolicy(new LoginWaitError('cap', 6000))).toMatchObject({
      kind: 'wait',
      until: 6000,
    });
    expect(failurePolicy(new TokenRefusedError('refused', 7000))).toMatchObject({
      kind: 'wait',
      until: 7000,
    });
  });

  it('a bulk update that stopped part-way is decided by what stopped it', () => {
    const stopped = new BulkIncompleteError(new BudgetExhaustedError('stock', 99), {}, [1, 2]);
    expect(failurePolicy(stopped)).toMatchObject({ kind: 'wait', until: 99 });
    expect(failurePolicy(new BulkIncompleteError(http(403), {}, [])).kind).toBe('fix-config');
  });

  it('a source that waits in place is retried, nothing applied; after the portal when it said when', () => {
    const retryNow = { kind: 'retry', notBefore: undefined, outcomeUnknown: false };
    expect(failurePolicy(new FileChangedError('a.csv'))).toEqual(retryNow);
    expect(failurePolicy(new PortalStockUnknownError('a.csv', 'dc'))).toEqual(retryNow);
    expect(failurePolicy(new StagingError('s-1.db', new Error('SQLITE_FULL')))).toEqual(retryNow);
    expect(failurePolicy(new SnapshotReadError('locked', 'the snapshot is locked'))).toEqual(
      retryNow,
    );
    expect(failurePolicy(new DcListUnavailableError('DC-X unknown'))).toEqual(retryNow);
    const spent = new DcListUnavailableError('DC-X unknown', {
      cause: new BudgetExhaustedError('stock', 4321),
    });
    expect(failurePolicy(spent)).toEqual({ kind: 'retry', notBefore: 4321, outcomeUnknown: false });
    const later = new DcListUnavailableError('DC-X unknown', {
      cause: new RateLimitedError('429', { status: 429, retryAt: 999 }),
    });
    expect(failurePolicy(later)).toMatchObject({ kind: 'retry', notBefore: 999 });
    // A products file whose references cannot be read waits in inbox/ the same way.
    const references = new ReferencesUnavailableError('no sites', {
      cause: new BudgetExhaustedError('products', 777),
    });
    expect(failurePolicy(references)).toEqual({
      kind: 'retry',
      notBefore: 777,
      outcomeUnknown: false,
    });
    expect(countsAgainstFile(references)).toBe(false);
  });

  it('input that fails the same way every time is final', () => {
    for (const err of [
      new FileFormatError('line 3: not JSON'),
      new SnapshotReadError('query', 'the dc query must return columns …'),
      new HeldDecisionError('E_HELD_UNKNOWN', 'nothing held has id 7'),
      new HeldDecisionError('E_HELD_DECIDED', 'no longer held'),
      new HeldDecisionError('E_HELD_FILE_GONE', 'no longer in held/'),
      new UsageError('missing ID'),
    ]) {
      expect(failurePolicy(err)).toEqual({
        kind: 'final',
        message: err.message,
        status: undefined,
      });
    }
  });

  it('a snapshot error carries the code of what failed', () => {
    expect(new SnapshotReadError('query', 'x').code).toBe('E_SNAPSHOT_QUERY');
    expect(new SnapshotReadError('dc_list', 'x').code).toBe('E_DC_LIST_UNAVAILABLE');
    expect(new SnapshotReadError('portal_unknown', 'x').code).toBe('E_PORTAL_STOCK_UNKNOWN');
    for (const problem of ['missing', 'locked', 'corrupt', 'changed', 'error']) {
      expect(new SnapshotReadError(problem, 'x').code).toBe('E_SNAPSHOT_UNREADABLE');
    }
  });

  it('a full disk waits, whatever wraps it, and never counts against an inbox file', () => {
    const sqliteFull = Object.assign(new Error('database or disk is full'), {
      code: 'SQLITE_FULL',
    });
    const noSpace = Object.assign(new Error('ENOSPC: no space left on device, write'), {
      code: 'ENOSPC',
      errno: -28,
      syscall: 'write',
      path: '/data/staging/x.db',
    });
    const quota = Object.assign(new Error('EDQUOT: disk quota exceeded'), { code: 'EDQUOT' });
    const wrapped = [
      sqliteFull,
      noSpace,
      quota,
      new StagingError('s-1.db', sqliteFull),
      new DiskFullError('/data', 0, 'state.db cannot be written'),
      new Error('the merge failed', { cause: new Error('a step failed', { cause: noSpace }) }),
    ];
    for (const err of wrapped) {
      expect(isDiskFull(err)).toBe(true);
      expect(failurePolicy(err, 1000)).toEqual({
        kind: 'wait',
        until: 1000 + DISK_FULL_WAIT_MS,
        reason: 'the disk is full: nothing can be recorded until space returns',
        holds: 'disk',
      });
      expect(countsAgainstFile(err)).toBe(false);
    }
    const other = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
    expect(isDiskFull(other)).toBe(false);
    expect(isDiskFull(new Error('SQLITE_FULL in the message only'))).toBe(false);
    expect(failurePolicy(other).kind).toBe('retry');
  });

  it('a wrong setting needs a person', () => {
    expect(failurePolicy(new ConfigError('STOCK_RULES_FILE', 'not JSON'))).toEqual({
      kind: 'fix-config',
      reason: 'STOCK_RULES_FILE: not JSON',
    });
  });

  it('every code has a decision', () => {
    class Any extends CodedError {
      readonly code: ErrorCode;
      constructor(code: ErrorCode) {
        super(`an error ${code}`);
        this.code = code;
      }
    }
    const kinds = new Set(['final', 'retry', 'wait', 'fix-config']);
    for (const code of ERROR_CODES) expect(kinds).toContain(failurePolicy(new Any(code)).kind);
  });
});
