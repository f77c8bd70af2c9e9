import type { StockKind } from '../../domain/stock.ts';

/** Page sizes of the portal's stock lists (spec: 2,500 factory rows, 100 DC rows a page). */
export const READ_PAGE_SIZE: Record<StockKind, number> = { factory: 2500, dc: 100 };

export interface FirstStartChoice {
  readonly kind: StockKind;
  readonly choice: 'read' | 'push';
  /** Pages still to read to know the portal's stock of the kind. */
  readonly readCalls: number;
  readonly pushCalls: number;
  /** Rows the portal holds, when it said so (meta.total, or a last page); null: estimated. */
  readonly portalRows: number | null;
}

export interface FirstStartInput {
  readonly kind: StockKind;
  /** Rows the ERP asks for. */
  readonly desiredRows: number;
  readonly batchSize: number;
  /** Rows of the kind the portal holds, when known; null: assume about as many as desired. */
  readonly portalRows?: number | null;
  /** Pages of the read in progress already read (a first page, a read cut short). */
  readonly pagesRead?: number;
}

/**
 * With nothing known of the portal, either read its stock (then push only differences) or push
 * every desired row. Reading costs a page per READ_PAGE_SIZE rows the portal holds — its real
 * size when known, else about as many rows as the ERP wants — less the pages already read, and
 * usually some pushes after; pushing costs a call per batch. Read only when it is strictly
 * cheaper even before its follow-up pushes.
 */
export function chooseFirstStart(input: FirstStartInput): FirstStartChoice {
  const { kind, desiredRows, batchSize } = input;
  const portalRows = input.portalRows ?? null;
  const rows = portalRows ?? desiredRows;
  const pages = Math.max(1, Math.ceil(rows / READ_PAGE_SIZE[kind]));
  const readCalls = Math.max(0, pages - (input.pagesRead ?? 0));
  const pushCalls = Math.ceil(desiredRows / batchSize);
  return {
    kind,
    choice: readCalls < pushCalls ? 'read' : 'push',
    readCalls,
    pushCalls,
    portalRows,
  };
}

/**
 * While a first-start read goes on: stop reading and push every desired row instead? Yes when the
 * portal's real size (meta.total) shows the rest of the read costs at least the push, and, when
 * the size is unknown, once the read has cost as many pages as the push would be calls less one:
 * a catalogue much larger than the file never makes a first push wait for its whole read.
 */
export function abandonFirstStartRead(input: {
  readonly kind: StockKind;
  readonly desiredRows: number;
  readonly batchSize: number;
  readonly portalRows: number | null;
  /** Pages this first start has read. */
  readonly pagesRead: number;
}): boolean {
  const pushCalls = Math.ceil(input.desiredRows / input.batchSize);
  if (input.portalRows !== null) {
    const pages = Math.max(1, Math.ceil(input.portalRows / READ_PAGE_SIZE[input.kind]));
    return pages - input.pagesRead >= pushCalls;
  }
  return input.pagesRead >= pushCalls - 1;
}
