/**
 * The dashboard as an express app: the review page, the JSON API, Bull Board, health and metrics, behind HTTP Basic
 * authentication (except `/healthz` and `/readyz`). Built from its dependencies so tests run it on port 0 against a
 * real Redis; `startDashboardRole` (`dashboard-role.ts`) builds the dependencies from the configuration.
 *
 * Routes:
 *
 * | method | path                          | what                                                        | auth |
 * |--------|-------------------------------|-------------------------------------------------------------|------|
 * | GET    | `/healthz`                    | the process answers                                         | no   |
 * | GET    | `/readyz`                     | Redis, IMAP poller, agent, sender, search backends (503 when not ready); details with the login | no   |
 * | GET    | `/`                           | parked tickets (`?page=&order=oldest|newest`), flash after actions (`?done=`), what is wrong with the deployment; `?state=&page=`: the tickets in another state, newest first; `?q=&skip=`: a search of the newest tickets by address, name or subject | yes  |
 * | GET    | `/tickets/:id`                | one ticket: mail, editable draft, plan, subtasks, sources   | yes  |
 * | GET    | `/tickets/:id/attachments/:n` | attachment n (from 1) of the ticket's mail, from the stored raw mail, as a download (octet-stream, CSP sandbox); 404 saying why when there is none | yes  |
 * | GET    | `/insights`                   | `?days=30`: outcomes, automation, reply times, edits, cost   | yes  |
 * | POST   | `/tickets/:id/approve`        | form: `reply`, `seen`, `conversationSeen`, `readNewerMail`?, `senderVerified`?, `checkedNoCopy`?, `_csrf` → 303 (the next waiting ticket) | yes  |
 * | POST   | `/tickets/:id/reject`         | form: `reason`, `seen`, `_csrf` → 303                        | yes  |
 * | POST   | `/tickets/:id/rerun`          | form: `seen`, `_csrf` → a new draft, parked for review, 303  | yes  |
 * | POST   | `/tickets/:id/arrived`        | form: `note`?, `seen`, `_csrf` → a reply that may already have been sent did arrive: `sent`, 303 | yes  |
 * | POST   | `/tickets/:id/close`          | form: `note`?, `seen`, `_csrf` → an undeliverable reply: `rejected`, or its bounce acknowledged, 303 | yes  |
 * | POST   | `/tickets/:id/reopen`         | form: `note`?, `seen`, `_csrf` → mail the checks ignored by mistake: `parked`, 303 to its page | yes  |
 * | POST   | `/tickets/:id/take-over`      | form: `seen`, `_csrf` → a ticket waiting for the model server, taken from the agent: `parked` without a draft, 303 to its page | yes  |
 * | POST   | `/reindex`                    | form: `_csrf` → queues reindex-manual and reindex-qa, 303    | yes  |
 * | GET    | `/knowledge`                  | learned-answer candidates and accepted pairs (`?done=&id=`)  | yes  |
 * | POST   | `/knowledge/candidates/:id/accept` | form: `question`, `answer`, `target`, `asNew`?, `_csrf` → 303 | yes  |
 * | POST   | `/knowledge/candidates/:id/discard` | form: `_csrf` → 303                                    | yes  |
 * | POST   | `/knowledge/pairs/:id/remove` | form: `_csrf` → 303                                          | yes  |
 * | POST   | `/knowledge/pairs/:id/restore` | form: `version` (1 = latest previous answer), `stamp`, `_csrf` → 303; 409 when the pair changed | yes  |
 * | GET    | `/api/tickets`                | `?state=&limit=&offset=` → summaries, `X-Total-Count`; `?q=&state=&limit=&skip=` → matches, `X-Searched-Count`, `X-Search-Next-Skip` | yes  |
 * | GET    | `/api/tickets/:id`            | the full ticket                                             | yes  |
 * | POST   | `/api/tickets/:id/approve`    | JSON `{ "reply" or "seen", "checkedNoCopy"?, "readNewerMail"?, "conversationSeen"?, "senderVerified"? }` → 202 (400 with neither) | yes  |
 * | POST   | `/api/tickets/:id/reject`     | JSON `{ "reason", "seen"? }` → 200                           | yes  |
 * | POST   | `/api/tickets/:id/rerun`      | JSON `{ "seen"? }` → a new draft, parked for review, 202      | yes  |
 * | POST   | `/api/tickets/:id/arrived`    | JSON `{ "note"?, "seen"? }` → closed as sent, 200            | yes  |
 * | POST   | `/api/tickets/:id/close`      | JSON `{ "note"?, "seen"? }` → closed as undeliverable, or its bounce acknowledged, 200 | yes  |
 * | POST   | `/api/tickets/:id/reopen`     | JSON `{ "note"?, "seen"? }` → an ignored ticket reopened: `parked`, 200 | yes  |
 * | POST   | `/api/tickets/:id/take-over`  | JSON `{ "seen"? }` → a ticket waiting for the model server, taken from the agent: `parked` without a draft, 200 | yes  |
 * | GET    | `/api/knowledge/gaps`         | `?all=1&limit=` → knowledge gaps, largest first              | yes  |
 * | GET    | `/api/insights`               | `?days=30` → the insights page's figures as JSON             | yes  |
 * | GET    | `/metrics`                    | Prometheus text format (also to a bearer of METRICS_TOKEN)  | yes  |
 * | *      | `/admin/queues`               | Bull Board over every queue                                 | yes  |
 * | GET    | `/assets/review.css`          | the review page's stylesheet                                | yes  |
 *
 * Times on the pages are shown in the deployment's time zone (`TZ`, as the schedules and the quoted original of
 * replies use it), the zone named and the ISO value kept in `<time>`: the pages run no script (see security.ts), so
 * the browser's own zone cannot be asked for.
 */
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { randomBytes } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import type { JobTuning } from '../queues/job-options.js';
import { ALL_QUEUE_NAMES } from '../queues/names.js';
import type { Queues } from '../queues/registry.js';
import { deskTimeZone } from '../tickets/local-day.js';
import type { TicketStore } from '../tickets/ticket-store.js';
import { apiHandlers } from './api.js';
import { gapsApiHandler } from './gaps-api.js';
import { GapStore } from '../knowledge/gaps.js';
import { ANONYMOUS_OPERATOR, CsrfTokens, KnownDevices, LoginThrottle, basicAuthMiddleware, loopbackHostGuard, metricsTokenAuth, optionalBasicAuth, resolveAuth } from './auth.js';
import { weakDashboardPassword } from './password-strength.js';
import type { PollerStatus } from '../runtime/poller.js';
import type { RoleStatus } from '../runtime/role-status.js';
import { readReindexOutcomes } from '../runtime/reindex-outcome.js';
import { readIndexBuilds } from '../search/index-builds.js';
import { checkReadiness, manualSkipsWarning, readLastManualReindex, reindexProblems, type ReadinessDeps } from './health.js';
import { errorMiddleware, jsonError, route, send, userOf, type ErrorRenderer } from './http.js';
import { createMetricsRegistry } from './metrics.js';
import { insightsHandlers, type InsightProviders } from './insights.js';
import { htmlErrorRenderer, reviewPageHandlers } from './review-page.js';
import { attachmentDownloadRoute } from './attachments.js';
import { knowledgePageHandlers, searchedKnowledgeOf } from './knowledge-page.js';
import { LearnedAnswerStore } from '../knowledge/learned-answers.js';
import type { QaSearch } from '../search/types.js';
import { priceTable } from '../agent/prices.js';
import type { RerunDeps, ReviewDeps } from '../tickets/review.js';
import type { QuoteConfig } from '../tickets/quote-omission.js';
import { apiRequestGuard, BULL_BOARD_CSP, REVIEW_CSP, sameOriginGuard, securityHeaders } from './security.js';
import { REVIEW_CSS, STYLESHEET_PATH } from './styles.js';
import { checkTimeZone, pollerProblem, renderGapsSection, renderMessagePage, type DeploymentProblem } from './views.js';

