/** A tiny routing table: literal segments win over ':param' segments. */

export type MatchResult<R> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[]; pattern: string }
  | { kind: 'not_found' };

interface Compiled<R> {
  route: R;
  method: string;
  pattern: string;
  segments: string[];
  literals: number;
}

export class Router<R extends { method: string; pattern: string }> {
  readonly #routes: Compiled<R>[];

  constructor(routes: readonly R[]) {
    this.#routes = routes
      .map((route) => {
        const segments = split(route.pattern);
        return {
          route,
          method: route.method,
          pattern: route.pattern,
          segments,
          literals: segments.filter((s) => !s.startsWith(':')).length,
        };
      })
      .sort((a, b) => b.literals - a.literals);
  }

  match(method: string, path: string): MatchResult<R> {
    const parts = split(path);
    const allow: string[] = [];
    let allowedPattern = '';
    for (const c of this.#routes) {
      const p = matchSegments(c.segments, parts);
      if (!p) continue;
      if (c.method === method) return { kind: 'found', route: c.route, params: p };
      if (allow.length === 0 || c.pattern === allowedPattern) {
        allowedPattern = c.pattern;
        allow.push(c.method);
      }
    }
    if (allow.length > 0) return { kind: 'method_not_allowed', allow, pattern: allowedPattern };
    return { kind: 'not_found' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | null {
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const got = parts[i]!;
    if (want.startsWith(':')) {
      let value: string;
      try {
        value = decodeURIComponent(got);
      } catch {
        return null;
      }
      params[want.slice(1)] = value;
    } else if (want !== got) return null;
  }
  return params;
}
