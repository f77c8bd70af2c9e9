import Database from 'better-sqlite3';

/**
 * An ERP snapshot for the benchmarks: a SQLite file (WAL, closed cleanly) with tables
 * factory_stock (sku, stock_quantity) and dc_stock (distribution_centre_code, sku,
 * stock_quantity); factory_stock holds SKU i of 0 … n − 1 wherever `quantity(i)` is defined.
 */
export function writeErpSnapshot(
  path: string,
  n: number,
  sku: (i: number) => string,
  quantity: (i: number) => number | undefined,
): string {
  const snap = new Database(path);
  snap.pragma('journal_mode = WAL');
  snap.exec(`CREATE TABLE factory_stock (sku TEXT, stock_quantity INTEGER);
             CREATE TABLE dc_stock (distribution_centre_code TEXT, sku TEXT, stock_quantity INTEGER);`);
  const insert = snap.prepare('INSERT INTO factory_stock VALUES (?, ?)');
  snap.transaction(() => {
    for (let i = 0; i < n; i++) {
      const q = quantity(i);
      if (q !== undefined) insert.run(sku(i), q);
    }
  })();
  snap.close();
  return path;
}