/** Where Bull Board is mounted. */
export const BULL_BOARD_PATH = '/admin/queues';

/** The configuration the dashboard reads. */
export type DashboardConfig = Pick<
  Config,
  | 'DASHBOARD_AUTH'
  | 'DASHBOARD_USER'
  | 'DASHBOARD_PASSWORD'
  | 'DASHBOARD_HOST'
  | 'DASHBOARD_TRUST_PROXY'
  | 'METRICS_TOKEN'
  | 'QUEUE_PREFIX'
  | 'SENDER_ATTEMPTS'
  | 'AGENT_ATTEMPTS'
  | 'IMAP_POLL_INTERVAL_MS'
  | 'LLM_PRICES'
  // The review page reads the sources' trust records with them.
  | 'REVIEW_MODE'
  | 'TRUST_MIN_REVIEWS'
  | 'TRUST_MIN_AS_IS'
  | 'TRUST_WINDOW'
  | 'TRUST_MAX_EDIT_RATIO'
> &
  QuoteConfig;

/** Everything the dashboard works with. */
export interface DashboardDeps {
  config: DashboardConfig;
  /** Failed-login throttle of this app (default: a new one with the standard limit). */
  loginThrottle?: LoginThrottle;
  /** A ready producer connection (fail-fast), shared by the store and the queues. */
  redis: Redis;
  store: TicketStore;
  queues: Queues;
  /** Search backends for `/readyz`; those checks are reported as skipped without them. */
  search?: ReadinessDeps['search'];
  /** The Q&A search, which takes accepted learned pairs itself when it can (Qdrant); the embedded index reads Redis. */
  qa?: QaSearch;
  /** When the IMAP poller last completed a poll and what last failed; the `/readyz` poller check is skipped without it. */
  pollerStatus?: () => Promise<PollerStatus>;
  /** What the agent workers last reported about the model server; the `/readyz` agent check is skipped without it. */
  agentStatus?: () => Promise<RoleStatus[]>;
  /** What the senders last reported about the SMTP server; the `/readyz` sender check is skipped without it. */
  senderStatus?: () => Promise<RoleStatus[]>;
  /** Oldest acceptable last poll; default 3 × IMAP_POLL_INTERVAL_MS (three missed safety polls). */
  pollMaxAgeMs?: number;
  /**
   * Secret of the CSRF tokens and the known-device cookies; random per process by default, so a restart asks forms to
   * be reloaded and makes every browser a new one to the login throttle.
   */
  csrfSecret?: Buffer;
  /** Backoff of the jobs the dashboard adds; tests shorten it. */
  tuning?: JobTuning;
  /** The insights page's sections fed by other parts of the product (knowledge gaps, source trust). */
  insightProviders?: InsightProviders;
  /** The IANA zone the pages show times in; default this process's (`TZ`), else UTC. */
  timeZone?: string;
  /** Most tickets one search of the review page or the API reads; tests lower it. */
  searchScanLimit?: number;
  logger?: Logger;
  now?: () => Date;
}

