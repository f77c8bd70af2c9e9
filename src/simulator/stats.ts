/** Request statistics of the /api/v1 surface (admin calls are not counted). */

export interface RequestStat {
  /** ms since the epoch (the simulator's clock). */
  at: number;
  method: string;
  /** Route pattern, e.g. 'POST /factory-stocks/bulk-update'; 'UNMATCHED' for unknown paths. */
  route: string;
  path: string;
  /** 0 when the connection was destroyed by a reset fault. */
  status: number;
  /** Array length of a bulk body. */
  items?: number;
}

export interface SimulatorStats {
  requests: RequestStat[];
  byRoute: Record<string, number>;
  /** Login attempts, any outcome. */
  logins: number;
  /** 429s served (real and injected). */
  rateLimited: number;
}

/** The request log keeps the most recent entries only; byRoute and the counters count all. */
export const MAX_LOGGED_REQUESTS = 100_000;

export class StatsCollector {
  #requests: RequestStat[] = [];
  #byRoute = new Map<string, number>();
  #logins = 0;
  #rateLimited = 0;

  record(stat: RequestStat): void {
    this.#requests.push(stat);
    if (this.#requests.length > MAX_LOGGED_REQUESTS * 1.1) {
      this.#requests = this.#requests.slice(-MAX_LOGGED_REQUESTS);
    }
    this.#byRoute.set(stat.route, (this.#byRoute.get(stat.route) ?? 0) + 1);
    if (stat.route === 'POST /login') this.#logins++;
    if (stat.status === 429) this.#rateLimited++;
  }

  snapshot(): SimulatorStats {
    return {
      requests: this.#requests.slice(-MAX_LOGGED_REQUESTS).map((r) => ({ ...r })),
      byRoute: Object.fromEntries(this.#byRoute),
      logins: this.#logins,
      rateLimited: this.#rateLimited,
    };
  }

  reset(): void {
    this.#requests = [];
    this.#byRoute.clear();
    this.#logins = 0;
    this.#rateLimited = 0;
  }
}
