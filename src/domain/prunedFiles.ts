/** Handled files removed by one retention run (inventory prunes them; retention reports them). */
export interface PrunedFiles {
  /** Handled files removed from processed/. */
  readonly processed: number;
  /** Handled files removed from failed/. */
  readonly failed: number;
  /** Their `.report.json` files (and reports whose file was already gone). */
  readonly reports: number;
}