/** Largest accepted request body: a reply edit is text, far below this. */
const BODY_LIMIT = '512kb';

function textError(status: number, message: string) {
  return { status, text: `${message}\n`, contentType: 'text/plain; charset=utf-8' };
}

/**
 * 415 unless a request with a body declares `type`. Requests without a body pass (e.g. an approve without edits);
 * `Content-Length: 0` counts as none, as HTTP clients send it for a bodiless POST.
 */
function requireBodyType(type: string, renderError: ErrorRenderer) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const empty = req.headers['content-length'] === '0' && req.headers['transfer-encoding'] === undefined;
    if (req.method === 'GET' || req.method === 'HEAD' || empty || req.is(type) !== false) {
      next();
      return;
    }
    send(res, renderError(415, `Unsupported Content-Type: this route accepts ${type} bodies only`, userOf(res)));
  };
}

/**
 * Bull Board's page links Google Fonts, which would make every operator's browser tell Google when they look at
 * the queues (and fail on machines without internet). The page is rendered from the board's template; this drops
 * that link from the HTML, and the CSP allows no other host, so the UI falls back to local fonts.
 */
function withoutExternalFonts(_req: Request, res: Response, next: NextFunction): void {
  const render = res.render.bind(res) as (view: string, options: object, callback: (err: Error | null, html: string) => void) => void;
  res.render = ((view: string, options?: object) => {
    render(view, options ?? {}, (err, html) => {
      if (err) next(err);
      else res.send(html.replace(/<link[^>]+fonts\.(?:googleapis|gstatic)\.com[^>]*>/g, ''));
    });
  }) as Response['render'];
  next();
}

