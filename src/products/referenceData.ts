import type { ProductsPortal } from '../api/index.ts';
import {
  type CatalogueReferences,
  catalogueReferences,
  REFERENCES_MAX_AGE_MS,
} from '../domain/catalogue.ts';
import type { Clock } from '../domain/clock.ts';
import { CodedError } from '../failures/codedError.ts';
import type { Logger } from '../log/logger.ts';
import type { StateDb } from '../state/db.ts';
import {
  readReferenceData,
  refreshedAt,
  storeReferences,
} from '../state/products/referenceTables.ts';

/**
 * A products file's rows cannot be checked: the portal's reference data was never read and
 * cannot be now. The file waits in inbox/ and is tried again (failure policy: retry).
 */
export class ReferencesUnavailableError extends CodedError {
  readonly code = 'E_REFERENCES_UNAVAILABLE';
}

export interface ReferenceDeps {
  readonly db: StateDb;
  readonly portal: ProductsPortal;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signal?: AbortSignal;
}

/**
 * The portal's sites, tax rates and distribution centres, kept in state.db and read again (three
 * calls, in the 'products' lane) when older than a day. A read that fails while a copy is kept
 * leaves that copy in use (logged); with none, it is ReferencesUnavailableError. Concurrent asks
 * share one read.
 */
export function referenceSource(deps: ReferenceDeps): () => Promise<CatalogueReferences> {
  let reading: Promise<void> | undefined;
  const read = async () => {
    const lists = await deps.portal.references(deps.signal);
    storeReferences(deps.db, lists, deps.clock.now());
    deps.log.info(
      {
        event: 'catalogue.references_refreshed',
        sites: lists.sites.length,
        taxRates: lists.taxRates.length,
        centres: lists.centres.length,
      },
      "the portal's sites, tax rates and distribution centres read",
    );
  };
  return async () => {
    const at = refreshedAt(deps.db, 'references');
    if (at === null || deps.clock.now() - at >= REFERENCES_MAX_AGE_MS) {
      reading ??= read().finally(() => {
        reading = undefined;
      });
      try {
        await reading;
      } catch (err) {
        if (at === null) {
          throw new ReferencesUnavailableError(
            "the portal's sites, tax rates and distribution centres could not be read",
            { cause: err },
          );
        }
        deps.log.warn(
          { event: 'catalogue.references_stale', since: new Date(at).toISOString(), err },
          "the portal's reference data could not be read again; the copy kept is used",
        );
      }
    }
    return catalogueReferences(readReferenceData(deps.db));
  };
}
