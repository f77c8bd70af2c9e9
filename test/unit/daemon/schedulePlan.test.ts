import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.ts';
import { daemonSchedules } from '../../../src/daemon/schedulePlan.ts';
import type { Nudges } from '../../../src/jobs/nudges.ts';

const names = (env: Record<string, string>) =>
  daemonSchedules(loadConfig({ env }), {} as Nudges, async () => {}).map((s) => s.name);

describe('the daemon schedules', () => {
  it('runs the optional ones only when configured', () => {
    expect(names({ RETENTION_DAYS: '0' })).toEqual([
      'shipments-poll',
      'reconcile',
      'failures',
      'dc-refresh',
      'shipments-watch',
      'recover',
    ]);
    expect(
      names({ SHIPMENTS_DEADLINE: '15:00', SNAPSHOT_DB: '/erp/snapshot.db', RETENTION_DAYS: '30' }),
    ).toEqual(expect.arrayContaining(['shipments-deadline', 'retention', 'snapshot']));
  });

  it('takes the cron expressions from the settings', () => {
    const config = loadConfig({ env: { RECONCILE_CRON: '5 2 * * *' } });
    const reconcile = daemonSchedules(config, {} as Nudges, async () => {}).find(
      (s) => s.name === 'reconcile',
    );
    expect(reconcile?.expression).toBe('5 2 * * *');
  });
});
