import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { simulateCommand } from '../../src/cli/commands/simulateCommand.ts';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { stream, text: () => text };
}

async function firstLine(out: ReturnType<typeof capture>, deadlineMs = 5000): Promise<string> {
  const until = Date.now() + deadlineMs;
  while (!out.text().includes('\n')) {
    if (Date.now() > until) throw new Error(`no line on stdout: ${out.text()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return out.text().split('\n')[0]!;
}

describe('simulate command', () => {
  it('prints base URL and credentials, serves requests, and exits 0 on abort', async () => {
    const stdout = capture();
    const stderr = capture();
    const controller = new AbortController();
    const done = simulateCommand.run({
      argv: [
        '--port',
        '0',
        '--products',
        '25',
        '--seed',
        '3',
        '--email',
        'e@x.io',
        '--password',
        'pw',
        '--requests-per-hour',
        '100',
        '--rate-window',
        'sliding',
        '--max-bulk-items',
        '5',
        '--review',
        'manual',
        '--review-delay-ms',
        '250',
      ],
      env: {},
      stdout: stdout.stream,
      stderr: stderr.stream,
      signal: controller.signal,
    });
    const line = JSON.parse(await firstLine(stdout));
    expect(line).toMatchObject({
      baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/),
      email: 'e@x.io',
      password: 'pw',
      products: 25,
    });
    const login = await fetch(`${line.baseUrl}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e@x.io', password: 'pw' }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const r = await fetch(`${line.baseUrl}/factory-stocks`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBe('100');
    expect(((await r.json()) as { data: unknown[] }).data).toHaveLength(25);
    const big = await fetch(`${line.baseUrl}/factory-stocks/bulk-update`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(
        Array.from({ length: 6 }, () => ({ sku: 'SKU-0000001', stock_quantity: 1 })),
      ),
    });
    expect(big.status).toBe(422);
    const policy = await fetch(`${line.origin}/__admin/review-policy`);
    expect(await policy.json()).toEqual({ mode: 'manual', delayMs: 250 });
    controller.abort();
    expect(await done).toBe(0);
    await expect(fetch(`${line.baseUrl}/sites`)).rejects.toThrow();
    expect(stdout.text().trim().split('\n')).toHaveLength(1);
  });

  it.each([
    [['--port', 'x']],
    [['--products', '-5']],
    [['--rate-window', 'weekly']],
    [['--unknown']],
    [['--email', '']],
    [['--review', 'later']],
    [['--review-delay-ms', '-1']],
  ])('exits 2 with a message on stderr for %j', async (argv) => {
    const stdout = capture();
    const stderr = capture();
    const code = await simulateCommand.run({
      argv,
      env: {},
      stdout: stdout.stream,
      stderr: stderr.stream,
      signal: new AbortController().signal,
    });
    expect(code).toBe(2);
    expect(stderr.text()).toMatch(/simulate/);
    expect(stdout.text()).toBe('');
  });

  it('prints usage for --help', async () => {
    const stdout = capture();
    const code = await simulateCommand.run({
      argv: ['--help'],
      env: {},
      stdout: stdout.stream,
      stderr: capture().stream,
      signal: new AbortController().signal,
    });
    expect(code).toBe(0);
    expect(stdout.text()).toMatch(/--requests-per-hour/);
    expect(simulateCommand.name).toBe('simulate');
  });
});
