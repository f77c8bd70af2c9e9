/**
 * The file ledger keeps each file's row counts beside its report (`files`, the status's window of
 * the last 24 h, the metrics): read from the small columns through an index, never by parsing
 * every report of the day on each status read. Rows written before are filled from their report.
 * (Versions 15 and 16 are other branches' migrations; keep numbers apart.)
 */
export const fileCounts = `
ALTER TABLE inbox_files ADD COLUMN rows_read INTEGER;
ALTER TABLE inbox_files ADD COLUMN rows_accepted INTEGER;
ALTER TABLE inbox_files ADD COLUMN rows_rejected INTEGER;
UPDATE inbox_files
   SET rows_read = json_extract(report, '$.rowsRead'),
       rows_accepted = json_extract(report, '$.rowsAccepted'),
       rows_rejected = json_extract(report, '$.rowsRejected')
 WHERE report IS NOT NULL AND json_valid(report);
-- The newest files that rejected rows (explain looks for a key in their reports).
CREATE INDEX inbox_files_rejecting ON inbox_files (id) WHERE rows_rejected > 0;
`;
