import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The order numbers of every ready-to-ship file in `dataDir`'s outbox/, file by file (JSON). */
export function outboxOrders(dataDir: string): string[] {
  const dir = join(dataDir, 'outbox');
  return readdirSync(dir)
    .filter((f) => !f.startsWith('.'))
    .flatMap((f) =>
      (
        JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
          shipments: Array<{ order_number: string }>;
        }
      ).shipments.map((s) => s.order_number),
    );
}
