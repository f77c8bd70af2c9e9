import { type Clock, systemClock } from '../../domain/clock.ts';
import { CodedError } from '../../failures/codedError.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import {
  type DistributionCentreRecord,
  listDistributionCentres,
  replaceDistributionCentres,
} from '../../state/stock/distributionCentres.ts';

export type DcStatus = 'active' | 'inactive' | 'unknown';

/** The portal's distribution centres as cached in state.db, for validating DC stock rows. */
export interface DcDirectory {
  /** From the cache; 'unknown' when the code is not on the list. */
  status(code: string): DcStatus;
  /** Fetches the list from the portal and replaces the cache. Throws when the fetch fails. */
  refresh(): Promise<void>;
  /** False when there is no way to refresh (dry runs); ingestion then trusts the cache. */
  readonly canRefresh: boolean;
  /** Number of cached centres. */
  readonly size: number;
}

export interface DcDirectoryDeps {
  readonly db: StateDb;
  /** The portal's list (GET /distribution-centres); absent for offline uses such as `plan`. */
  readonly fetchDistributionCentres?: () => Promise<readonly DistributionCentreRecord[]>;
  readonly clock?: Clock;
  readonly log?: Logger;
}

/** Raised when unknown centres appear and the list cannot be refreshed: try the file later. */
export class DcListUnavailableError extends CodedError {
  readonly code = 'E_DC_LIST_UNAVAILABLE';
}

/**
 * A DcDirectory over the distribution_centres table. Concurrent refreshes share one fetch.
 */
export function createDcDirectory(deps: DcDirectoryDeps): DcDirectory {
  const clock = deps.clock ?? systemClock;
  let byCode = load();
  let pending: Promise<void> | undefined;

  function load(): Map<string, boolean> {
    return new Map(listDistributionCentres(deps.db).map((d) => [d.code, d.isActive]));
  }

  async function doRefresh(): Promise<void> {
    const fetch = deps.fetchDistributionCentres;
    if (fetch === undefined) return;
    const list = await fetch();
    const valid = list.filter((d) => typeof d.code === 'string' && d.code !== '');
    replaceDistributionCentres(deps.db, valid, clock.now());
    byCode = load();
    deps.log?.info(
      {
        event: 'dc.refreshed',
        centres: byCode.size,
        active: [...byCode.values()].filter(Boolean).length,
      },
      'distribution centre list refreshed',
    );
  }

  return {
    status(code) {
      const active = byCode.get(code);
      return active === undefined ? 'unknown' : active ? 'active' : 'inactive';
    },
    refresh() {
      pending ??= doRefresh().finally(() => {
        pending = undefined;
      });
      return pending;
    },
    get canRefresh() {
      return deps.fetchDistributionCentres !== undefined;
    },
    get size() {
      return byCode.size;
    },
  };
}
