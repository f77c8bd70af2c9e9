/** One word for the keys that still owe a push: they are pending (was `stock_dirty`). */
export const pendingStockTable = `
ALTER TABLE stock_dirty RENAME TO pending_stock;
`;
