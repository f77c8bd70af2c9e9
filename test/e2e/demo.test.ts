import { describe, expect, inject, it } from 'vitest';
import { runCliToEnd } from '../helpers/daemonProcess.ts';

describe('supplier-sync demo (real child process)', () => {
  it('shows the whole loop and ends with a summary, exit 0', async () => {
    const r = await runCliToEnd(['demo'], { REDIS_URL: inject('redisUrl') }, 60_000);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/factory-stock\.csv processed: 6 of 7 rows accepted/);
    expect(r.output).toMatch(/bulk update of \d+ factory rows/);
    expect(r.output).toMatch(/handed \d+ orders to the ERP/);
    expect(r.output.match(/marked (shipped|collected)/g)).toHaveLength(3);
    // New products: the SKU whose stock came back "Product not found" is created with a new
    // brand, born with the stock that waited; the platform declines the one with a short
    // description, and the operator sees why.
    expect(r.output).toMatch(/rejected SKU-NOT-ON-PORTAL: Product not found/);
    expect(r.output).toMatch(/brand Fjordline created/);
    expect(r.output.match(/product \S+ created \(\d+\.\d+\.\d+\)/g)).toHaveLength(3);
    expect(r.output).toMatch(/The portal holds 7 of SKU-NOT-ON-PORTAL/);
    expect(r.output).toMatch(
      /review: NEW-LAMP-01 DECLINED by the platform: The description has 13 characters/,
    );
    expect(r.output.match(/review: \S+ activated by the platform/g)).toHaveLength(2);
    expect(r.output).toMatch(
      / {5}NEW-LAMP-01 +\d+\.\d+\.\d+ +DECLINED +from products\.csv, \d\d:\d\d/,
    );
    expect(r.output).toMatch(/ {7}declined: The description has 13 characters/);
    expect(r.output).toMatch(
      /For the ERP, outbox\/products-declined-\d{8}T\d{9}Z-\d{6}\.json: NEW-LAMP-01/,
    );
    expect(r.output).not.toMatch(/factory:SKU-NOT-ON-PORTAL/);
    // Times in the operator's zone, as the commands show them, not in ISO UTC.
    expect(r.output).toMatch(/times in UTC \(/);
    expect(r.output).toMatch(
      /deadline \d\d:\d\d:\d\d: \d+ orders handed over today are not confirmed: /,
    );
    expect(r.output).toMatch(
      /guard rails: range-night\.csv HELD \(id 1\) → held\/.*90 of the 100 keys/,
    );
    expect(r.output).toMatch(/the portal still holds 500 of SKU-0000101/);
    expect(r.output).toMatch(/operator: rejected range-night\.csv \(id 1\) → .*failed\//);
    expect(r.output).toMatch(
      /Summary: \d+ portal calls used .*, 3 products created \(1 declined by the platform\), 1 failure\(s\) kept for retry\./,
    );
  }, 90_000); // the demo alone allows itself 60 s (runCliToEnd), more than the default 30 s

  it('says clearly when REDIS_URL does not answer', async () => {
    const r = await runCliToEnd(['demo'], { REDIS_URL: 'redis://127.0.0.1:1' }, 30_000);
    expect(r.code).toBe(1);
    expect(r.output).toMatch(/REDIS_URL=redis:\/\/127\.0\.0\.1:1 does not answer/);
  });
});
