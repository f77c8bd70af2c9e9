/**
 * Stock rules (#17): desired_stock keeps what the ERP asked for (`erp_quantity`) beside what is
 * offered (`quantity`, which the diff, the guard rails, reconciliation and failures read), the
 * rule that made one of the other (its label; NULL: none matched) and whether the key is
 * excluded (never pushed). Rows written before rules existed offer what the ERP asked for.
 * A staged apply (migration 10) sums up, chunk by chunk, what the rules made of its rows
 * (`staged_applies.offers`, JSON; NULL before the first chunk), for the file's report.
 */
export const stockRules = `
ALTER TABLE desired_stock ADD COLUMN erp_quantity INTEGER;
ALTER TABLE desired_stock ADD COLUMN rule TEXT;
ALTER TABLE desired_stock ADD COLUMN excluded INTEGER NOT NULL DEFAULT 0;
UPDATE desired_stock SET erp_quantity = quantity;
-- Excluded keys by kind (status counts; the few keys the pending queries leave out).
CREATE INDEX desired_stock_excluded ON desired_stock (kind) WHERE excluded = 1;
ALTER TABLE staged_applies ADD COLUMN offers TEXT;
`;
