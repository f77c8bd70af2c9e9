import { type DcDirectory, DcListUnavailableError, type DcStatus } from './dcDirectory.ts';

/**
 * The distribution-centre check of one source (an inbox file, a snapshot read), shared by both:
 * a code the cached list does not know refreshes the list from the portal once for the source;
 * a code still unknown, or inactive, rejects its row. Answers are remembered for the source.
 * Throws DcListUnavailableError when a refresh is needed and fails (try the source later).
 */
export interface DcCheck {
  /** 'active' accepts the row; anything else rejects it. */
  status(code: string): DcStatus | Promise<DcStatus>;
}

export function createDcCheck(dcs: DcDirectory): DcCheck {
  const seen = new Map<string, DcStatus>();
  let refreshed = false;
  const slow = async (code: string): Promise<DcStatus> => {
    refreshed = true;
    try {
      await dcs.refresh();
    } catch (err) {
      throw new DcListUnavailableError(
        `distribution centre ${code} is not in the cached list and the list could not be refreshed`,
        { cause: err },
      );
    }
    seen.clear();
    const status = dcs.status(code);
    seen.set(code, status);
    return status;
  };
  return {
    status(code) {
      const known = seen.get(code);
      if (known !== undefined) return known;
      const status = dcs.status(code);
      if (status === 'unknown' && !refreshed && dcs.canRefresh) return slow(code);
      seen.set(code, status);
      return status;
    },
  };
}

/** The rejection reason for a centre that is not active. */
export function dcRejection(status: Exclude<DcStatus, 'active'>): string {
  return status === 'unknown' ? 'unknown distribution centre' : 'inactive distribution centre';
}
