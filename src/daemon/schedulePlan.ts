import type { Config } from '../config/index.ts';
import type { Nudges } from '../jobs/nudges.ts';
import type { Schedule } from '../jobs/schedules.ts';
import { deadlineCron } from '../shipments/index.ts';

/** How often work is re-derived from state.db (lost nudges, due failures, a Redis that restarted). */
const RECOVER_CRON = '*/30 * * * * *';
/** How often shipments handed over long ago without a confirmation are looked for (an indexed query). */
const SHIPMENTS_WATCH_CRON = '*/5 * * * * *';
/** Daily retention run (in SYNC_TIMEZONE), at a quiet hour; it also runs at every start. */
const RETENTION_CRON = '23 4 * * *';

/** The daemon's schedules by name; the optional ones only when configured. */
export type ScheduledTask =
  | 'shipments-poll'
  | 'reconcile'
  | 'failures'
  | 'dc-refresh'
  | 'shipments-watch'
  | 'recover'
  | 'shipments-deadline'
  | 'retention'
  | 'snapshot';

/**
 * Which schedules the daemon runs and what each tick asks for: a nudge, deduplicated like any
 * other, except the periodic recovery (`recover`), which the daemon gives as a function.
 */
export function daemonSchedules(
  config: Config,
  nudges: Nudges,
  recover: () => Promise<void>,
): Array<Schedule & { readonly name: ScheduledTask }> {
  const schedules: Array<Schedule & { readonly name: ScheduledTask }> = [
    {
      name: 'shipments-poll',
      expression: config.shipmentsPollCron,
      onTick: (slot) => nudges.poll('schedule', slot),
    },
    {
      name: 'reconcile',
      expression: config.reconcileCron,
      onTick: (slot) => nudges.reconcile('schedule', slot),
    },
    {
      name: 'failures',
      expression: config.failureRetryCron,
      onTick: (slot) => nudges.maintenance('recover', 'failure retry schedule', slot),
    },
    {
      name: 'dc-refresh',
      expression: config.dcRefreshCron,
      onTick: (slot) => nudges.maintenance('dc-refresh', 'schedule', slot),
    },
    {
      name: 'shipments-watch',
      expression: SHIPMENTS_WATCH_CRON,
      onTick: (slot) => nudges.maintenance('shipments-watch', 'schedule', slot),
    },
    { name: 'recover', expression: RECOVER_CRON, onTick: recover },
  ];
  const deadline = config.shipmentsDeadline;
  if (deadline !== undefined) {
    schedules.push({
      name: 'shipments-deadline',
      expression: deadlineCron(deadline),
      onTick: (slot) => nudges.maintenance('deadline', 'SHIPMENTS_DEADLINE', slot),
    });
  }
  if (config.retentionDays > 0) {
    schedules.push({
      name: 'retention',
      expression: RETENTION_CRON,
      onTick: (slot) => nudges.maintenance('prune', 'schedule', slot),
    });
  }
  if (config.snapshotDb) {
    schedules.push({
      name: 'snapshot',
      expression: config.snapshotCron,
      onTick: (slot) => nudges.maintenance('snapshot', 'schedule', slot),
    });
  }
  return schedules;
}

/**
 * The work a start asks for before any tick: a poll, a snapshot read (with SNAPSHOT_DB) and a
 * retention run (with RETENTION_DAYS). Not awaited: with Redis down these wait for it, and the
 * daemon must start (and stop) anyway; a first poll that could not be asked for is logged.
 */
export function askStartWork(
  config: Pick<Config, 'snapshotDb' | 'retentionDays'>,
  nudges: Nudges,
  asked: (what: string) => (err: unknown) => void,
): void {
  nudges.poll('start').catch(asked('the first poll'));
  if (config.snapshotDb) nudges.maintenance('snapshot', 'start').catch(() => {});
  if (config.retentionDays > 0) nudges.maintenance('prune', 'start').catch(() => {});
}
