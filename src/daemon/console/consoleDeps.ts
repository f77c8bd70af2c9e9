import type { ActionDeps } from '../../actions/operator.ts';
import type { Config } from '../../config/index.ts';
import type { Logger } from '../../log/logger.ts';
import type { StateDb } from '../../state/db.ts';
import type { Assessment } from '../assess.ts';
import type { StatusSettings } from '../status.ts';
import type { ConsoleAuth, ConsoleMode } from './consoleAuth.ts';
import type { StatusWithQueues } from './pages/statusPage.ts';

/** What the console is given by the daemon's HTTP server. */
export interface ConsoleDeps {
  readonly db: StateDb;
  readonly config: StatusSettings &
    Pick<Config, 'dataDir' | 'stockRulesFile' | 'maxSkuLength' | 'inboxMaxRecordBytes'>;
  readonly mode: ConsoleMode;
  /** Password mode only. */
  readonly auth: ConsoleAuth | undefined;
  /** The status read now, with the queue depths and the verdict (as `status` prints it). */
  readonly status: () => Promise<{ status: StatusWithQueues; health: Assessment }>;
  /** Release, reject, retry: the functions the commands call, run in the daemon. */
  readonly actions: ActionDeps;
  readonly log: Logger;
  readonly now: () => number;
}
