/**
 * When the ERP wrote what each desired row came from (a file's modification time, a snapshot's
 * read time): a file applied late (after a crash, a retry) never overwrites a newer file's rows.
 */
export const desiredSourceTime = `
ALTER TABLE desired_stock ADD COLUMN source_at INTEGER NOT NULL DEFAULT 0;
`;
