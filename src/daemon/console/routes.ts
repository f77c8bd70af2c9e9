import type { IncomingMessage, ServerResponse } from 'node:http';
import { explainKey, parseExplainKey } from '../explain.ts';
import { failuresView, filesList, fileWithReport, heldList, productsList } from '../views.ts';
import { runAction } from './actions.ts';
import { apiAnswer, filesLimit, productsQuery } from './api.ts';
import { isLoopbackHost, type Session } from './consoleAuth.ts';
import type { ConsoleDeps } from './consoleDeps.ts';
import { failedFileSuggestion } from './fileSuggestion.ts';
import type { PageContext } from './layout.ts';
import { nextPath } from './nextPath.ts';
import { explainPage } from './pages/explainPage.ts';
import { failuresPage } from './pages/failuresPage.ts';
import { filePage, filesPage } from './pages/filesPage.ts';
import { heldPage } from './pages/heldPage.ts';
import { loginPage } from './pages/loginPage.ts';
import { productsPage } from './pages/productsPage.ts';
import { shipmentsPage } from './pages/shipmentsPage.ts';
import { statusPage } from './pages/statusPage.ts';
import {
  BadRequestError,
  readForm,
  redirect,
  send,
  sendHtml,
  sendJson,
  sendText,
} from './respond.ts';
import { shipmentsData } from './shipmentsData.ts';
import { CONSOLE_CSS } from './style.ts';

/**
 * The console: every path the HTTP server does not answer itself (/healthz, /metrics). Access
 * as auth.ts says; pages render the same reads as the commands; actions are form POSTs that go
 * through actions/ (see actions.ts).
 */
