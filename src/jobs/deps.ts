import type { Ingestion } from '../inventory/index.ts';
import type { Products } from '../products/index.ts';
import type { Retention } from '../retention/index.ts';
import type { Shipments } from '../shipments/index.ts';
import type { StockSync } from '../sync/index.ts';
import type { Nudges } from './nudges.ts';
import type { Queues } from './queues.ts';

/** The flows' services, each built once by the daemon (src/daemon/services.ts). */
export interface Services {
  readonly ingestion: Ingestion;
  readonly stock: StockSync;
  readonly shipments: Shipments;
  readonly retention: Retention;
  readonly products: Products;
}

/** What a job processor may use: the services, and the queues to ask for the work that follows. */
export interface JobDeps extends Services {
  readonly nudges: Nudges;
  readonly queues: Queues;
}