/**
 * Builds the dashboard app. Throws a `ConfigError` when authentication is on without DASHBOARD_PASSWORD, so the app
 * can never be built open by accident, or with a weak one while DASHBOARD_HOST is not loopback (see resolveAuth); it
 * warns of a weak one on loopback.
 */
export function createDashboardApp(deps: DashboardDeps): Express {
  const auth = resolveAuth(deps.config);
  const logger = deps.logger ?? createLogger('dashboard');
  // Beyond loopback resolveAuth refused a weak password already; on loopback it is the admin's to judge.
  const weak = weakDashboardPassword(deps.config);
  if (weak) logger.warn(weak.message);
  const now = deps.now ?? (() => new Date());
  // Resolved once: a zone ICU does not know stops the start here, not every page view.
  // The desk's zone as the CLI and the insights' days read it (a POSIX TZ such as JST-9 as its offset).
  const timeZone = checkTimeZone(deps.timeZone ?? deskTimeZone());
  const searchScanLimit = deps.searchScanLimit;
  const readiness: ReadinessDeps = {
    redis: deps.redis,
    pollerStatus: deps.pollerStatus,
    agentStatus: deps.agentStatus,
    senderStatus: deps.senderStatus,
    pollMaxAgeMs: deps.pollMaxAgeMs ?? 3 * deps.config.IMAP_POLL_INTERVAL_MS,
    search: deps.search,
    now,
  };
  // The start page's banners: the poller's state, the agent workers' and senders' checks (Redis reads; no search
  // server is asked on every page view), the indexes whose last queued reindex failed and the manual files the last
  // one skipped (their content is missing from search while the job counts as done). The poller's banner is
  // built from its state rather than the check's detail: it shows times in the page's zone, and warns before the
  // check fails.
  const pollerBanner = async (): Promise<DeploymentProblem[]> => {
    if (!deps.pollerStatus) return [];
    try {
      const problem = pollerProblem(await deps.pollerStatus(), now(), readiness.pollMaxAgeMs, timeZone);
      return problem ? [problem] : [];
    } catch (err) {
      return [{ level: 'bad', headline: 'Cannot tell whether incoming mail is being read', detail: err instanceof Error ? err.message : String(err) }];
    }
  };
  const deploymentProblems = async (): Promise<DeploymentProblem[]> => {
    const [poller, { checks }, reindexes, lastManual, builds] = await Promise.all([
      pollerBanner(),
      checkReadiness({ ...readiness, pollerStatus: undefined, search: undefined }),
      readReindexOutcomes(deps.redis, deps.config.QUEUE_PREFIX),
      readLastManualReindex(deps.queues.maintenance),
      readIndexBuilds(deps.redis, deps.config.QUEUE_PREFIX),
    ]);
    const failing = [checks.agent, checks.sender].filter((c) => c.status === 'fail').map((c): DeploymentProblem => ({ level: 'bad', detail: c.detail }));
    const skips = manualSkipsWarning(lastManual, builds.manual);
    return [
      ...poller,
      ...failing,
      ...reindexProblems(reindexes, now()).map((detail): DeploymentProblem => ({ level: 'bad', detail })),
      ...(skips ? [{ level: 'warn' as const, detail: skips }] : []),
    ];
  };
  const secret = deps.csrfSecret ?? randomBytes(32);
  const csrf = new CsrfTokens(secret);
  const review: ReviewDeps = {
    store: deps.store,
    outbound: deps.queues.outbound,
    learning: deps.queues.tickets,
    redis: deps.redis,
    config: deps.config,
    ...(deps.tuning ? { tuning: deps.tuning } : {}),
  };
  const rerun: RerunDeps = {
    store: deps.store,
    tickets: deps.queues.tickets,
    redis: deps.redis,
    config: deps.config,
    ...(deps.tuning ? { tuning: deps.tuning } : {}),
  };
  const api = apiHandlers({ store: deps.store, review, rerun, ...(searchScanLimit ? { searchScanLimit } : {}) });
  const learned = new LearnedAnswerStore(deps.redis, { prefix: deps.config.QUEUE_PREFIX });
  const pages = reviewPageHandlers({
    learned,
    deploymentProblems,
    store: deps.store,
    redis: deps.redis,
    prefix: deps.config.QUEUE_PREFIX,
    quoting: deps.config,
    trust: deps.config,
    review,
    rerun,
    maintenance: deps.queues.maintenance,
    csrf,
    now,
    logger,
    timeZone,
    ...(searchScanLimit ? { searchScanLimit } : {}),
  });
  const gapStore = new GapStore(deps.redis, { prefix: deps.config.QUEUE_PREFIX });
  const knowledge = knowledgePageHandlers({
    learned,
    qa: deps.qa,
    csrf,
    // What the candidate's own ticket's searches found holds for everyone: its error codes and links are no customer's.
    ticketKnowledge: async (ticketId) => searchedKnowledgeOf((await deps.store.get(ticketId))?.agent),
    // The largest open gaps and the last closed ones: what to write next, and what the product learned.
    gaps: async () => renderGapsSection(await gapStore.list({ includeClosed: true, limit: 20 }), timeZone),
  });
  const insights = insightsHandlers({
    redis: deps.redis,
    prefix: deps.config.QUEUE_PREFIX,
    prices: priceTable(deps.config.LLM_PRICES),
    ...(deps.insightProviders ? { providers: deps.insightProviders } : {}),
    now,
  });
  const metrics = createMetricsRegistry({ store: deps.store, queues: deps.queues, redis: deps.redis, prefix: deps.config.QUEUE_PREFIX });
  const htmlError = htmlErrorRenderer();

  // One throttle for every route that reads the login, the open /readyz included; the metrics token has its own.
  const login = {
    logger,
    throttle: deps.loginThrottle ?? new LoginThrottle(),
    ...(auth.mode === 'basic' ? { devices: new KnownDevices(secret, auth) } : {}),
  };
  const app = express();
  app.disable('x-powered-by');
  // Behind the recommended reverse proxy every client comes from the proxy's address; only the proxies the admin
  // names may say who the client is (req.ip, req.secure), or any client could pick an address per guess.
  app.set('trust proxy', deps.config.DASHBOARD_TRUST_PROXY);
  app.use(securityHeaders(REVIEW_CSP));
  app.use(loopbackHostGuard(auth));

  // Probes of orchestrators carry no credentials: they get status codes and ok/fail per check. The details name
  // hosts, ports, users and error messages, so only a logged-in operator sees them.
  app.get('/healthz', route(() => ({ status: 200, json: { status: 'ok' } }), jsonError, logger));
  app.get(
    '/readyz',
    optionalBasicAuth(auth, login),
    route(
      async ({ user }) => {
        const result = await checkReadiness(readiness);
        const checks = user !== undefined ? result.checks : Object.fromEntries(Object.entries(result.checks).map(([name, c]) => [name, c.status]));
        return { status: result.ready ? 200 : 503, json: { status: result.ready ? 'ready' : 'not ready', checks } };
      },
      jsonError,
      logger,
    ),
  );

  const metricsRoute = route(
    async () => ({ status: 200, text: await metrics.metrics(), contentType: metrics.contentType }),
    (status, message) => textError(status === 500 ? 503 : status, status === 500 ? 'Metrics are unavailable; see the dashboard log' : message),
    logger,
  );
  // A scrape's own token opens /metrics alone: its configuration need not hold the password that sends mail. Wrong
  // tokens are throttled per address and /48, or the token could be guessed at network speed, in a throttle apart
  // from the logins' (see metricsTokenAuth); a request without one goes on to the login below.
  const metricsToken = deps.config.METRICS_TOKEN;
  if (metricsToken) app.get('/metrics', metricsTokenAuth(metricsToken, auth, { logger }), metricsRoute);

  app.use(basicAuthMiddleware(auth, login));
  app.use(sameOriginGuard);

  app.get(STYLESHEET_PATH, (_req, res) => {
    res.set('Cache-Control', 'private, max-age=300').type('text/css; charset=utf-8').send(REVIEW_CSS);
  });

  app.get('/metrics', metricsRoute);

  const board = new ExpressAdapter();
  board.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    // Read-only: the board shows queues and jobs; no one adds, cleans, empties, pauses or obliterates through it. An
    // added job would run with data of the caller's choosing (a reindex of any directory the worker can read).
    queues: ALL_QUEUE_NAMES.map((name) => new BullMQAdapter(deps.queues[name], { readOnlyMode: true })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'helpdesk-worker', miscLinks: [{ text: 'Review', url: '/' }] } },
  });
  // The board is an Express app of its own: it would announce itself in X-Powered-By.
  (board.getRouter() as express.Application).disable('x-powered-by');
  app.use(BULL_BOARD_PATH, securityHeaders(BULL_BOARD_CSP), withoutExternalFonts, board.getRouter() as express.Router);

  const apiRouter = express.Router();
  apiRouter.use(apiRequestGuard);
  apiRouter.use(requireBodyType('application/json', jsonError));
  apiRouter.use(express.json({ limit: BODY_LIMIT, type: 'application/json' }));
  apiRouter.get('/tickets', route(api.list, jsonError, logger));
  apiRouter.get('/tickets/:id', route(api.get, jsonError, logger));
  apiRouter.post('/tickets/:id/approve', route(api.approve, jsonError, logger));
  apiRouter.post('/tickets/:id/reject', route(api.reject, jsonError, logger));
  apiRouter.post('/tickets/:id/rerun', route(api.rerun, jsonError, logger));
  apiRouter.post('/tickets/:id/arrived', route(api.arrived, jsonError, logger));
  apiRouter.post('/tickets/:id/close', route(api.close, jsonError, logger));
  apiRouter.post('/tickets/:id/reopen', route(api.reopen, jsonError, logger));
  apiRouter.post('/tickets/:id/take-over', route(api.takeOver, jsonError, logger));
  apiRouter.get('/knowledge/gaps', route(gapsApiHandler({ redis: deps.redis, prefix: deps.config.QUEUE_PREFIX }), jsonError, logger));
  apiRouter.get('/insights', route(insights.api, jsonError, logger));
  apiRouter.use((_req, res) => send(res, jsonError(404, 'No such API route')));
  apiRouter.use(errorMiddleware(jsonError, logger));
  app.use('/api', apiRouter);

  const form = [
    requireBodyType('application/x-www-form-urlencoded', htmlError),
    express.urlencoded({ extended: false, limit: BODY_LIMIT }),
    (req: Request, res: Response, next: NextFunction) => {
      const token: unknown = (req.body as Record<string, unknown> | undefined)?._csrf;
      if (csrf.verify(userOf(res) ?? ANONYMOUS_OPERATOR, token)) {
        next();
        return;
      }
      send(res, {
        status: 403,
        html: renderMessagePage({
          status: 403,
          message: 'This form did not come from a page of this dashboard, or the page is out of date (the dashboard restarted). Reload the page and try again.',
          user: userOf(res),
        }),
      });
    },
  ];
  app.get('/', route(pages.list, htmlError, logger));
  app.get('/tickets/:id', route(pages.detail, htmlError, logger));
  app.get('/tickets/:id/attachments/:n', attachmentDownloadRoute({ store: deps.store, redis: deps.redis, prefix: deps.config.QUEUE_PREFIX, logger }, htmlError));
  app.get('/insights', route(insights.page, htmlError, logger));
  app.post('/tickets/:id/approve', ...form, route(pages.approve, htmlError, logger));
  app.post('/tickets/:id/reject', ...form, route(pages.reject, htmlError, logger));
  app.post('/tickets/:id/rerun', ...form, route(pages.rerun, htmlError, logger));
  app.post('/tickets/:id/arrived', ...form, route(pages.arrived, htmlError, logger));
  app.post('/tickets/:id/close', ...form, route(pages.close, htmlError, logger));
  app.post('/tickets/:id/reopen', ...form, route(pages.reopen, htmlError, logger));
  app.post('/tickets/:id/take-over', ...form, route(pages.takeOver, htmlError, logger));
  app.post('/reindex', ...form, route(pages.reindex, htmlError, logger));
  app.get('/knowledge', route(knowledge.page, htmlError, logger));
  app.post('/knowledge/candidates/:id/accept', ...form, route(knowledge.accept, htmlError, logger));
  app.post('/knowledge/candidates/:id/discard', ...form, route(knowledge.discard, htmlError, logger));
  app.post('/knowledge/pairs/:id/remove', ...form, route(knowledge.remove, htmlError, logger));
  app.post('/knowledge/pairs/:id/restore', ...form, route(knowledge.restore, htmlError, logger));

  app.use((_req, res) => send(res, htmlError(404, 'No such page', userOf(res))));
  app.use(errorMiddleware(htmlError, logger));
  return app;
}