export function createConsole(deps: ConsoleDeps) {
  const { mode, auth, log } = deps;

  async function page(req: IncomingMessage, res: ServerResponse, url: URL, ctx: PageContext) {
    const path = url.pathname;
    const { db, config } = deps;
    const show = (body: string, status = 200) => sendHtml(req, res, status, body);
    if (path === '/') {
      const { status, health } = await deps.status();
      return show(statusPage(ctx, status, health));
    }
    if (path === '/files')
      return show(
        filesPage(
          ctx,
          filesList(db, config.dataDir, filesLimit(url.searchParams)),
          filesLimit(url.searchParams),
        ),
      );
    const file = /^\/files\/(\d{1,15})$/.exec(path);
    if (file) {
      const f = fileWithReport(db, config.dataDir, Number(file[1]));
      if (f === undefined)
        return sendText(req, res, 404, `no file with id ${file[1]} in the ledger`);
      return show(filePage(ctx, f, await failedFileSuggestion(config, f)));
    }
    if (path === '/held') return show(heldPage(ctx, heldList(db)));
    if (path === '/failures') return show(failuresPage(ctx, failuresView(db)));
    if (path === '/shipments') return show(shipmentsPage(ctx, shipmentsData(deps)));
    if (path === '/products') {
      const q = productsQuery(url.searchParams);
      if ('error' in q) return sendText(req, res, 400, q.error);
      const products = productsList(db, {
        all: q.all,
        ...(q.status === undefined ? {} : { status: q.status }),
      });
      return show(productsPage(ctx, { products, all: q.all, status: q.status }));
    }
    if (path === '/explain') {
      const key = (url.searchParams.get('key') ?? '').trim();
      if (key === '') return show(explainPage(ctx, '', undefined));
      const target = parseExplainKey(key);
      const result =
        target === undefined
          ? `not a key: '${key}' (expected factory:SKU, dc:CODE:SKU or shipment:ORDER)`
          : (explainKey(db, target) ??
            `nothing is known of ${key}: the ERP never named it, and nothing of it was read from or sent to the portal`);
      return show(explainPage(ctx, key, result), typeof result === 'string' ? 404 : 200);
    }
    return sendText(req, res, 404, `not found: ${path}`);
  }

  const context = (url: URL, session: Session | undefined): PageContext => {
    const notice = session?.flash;
    if (session) session.flash = undefined;
    return {
      mode,
      csrf: session?.csrf,
      path: url.pathname,
      timezone: deps.config.timezone,
      now: deps.now(),
      notice,
    };
  };

  async function login(req: IncomingMessage, res: ServerResponse, url: URL) {
    if (auth === undefined)
      return sendText(req, res, 404, 'no password is set: nothing to log in to');
    if (req.method !== 'POST') {
      const ctx = context(url, undefined);
      return sendHtml(req, res, 200, loginPage(ctx, nextPath(url.searchParams.get('next')), false));
    }
    const form = await readForm(req);
    const next = nextPath(form.get('next'));
    const result = await auth.login(req, form.get('password') ?? '');
    if (result.ok) return redirect(res, next, { 'set-cookie': result.cookie });
    if (result.status === 429)
      return sendText(
        req,
        res,
        429,
        'too many login attempts from your address at once: try again in a minute',
      );
    return sendHtml(req, res, 401, loginPage(context(url, undefined), next, true));
  }

  async function post(req: IncomingMessage, res: ServerResponse, url: URL, session: Session) {
    const form = await readForm(req);
    const refused = auth!.checkPost(req, session, form.get('csrf') ?? undefined);
    if (refused !== undefined) {
      log.warn(
        {
          event: 'console.forbidden',
          path: url.pathname,
          reason: refused,
          remote: req.socket.remoteAddress,
        },
        `console action refused: ${refused}`,
      );
      return sendText(
        req,
        res,
        403,
        `refused: ${refused} (actions come only from the console's own pages)`,
      );
    }
    if (url.pathname === '/logout')
      return redirect(res, '/login', { 'set-cookie': auth!.logout(req) });
    const outcome = await runAction(deps, url.pathname, form);
    if (outcome === undefined) return sendText(req, res, 404, `no action at ${url.pathname}`);
    log.info(
      {
        event: 'console.action',
        path: url.pathname,
        error: outcome.error,
        remote: req.socket.remoteAddress,
      },
      `console: ${outcome.text}`,
    );
    session.flash = { text: outcome.text, error: outcome.error };
    return redirect(res, outcome.back);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    const path = url.pathname;
    if (mode === 'off')
      return sendText(
        req,
        res,
        404,
        'the console is off: without CONSOLE_PASSWORD_FILE it is served only when HTTP_HOST is a loopback address (/healthz and /metrics are served)',
      );
    if (path === '/console.css')
      return send(req, res, 200, 'text/css; charset=utf-8', CONSOLE_CSS, {
        'cache-control': 'public, max-age=3600',
      });
    const isPost = req.method === 'POST';
    if (!isPost && req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD, POST');
      return sendText(req, res, 405, 'method not allowed');
    }
    const isApi = path === '/api' || path.startsWith('/api/');

    if (mode === 'read-only') {
      // A page of another site that a DNS name made point at 127.0.0.1 must not read it either.
      const host = (req.headers.host ?? '').replace(/:\d+$/, '');
      if (!isLoopbackHost(host))
        return sendText(
          req,
          res,
          403,
          `the read-only console answers only to a loopback host name, not '${host}'`,
        );
      if (isPost)
        return sendText(
          req,
          res,
          403,
          'read-only: the console takes actions only with CONSOLE_PASSWORD_FILE set',
        );
      return serve(req, res, url, undefined, isApi);
    }

    if (path === '/login') return login(req, res, url);
    const session = auth!.sessionOf(req);
    if (session === undefined) {
      if (isApi && !isPost) {
        const basic = await auth!.basic(req);
        if (basic === 200) return serve(req, res, url, undefined, true);
        if (basic === 429)
          return sendJson(req, res, 429, {
            error: 'too many login attempts from your address at once',
          });
        return sendJson(req, res, 401, {
          error: 'log in at /login first, or send the console password as HTTP Basic credentials',
        });
      }
      return redirect(
        res,
        isPost ? '/login' : `/login?next=${encodeURIComponent(path + url.search)}`,
      );
    }
    if (isPost) return post(req, res, url, session);
    return serve(req, res, url, session, isApi);
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    session: Session | undefined,
    isApi: boolean,
  ) {
    if (!isApi) return page(req, res, url, context(url, session));
    const answer = await apiAnswer(deps, url.pathname, url.searchParams);
    if (answer === undefined)
      return sendJson(req, res, 404, { error: `no such route: ${url.pathname}` });
    return sendJson(req, res, answer.status, answer.body);
  }

  return {
    /** Answers one request (any path but /healthz and /metrics). */
    async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      try {
        await handle(req, res);
      } catch (err) {
        if (err instanceof BadRequestError) return sendText(req, res, 400, err.message);
        throw err;
      }
    },
  };
}
