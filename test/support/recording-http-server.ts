/**
 * A loopback HTTP server for adapter tests: it records every request and answers from a route table the test
 * defines, so a real client library can be driven over real HTTP and the test can assert on what went over the wire.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string, e.g. `/indexes/manual/search`. */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: unknown;
  /** `:name` segments of the matched route pattern. */
  params: Record<string, string>;
  /** Whether a route answered it (unmatched requests get a 404 and are still recorded). */
  matched: boolean;
}

/** What a route answers. */
export interface RouteResponse {
  status?: number;
  /** Serialised as JSON unless it is already a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

export type RouteHandler = (request: RecordedRequest) => RouteResponse | Promise<RouteResponse>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler;
}

/** The test server; create with {@link startRecordingServer}. */
export class RecordingHttpServer {
  /** Every request in arrival order. */
  readonly requests: RecordedRequest[] = [];
  readonly #routes: Route[] = [];
  readonly #server: Server;
  #url = '';

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void this.#answer(req.method ?? 'GET', req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8')).then(
          (response) => {
            const text = typeof response.body === 'string' ? response.body : response.body === undefined ? '' : JSON.stringify(response.body);
            res.writeHead(response.status ?? 200, {
              'content-type': 'application/json',
              ...response.headers,
            });
            res.end(text);
          },
        );
      });
    });
  }

  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.#url;
  }

  /** Listens on an ephemeral loopback port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.#server.address() as AddressInfo;
    this.#url = `http://127.0.0.1:${port}`;
    return this;
  }

  /**
   * Adds a route. `path` is either a pattern with `:name` segments (`/indexes/:uid/search`) or a RegExp tested
   * against the path. Later routes are tried first, so a test can override a default route for one case.
   */
  on(method: string, path: string | RegExp, handler: RouteHandler): this {
    const names: string[] = [];
    const pattern =
      typeof path === 'string'
        ? new RegExp(
            `^${path
              .split('/')
              .map((segment) => {
                if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
                names.push(segment.slice(1));
                return '([^/]+)';
              })
              .join('/')}$`,
          )
        : path;
    this.#routes.unshift({ method: method.toUpperCase(), pattern, names, handler });
    return this;
  }

  /** Recorded requests with this method whose path matches (a string must match exactly). */
  find(method: string, path: string | RegExp): RecordedRequest[] {
    return this.requests.filter(
      (request) => request.method === method.toUpperCase() && (typeof path === 'string' ? request.path === path : path.test(request.path)),
    );
  }

  /** Requests no route answered; a test should usually expect none. */
  unmatched(): RecordedRequest[] {
    return this.requests.filter((request) => !request.matched);
  }

  /** Forgets the recorded requests (routes stay). */
  clear(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    // Clients keep connections alive; without this, close() waits for their idle timeout.
    this.#server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.#server.close((error) => (error ? reject(error) : resolve())));
  }

  async #answer(method: string, rawUrl: string, headers: IncomingHttpHeaders, text: string): Promise<RouteResponse> {
    const url = new URL(rawUrl, 'http://recording.invalid');
    const path = decodeURIComponent(url.pathname);
    const request: RecordedRequest = {
      method: method.toUpperCase(),
      path,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: parseBody(text),
      params: {},
      matched: false,
    };
    this.requests.push(request);

    for (const route of this.#routes) {
      if (route.method !== request.method) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      request.params = Object.fromEntries(route.names.map((name, index) => [name, match[index + 1] ?? '']));
      request.matched = true;
      try {
        return await route.handler(request);
      } catch (error) {
        // A throwing handler is a test bug; answer loudly rather than hanging the client.
        return { status: 500, body: { message: `route handler failed: ${error instanceof Error ? error.message : String(error)}` } };
      }
    }
    return { status: 404, body: { message: `no route for ${request.method} ${path}` } };
  }
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Starts a {@link RecordingHttpServer} on 127.0.0.1 with an ephemeral port. */
export async function startRecordingServer(): Promise<RecordingHttpServer> {
  return new RecordingHttpServer().start();
}
