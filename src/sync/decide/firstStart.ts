import type { StockKind } from '../../domain/stock.ts';

/** Page sizes of the portal's stock lists (spec: 2,500 factory rows, 100 DC rows a page). */
export const READ_PAGE_SIZE: Record<StockKind, number> = { factory: 2500, dc: 100 };

export interface FirstStartChoice {
  readonly kind: StockKind;
  readonly choice: 'read' | 'push';
  readonly readCalls: number;
  readonly pushCalls: number;
}

/**
 * With nothing known of the portal, either read its stock (then push only differences) or push
 * every desired row. Reading costs a page per READ_PAGE_SIZE rows (the portal holds about as many
 * rows as the ERP wants) and usually some pushes after; pushing costs a call per batch. Read only
 * when it is strictly cheaper even before its follow-up pushes.
 */
export function chooseFirstStart(
  kind: StockKind,
  desiredRows: number,
  batchSize: number,
): FirstStartChoice {
  const readCalls = Math.max(1, Math.ceil(desiredRows / READ_PAGE_SIZE[kind]));
  const pushCalls = Math.ceil(desiredRows / batchSize);
  return { kind, choice: readCalls < pushCalls ? 'read' : 'push', readCalls, pushCalls };
}
