/**
 * Formats as the contract lists them, by extension in any case: delimited text (`.csv`, `.txt`,
 * `.tsv`), `.xlsx`, `.json`, `.jsonl` / `.ndjson`. (formatOf in records.ts is the plain path's
 * list, `.csv` only for text; this one replaces it when the pipeline reads ERP exports.)
 */
export type ReaderFormat = 'delimited' | 'xlsx' | 'json' | 'jsonl';

export function readerFormatOf(name: string): ReaderFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.csv') || lower.endsWith('.txt') || lower.endsWith('.tsv'))
    return 'delimited';
  if (lower.endsWith('.xlsx')) return 'xlsx';
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.jsonl') || lower.endsWith('.ndjson')) return 'jsonl';
  return undefined;
}
