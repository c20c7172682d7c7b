/**
 * The HTTP layer of the dashboard, after bull-board's handlers: a handler is a plain function from a small request
 * object to a `{ status, body }` result, so it can be tested and reasoned about without express; {@link route}
 * adapts it to express and turns errors into 4xx answers with a message (or a logged 500 for real bugs).
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Logger } from '../logger.js';
import { RedisUnavailableError, isConnectionError } from '../queues/connection.js';
import { IllegalTransitionError } from '../tickets/ticket.js';
import { TicketConflictError, TicketNotFoundError } from '../tickets/ticket-store.js';
import type { SafeHtml } from './html.js';

/** What a handler sees of a request. */
export interface HandlerRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** Parsed body (JSON or form fields); `undefined` when the request had none. */
  body: unknown;
  /** The authenticated Basic-auth user; `undefined` when authentication is off. */
  user: string | undefined;
}

/** A handler's answer. `headers` are added to the response. */
export type HandlerResult =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; html: SafeHtml; headers?: Record<string, string> }
  | { status: number; text: string; contentType: string; headers?: Record<string, string> }
  /** 303 See Other after a form post, so a reload does not post again. */
  | { status: 303; location: string };

/** A dashboard handler. */
export type Handler = (request: HandlerRequest) => Promise<HandlerResult> | HandlerResult;

/** An error that maps to a specific 4xx status and a message safe to show. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Status and message for an error, or `undefined` for an unexpected one (a bug: 500, logged). */
export function classifyError(err: unknown): { status: number; message: string; headers?: Record<string, string> } | undefined {
  if (err instanceof HttpError) return { status: err.status, message: err.message, headers: err.headers };
  if (err instanceof TicketNotFoundError) return { status: 404, message: err.message };
  if (err instanceof TicketConflictError || err instanceof IllegalTransitionError) return { status: 409, message: err.message };
  if (err instanceof z.ZodError) return { status: 400, message: formatZodError(err) };
  if (err instanceof RedisUnavailableError || isConnectionError(err)) {
    return { status: 503, message: 'Redis is unreachable; try again shortly', headers: { 'Retry-After': '5' } };
  }
  // body-parser's errors carry a 4xx `status` and `type` (bad JSON, too large, unsupported charset or encoding).
  const e = err as { status?: unknown; type?: unknown; message?: unknown };
  const clientStatus = typeof e?.status === 'number' && e.status >= 400 && e.status < 500 ? e.status : undefined;
  if (clientStatus !== undefined && isDecompressionError(err)) return { status: clientStatus, message: UNDECODABLE_BODY };
  // The router's failure to decode a route parameter (`/tickets/%zz`), thrown before any handler runs. Its message
  // repeats the parameter, so a fixed one goes out instead.
  if (clientStatus !== undefined && err instanceof URIError) return { status: clientStatus, message: UNDECODABLE_PATH };
  if (clientStatus !== undefined && typeof e.type === 'string') {
    const message =
      e.type === 'entity.parse.failed'
        ? 'The request body is not a valid JSON object'
        : e.type === 'entity.too.large'
          ? 'The request body is too large'
          : typeof e.message === 'string'
            ? e.message
            : 'Bad request';
    return { status: clientStatus, message };
  }
  return undefined;
}

const UNDECODABLE_PATH = 'The address is not valid: part of it is not correctly percent-encoded';

const UNDECODABLE_BODY = 'The request body does not decode as its Content-Encoding says; send it uncompressed (or correctly encoded)';

/**
 * A decompression stream's failure (zlib's Z_DATA_ERROR, Z_BUF_ERROR, brotli's): a body that is not what its
 * Content-Encoding says. body-parser passes it on with status 400 but, unlike its own errors, without a `type`.
 */
function isDecompressionError(err: unknown): boolean {
  const e = err as { code?: unknown; errno?: unknown; type?: unknown };
  return err instanceof Error && e.type === undefined && typeof e.errno === 'number' && typeof e.code === 'string' && /^(Z_|ERR_)/.test(e.code);
}

/** One line naming each invalid field, for 400 answers. */
export function formatZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}

/** Parses with a zod schema, throwing a 400 {@link HttpError} that names the bad fields. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new HttpError(400, `Invalid ${what}: ${formatZodError(parsed.error)}`);
  return parsed.data;
}

/** How error answers of a route are rendered. */
/** An error's answer; `user` (the signed-in operator, when known) goes into an HTML page's frame. */
export type ErrorRenderer = (status: number, message: string, user?: string) => HandlerResult;

/** Errors as `{ "error": message }`. */
export const jsonError: ErrorRenderer = (status, message) => ({ status, json: { error: message } });

/** Writes a handler result to the express response. */
export function send(res: Response, result: HandlerResult): void {
  if ('location' in result) {
    res.redirect(result.status, result.location);
    return;
  }
  if (result.headers) res.set(result.headers);
  res.status(result.status);
  if ('json' in result) res.json(result.json);
  else if ('html' in result) res.type('text/html; charset=utf-8').send(result.html.toString());
  else res.type(result.contentType).send(result.text);
}

/** The authenticated user of a request, as set by the auth middleware. */
export function userOf(res: Response): string | undefined {
  const user: unknown = res.locals.user;
  return typeof user === 'string' ? user : undefined;
}

/**
 * Adapts a {@link Handler} to express. Known errors become their 4xx/503 answer via `renderError`; anything else is
 * logged and answered 500 without details (the message could carry internals).
 */
export function route(handler: Handler, renderError: ErrorRenderer, logger: Logger): RequestHandler {
  return async (req: Request, res: Response) => {
    let result: HandlerResult;
    try {
      result = await handler({
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: req.body as unknown,
        user: userOf(res),
      });
    } catch (err) {
      result = errorResult(err, renderError, logger, req, userOf(res));
    }
    send(res, result);
  };
}

/** The answer to an error thrown by a handler or a middleware. */
export function errorResult(err: unknown, renderError: ErrorRenderer, logger: Logger, req: Pick<Request, 'method' | 'path'>, user?: string): HandlerResult {
  const known = classifyError(err);
  if (known) {
    if (known.status >= 500) logger.warn({ method: req.method, path: req.path, err: (err as Error).message }, known.message);
    const result = renderError(known.status, known.message, user);
    if (known.headers && !('location' in result)) result.headers = { ...result.headers, ...known.headers };
    return result;
  }
  logger.error({ err, method: req.method, path: req.path }, 'Dashboard request failed');
  return renderError(500, 'Internal error; see the dashboard log', user);
}

/** Express error middleware answering with `renderError` (body-parser errors, errors of other middleware). */
export function errorMiddleware(renderError: ErrorRenderer, logger: Logger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (res.headersSent) {
      next(err);
      return;
    }
    send(res, errorResult(err, renderError, logger, req, userOf(res)));
  };
}
