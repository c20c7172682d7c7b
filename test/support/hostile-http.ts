/**
 * Hostile HTTP requests for the dashboard's property tests (`test/integration/http-properties.test.ts`): generators of
 * requests built from the dashboard's real routes with odd segments, encodings, dot segments and huge lengths, odd
 * query strings, headers (Content-Type, Content-Encoding, Cookie, Host, Origin, Sec-Fetch-Site, logins right, wrong
 * and malformed) and bodies (random bytes, JSON, forms, compressed, too large); a client that sends them as written
 * (node:http, whose path check lets any byte from 0x21 to 0xff through, or a raw socket for what node:http will not
 * write); and the promises every answer keeps ({@link answerProblems}), as a list of what is wrong.
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import fc from 'fast-check';
import { ATTACHMENT_CSP } from '../../src/server/attachments.js';
import { AUTH_REALM, KNOWN_DEVICE_COOKIE } from '../../src/server/auth.js';
import { BULL_BOARD_CSP, REVIEW_CSP } from '../../src/server/security.js';

/** Whose login a request carries: the operator's (in any spelling the server accepts), a wrong or malformed one, or none. */
export type LoginKind = 'operator' | 'wrong' | 'none';

/** One generated request, as it goes on the wire. */
export interface HostileRequest {
  method: string;
  /** The request-target exactly as sent (origin-form, absolute-form or `*`). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  login: LoginKind;
}

/** An answer read off the wire, or why none came. */
export type HostileAnswer = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer } | { error: string };

/** What the generators fill in: the seeded ticket, the login and the CSRF token of the served dashboard. */
export interface HttpFuzzContext {
  /** `127.0.0.1:<port>` */
  host: string;
  ticketId: string;
  /** `Authorization` of the operator. */
  authorization: string;
  /** The operator's CSRF token (the tests build the app with a known secret). */
  csrfToken: string;
  /** Another user's token under the same secret. */
  otherUsersToken: string;
}

const ROUTES: ReadonlyArray<readonly [method: string, path: string]> = [
  ['GET', '/'],
  ['GET', '/tickets/{id}'],
  ['GET', '/tickets/{id}/attachments/{n}'],
  ['GET', '/insights'],
  ['GET', '/knowledge'],
  ['GET', '/api/tickets'],
  ['GET', '/api/tickets/{id}'],
  ['GET', '/api/knowledge/gaps'],
  ['GET', '/api/insights'],
  ['GET', '/metrics'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/assets/review.css'],
  ['GET', '/admin/queues'],
  ['GET', '/admin/queues/api/queues'],
  ['GET', '/admin/queues/api/redis/stats'],
  ['GET', '/admin/queues/api/queues/{queue}/{id}'],
  ...stateChangingRoutes(),
];

/** The routes that change something when the request is one the dashboard accepts (and Bull Board's, which never may). */
function stateChangingRoutes(): Array<readonly [string, string]> {
  const actions = ['approve', 'reject', 'rerun', 'arrived', 'close', 'reopen', 'take-over'];
  return [
    ...actions.map((a) => ['POST', `/tickets/{id}/${a}`] as const),
    ...actions.map((a) => ['POST', `/api/tickets/{id}/${a}`] as const),
    ['POST', '/reindex'],
    ['POST', '/knowledge/candidates/{id}/accept'],
    ['POST', '/knowledge/candidates/{id}/discard'],
    ['POST', '/knowledge/pairs/{id}/remove'],
    ['POST', '/knowledge/pairs/{id}/restore'],
    ['PUT', '/admin/queues/api/queues/pause'],
    ['PUT', '/admin/queues/api/queues/{queue}/pause'],
    ['POST', '/admin/queues/api/queues/{queue}/add'],
    ['PUT', '/admin/queues/api/queues/{queue}/clean/waiting'],
    ['PUT', '/admin/queues/api/queues/{queue}/empty'],
    ['PUT', '/admin/queues/api/queues/{queue}/obliterate'],
    ['PUT', '/admin/queues/api/queues/{queue}/{id}/clean'],
    ['PATCH', '/admin/queues/api/queues/{queue}/{id}/update-data'],
    ['POST', '/admin/queues/api/metrics/history/purge'],
  ];
}

const QUEUES = ['tickets', 'outbound', 'maintenance', 'sentcopy', 'nope', '__proto__'];

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'M-SEARCH', 'SEARCH', 'QUERY'];
const STATE_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'SEARCH'];

/** Segments a stranger might put into a path: dot segments plain and encoded, encoded separators, NULs, overlongs, bidi. */
const ODD_SEGMENTS = [
  '.', '..', '%2e', '%2E%2E', '.%2e', '%2e.', '...', '%2f', '%2F..%2F', '%5c', '\\..\\', '%00', '%ff', '%c0%ae%c0%ae', '%c0%af', '%e2%80%ae',
  '%252e%252e', '%25', '%', '%zz', '%u002e', ';', ';jsessionid=x', '~', '*', 'é', '\u00ff', '%F0%9F%98%80', '__proto__', 'constructor',
  'prototype', 'toString', 'hasOwnProperty', 'admin', 'queues', 'api', 'tickets', 'healthz', 'readyz', '0', '-1', '1e309', 'NaN',
];

/** Markup a stranger slips into a value; the dashboard's own pages must never carry it as markup. */
const MARKUP = '"\'><i id=injected>';
const INJECTED = /<script|<i id=injected>/i;

const QUERY_KEYS = ['q', 'state', 'page', 'order', 'done', 'id', 'days', 'limit', 'offset', 'skip', 'all', 'n', '_csrf', '__proto__', 'constructor', 'q[]', 'a[b]', 'x'];
const QUERY_VALUES = ['', '0', '-1', '1', '2', '30', '99999999999999999999', '1e309', 'NaN', 'Infinity', '0x10', 'parked', 'sent', 'all', 'oldest',
  'newest', '%', '%zz', '%00', '%E2%80%AE', '%ff', '__proto__', '[object Object]', 'approved', 'hanako', '<script>', '"\'>', '\u00e9', MARKUP, encodeURIComponent(MARKUP)];

/**
 * Printable ASCII but space, for values written into a request-target without encoding. node:http would send bytes up
 * to 0xff too, but the server's parser refuses those before the app sees the request; a few constants keep that case.
 */
const TARGET_CHARS = fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c));

const huge = (unit: string) => fc.integer({ min: 1, max: 24_000 }).map((n) => unit.repeat(Math.ceil(n / unit.length)).slice(0, Math.max(n, unit.length)));

/** A path segment to put in: an odd one, a random one, a huge one, or the ticket's id cut or doubled. */
function segmentArb(ctx: HttpFuzzContext): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
    { weight: 2, arbitrary: fc.string({ unit: TARGET_CHARS, maxLength: 12 }).filter((s) => !s.includes('?') && !s.includes('#')) },
    { weight: 1, arbitrary: fc.constantFrom('a', '%2e', '../', '%41', '\u00e9').chain(huge) },
    { weight: 1, arbitrary: fc.constantFrom(ctx.ticketId.slice(0, 8), ctx.ticketId.toUpperCase(), `${ctx.ticketId}${ctx.ticketId}`, `${ctx.ticketId}%00`, `${ctx.ticketId}.json`) },
  );
}

/** A route's path with its placeholders filled, then changed by a few path mutations. */
function pathArb(ctx: HttpFuzzContext, routes: ReadonlyArray<readonly [string, string]>): fc.Arbitrary<{ method: string; path: string }> {
  const filled = fc
    .record({
      route: fc.constantFrom(...routes),
      // Mostly the seeded ticket's id; else an unknown one, an odd segment, or percent-encoding that does not decode.
      id: fc.oneof(
        { weight: 6, arbitrary: fc.constant(ctx.ticketId) },
        { weight: 2, arbitrary: fc.uuid() },
        { weight: 3, arbitrary: segmentArb(ctx) },
        { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', `${ctx.ticketId.slice(0, 10)}%`) },
      ),
      n: fc.oneof(fc.constantFrom('1', '0', '2', '-1', '01', '1.0', '1e3', '99999999999999999999', '%31', 'NaN'), segmentArb(ctx)),
      queue: fc.constantFrom(...QUEUES),
    })
    .map(({ route, id, n, queue }) => ({ method: route[0], path: route[1].replace('{id}', () => id).replace('{n}', () => n).replace('{queue}', () => queue) }));
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), segment: segmentArb(ctx) }),
    fc.record({ kind: fc.constant('slash' as const), at: fc.nat(), into: fc.constantFrom('//', '%2f', '%2F', '\\', '/./', '/../', '/%2e/', '/;/') }),
    fc.record({ kind: fc.constant('case' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('encode' as const), at: fc.nat(), twice: fc.boolean() }),
    fc.record({ kind: fc.constant('suffix' as const), suffix: fc.constantFrom('/', '//', '/.', '/..', ';a=b', '%20', '.', '~', '%00', '#frag') }),
  );
  // Half the paths are left as the route has them, so that requests reach the handlers, not only the 404 page.
  const mutations = fc.oneof(fc.constant([]), fc.array(mutation, { minLength: 1, maxLength: 3 }));
  return fc.tuple(filled, mutations).map(([{ method, path }, mutations]) => {
    let p = path;
    for (const m of mutations) {
      const slashes = [...p.matchAll(/\//g)].map((x) => x.index);
      if (m.kind === 'insert') {
        const at = slashes[m.at % slashes.length]!;
        p = `${p.slice(0, at + 1)}${m.segment}/${p.slice(at + 1)}`;
      } else if (m.kind === 'slash' && slashes.length > 1) {
        const at = slashes.slice(1)[m.at % (slashes.length - 1)]!;
        p = `${p.slice(0, at)}${m.into}${p.slice(at + 1)}`;
      } else if (m.kind === 'case' && p.length > 1) {
        const at = 1 + (m.at % (p.length - 1));
        p = `${p.slice(0, at)}${p.slice(at).replace(/[a-z]+/g, (w) => w.toUpperCase())}`;
      } else if (m.kind === 'encode' && p.length > 1) {
        const at = 1 + (m.at % (p.length - 1));
        const c = p.charCodeAt(at);
        if (c < 0x80 && c !== 0x25) {
          const once = `%${c.toString(16).padStart(2, '0').toUpperCase()}`;
          p = `${p.slice(0, at)}${m.twice ? once.replace('%', '%25') : once}${p.slice(at + 1)}`;
        }
      } else if (m.kind === 'suffix') p += m.suffix;
    }
    return { method, path: p };
  });
}

/** A query string: known and odd keys, odd values, encoded or written raw, repeated keys, huge ones. */
function queryArb(ctx: HttpFuzzContext): fc.Arbitrary<string> {
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES, ctx.ticketId) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }).map(encodeURIComponent) },
    { weight: 2, arbitrary: fc.string({ unit: TARGET_CHARS, maxLength: 20 }).map((s) => s.replace(/[#&]/g, '')) },
    { weight: 1, arbitrary: fc.constantFrom('9', 'a', '%61').chain(huge) },
  );
  const pair = fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ unit: TARGET_CHARS, maxLength: 6 }).map((s) => s.replace(/[#&=]/g, ''))), value, fc.boolean());
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&&', '?=', '?%', '?&=&=') },
    { weight: 5, arbitrary: fc.array(pair, { minLength: 1, maxLength: 5 }).map((pairs) => `?${pairs.map(([k, v, bare]) => (bare && v === '' ? k : `${k}=${v}`)).join('&')}`) },
  );
}

/** The `Authorization` of each kind of login; `operator` in the spellings the server accepts. */
function authorizationArb(ctx: HttpFuzzContext, login: LoginKind): fc.Arbitrary<string | undefined> {
  const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
  const credentials = ctx.authorization.replace(/^Basic /, '');
  // Base64 without its padding, or with bytes after it, decodes to the same login (Buffer's decoder stops at '=').
  if (login === 'operator') return fc.constantFrom(ctx.authorization, `basic ${credentials}`, `BASIC  ${credentials} `, `Basic ${credentials.replace(/=+$/, '')}`, `Basic ${credentials}x`);
  if (login === 'none') return fc.constant(undefined);
  return fc.oneof(
    fc.string({ maxLength: 30 }).map((p) => `Basic ${b64(`admin:${p}`)}`),
    fc.string({ maxLength: 30 }).map((u) => `Basic ${b64(`${u}:correct horse battery staple`)}`),
    fc.constantFrom(
      'Basic',
      'Basic ',
      'Basic !!!!',
      `Basic ${b64('admin')}`,
      `Basic ${b64(':')}`,
      `Basic ${credentials.replace(/=+$/, '').slice(0, -1)}`,
      `Bearer ${credentials}`,
      `Digest username="admin"`,
      `Negotiate ${credentials}`,
      `${credentials}`,
      `Basic ${Buffer.from('admin:correct horse battery staple', 'utf16le').toString('base64')}`,
      `Basic ${'A'.repeat(9000)}`,
    ),
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=koi8-r',
  'application/json; charset=x-nope',
  'APPLICATION/JSON',
  'application/json ; charset="utf-8"',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=iso-2022-jp',
  'application/x-www-form-urlencoded; charset=x-nope',
  'multipart/form-data; boundary=xyz',
  'multipart/form-data',
  'text/plain',
  'text/plain; charset=utf-8',
  'text/html',
  'application/xml',
  'application/octet-stream',
  '*/*',
  'application/',
  '/',
  ';',
  'json',
  '',
  'a'.repeat(5000),
];

/** A CSRF token in every shape but the operator's own in a form body: empty, another user's, cut, changed, doubled. */
function wrongTokenArb(ctx: HttpFuzzContext): fc.Arbitrary<string> {
  const t = ctx.csrfToken;
  return fc.oneof(
    fc.constantFrom('', ' ', ctx.otherUsersToken, t.slice(0, -1), `${t}x`, t.toUpperCase() === t ? t.toLowerCase() : t.toUpperCase(), ` ${t}`, `${t}\u00a0`, 'x'.repeat(201), t.repeat(5)),
    fc.nat({ max: t.length - 1 }).map((i) => `${t.slice(0, i)}${t[i] === 'A' ? 'B' : 'A'}${t.slice(i + 1)}`),
    fc.base64String({ minLength: 43, maxLength: 44 }),
  );
}

/** Form, JSON and multipart bodies that carry a wrong token, or the right one where it does not count. */
function bodyArb(ctx: HttpFuzzContext, allowRightToken: boolean): fc.Arbitrary<Buffer | undefined> {
  const fieldValue = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', ctx.ticketId, '2026-01-01T00:00:00.000Z', 'true', '1', MARKUP, '<script>alert(1)</script>'), fc.constant('x').chain(huge));
  const fields = fc.dictionary(fc.constantFrom('reply', 'seen', 'reason', 'note', 'conversationSeen', 'readNewerMail', 'senderVerified', 'checkedNoCopy', 'question', 'answer', 'target', 'asNew', 'x', '__proto__'), fieldValue, { maxKeys: 4 });
  const token = allowRightToken ? fc.oneof(wrongTokenArb(ctx), fc.constant(ctx.csrfToken)) : wrongTokenArb(ctx);
  const form = fc.tuple(fields, fc.option(token), fc.boolean()).map(([f, t, twice]) => {
    const params = new URLSearchParams(f);
    if (t !== null) params.append('_csrf', t);
    // A repeated field arrives as an array, which verify() refuses even when both are the right token.
    if (t !== null && twice) params.append('_csrf', t);
    return Buffer.from(params.toString());
  });
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 3, arbitrary: form },
    { weight: 2, arbitrary: fc.tuple(fields, fc.option(fc.oneof(wrongTokenArb(ctx), fc.constant(ctx.csrfToken)))).map(([f, t]) => Buffer.from(JSON.stringify(t === null ? f : { ...f, _csrf: t }))) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }).map((j) => Buffer.from(j)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.constant(ctx.csrfToken).map((t) => Buffer.from(`--xyz\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${t}\r\n--xyz--\r\n`)) },
    { weight: 1, arbitrary: form.map((b) => gzipSync(b)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from(`reply=${'y'.repeat(600 * 1024)}`)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"reply":', '[]', 'null', '"x"', '{"__proto__":{"seen":1}}', '{"constructor":{"prototype":{"x":1}}}', '\ufeff{}').map((s) => Buffer.from(s)) },
  );
}

/**
 * Headers beside the login and Content-Type: cookies, hosts, origins, fetch metadata, proxies' forwarding, encodings,
 * a few at a time (most requests carry the real Host), so that most requests get past the guards to a handler.
 */
function headersArb(ctx: HttpFuzzContext): fc.Arbitrary<Record<string, string>> {
  const latin1 = fc.string({ unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)), maxLength: 40 });
  const host = fc.oneof(
    { weight: 6, arbitrary: fc.constant(ctx.host) },
    { weight: 2, arbitrary: fc.constantFrom('localhost', '127.0.0.1', '[::1]', 'evil.example', `evil.example:${ctx.host.split(':')[1]}`, '', 'a b', `${ctx.host}.`, 'LOCALHOST:1') },
    { weight: 1, arbitrary: latin1 },
  );
  const optional: Array<fc.Arbitrary<[string, string]>> = Object.entries({
    cookie: fc.oneof(
      latin1,
      fc.constantFrom(`${KNOWN_DEVICE_COOKIE}=`, `${KNOWN_DEVICE_COOKIE}=x.y.z`, `${KNOWN_DEVICE_COOKIE}=${'a'.repeat(4000)}`, `${KNOWN_DEVICE_COOKIE}=%zz; ${KNOWN_DEVICE_COOKIE}=1`, '__proto__=1', '=; ;=;'),
    ),
    origin: fc.constantFrom('null', 'http://evil.example', `http://${ctx.host}`, 'http://127.0.0.1', 'file://', '::', ''),
    'sec-fetch-site': fc.constantFrom('cross-site', 'same-site', 'same-origin', 'none', 'CROSS-SITE', ''),
    'x-requested-with': fc.constantFrom('XMLHttpRequest', ''),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope', 'gzip, gzip', 'GZIP'),
    accept: fc.constantFrom('application/json', 'text/html', '*/*', 'text/event-stream', 'image/*', ''),
    'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', ''),
    'x-forwarded-for': fc.constantFrom('10.0.0.1', 'unknown', '::1, 127.0.0.1', ''),
    'x-forwarded-proto': fc.constantFrom('https', 'javascript', ''),
    'x-forwarded-host': fc.constantFrom('evil.example', ''),
    range: fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=99999999999999999999-', 'bytes=0-1,0-1,0-1'),
    'if-none-match': fc.constantFrom('*', 'W/"x"'),
    'if-modified-since': fc.constantFrom('Thu, 01 Jan 2099 00:00:00 GMT', 'nope'),
    'x-http-method-override': fc.constantFrom('DELETE', 'PUT'),
    expect: fc.constantFrom('100-continue'),
    'transfer-encoding': fc.constantFrom('chunked'),
  }).map(([name, value]) => value.map((v): [string, string] => [name, v]));
  return fc
    .tuple(host, fc.uniqueArray(fc.oneof(...optional), { maxLength: 3, selector: ([name]) => name }))
    .map(([h, rest]) => ({ host: h, ...Object.fromEntries(rest) }));
}

/** What fits the dashboard's requests: any route, method, login, headers and body, the right CSRF token included. */
export function hostileRequestArb(ctx: HttpFuzzContext): fc.Arbitrary<HostileRequest> {
  return requestArb(ctx, ROUTES, fc.oneof({ weight: 1, arbitrary: fc.constantFrom(...METHODS) }, { weight: 3, arbitrary: fc.constant('') }), true);
}

/**
 * State-changing requests of the operator that a cross-site page or a stray client could send: to the form and API
 * routes and Bull Board's, without the CSRF token where it counts and, to the API, without what forces a preflight;
 * {@link mayChangeState} says no to every one.
 */
export function forgedRequestArb(ctx: HttpFuzzContext): fc.Arbitrary<HostileRequest> {
  return requestArb(ctx, stateChangingRoutes(), fc.oneof(fc.constant(''), fc.constantFrom(...STATE_METHODS)), false)
    .map((r) => ({ ...r, login: 'operator' as const, headers: { ...r.headers, authorization: ctx.authorization } }))
    .filter((r) => !mayChangeState(r, ctx));
}

function requestArb(ctx: HttpFuzzContext, routes: ReadonlyArray<readonly [string, string]>, method: fc.Arbitrary<string>, allowRightToken: boolean): fc.Arbitrary<HostileRequest> {
  return fc
    .record({
      route: pathArb(ctx, routes),
      method,
      query: queryArb(ctx),
      form: fc.constantFrom('origin', 'origin', 'origin', 'origin', 'origin', 'origin', 'origin', 'origin', 'absolute', 'absolute-foreign', 'star'),
      login: fc.constantFrom<LoginKind>('operator', 'operator', 'wrong', 'none'),
      headers: headersArb(ctx),
      contentType: fc.option(fc.constantFrom(...CONTENT_TYPES), { nil: undefined }),
      body: bodyArb(ctx, allowRightToken),
    })
    .chain((r) => authorizationArb(ctx, r.login).map((authorization) => ({ ...r, authorization })))
    .map(({ route, method, query, form, login, headers, contentType, body, authorization }) => {
      const pathAndQuery = `${route.path}${query}`;
      const target = form === 'absolute' ? `http://${ctx.host}${pathAndQuery}` : form === 'absolute-foreign' ? `http://evil.example${pathAndQuery}` : form === 'star' ? '*' : pathAndQuery;
      const all: Record<string, string> = { ...headers };
      if (authorization !== undefined) all.authorization = authorization;
      if (contentType !== undefined) all['content-type'] = contentType;
      // Content-Encoding only on a body, or every bodiless GET would be a body-less oddity alone.
      if (body === undefined) delete all['content-encoding'];
      return { method: method || route.method, target, headers: all, ...(body !== undefined ? { body } : {}), login };
    });
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Whether the dashboard may act on `r`, by a generous reading (so a property that checks nothing changed never
 * blames a request the dashboard is right to act on): the operator's login and a method that is not safe, with a
 * `_csrf` field of exactly the operator's token in the body (gzipped or not), or to a path that reads as the JSON API
 * with a JSON Content-Type or an `X-Requested-With`. Bull Board's routes never may: the board is read-only.
 */
export function mayChangeState(r: HostileRequest, ctx: HttpFuzzContext): boolean {
  if (r.login !== 'operator' || ['GET', 'HEAD', 'OPTIONS'].includes(r.method)) return false;
  const field = new RegExp(`(?:^|&)_csrf=${ctx.csrfToken.replace(/[^\w]/g, '\\$&')}(?:&|$)`);
  if (r.body && [r.body, gunzipped(r.body)].some((b) => b !== undefined && field.test(b.toString('latin1')))) return true;
  const path = safeDecode(safeDecode(r.target.replace(/^https?:\/\/[^/]*/i, '').split('?')[0]!)).toLowerCase();
  const json = /json/i.test(r.headers['content-type'] ?? '') || r.headers['x-requested-with'] !== undefined;
  return json && !path.includes('admin') && path.includes('api');
}

function gunzipped(body: Buffer): Buffer | undefined {
  try {
    return gunzipSync(body);
  } catch {
    return undefined;
  }
}

/** Sends `r` to `port` on 127.0.0.1 over a fresh connection; the answer, or the client error that ended it. */
export function sendHostile(port: number, r: HostileRequest, timeoutMs = 15_000): Promise<HostileAnswer> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: HostileAnswer) => {
      if (!settled) {
        settled = true;
        resolve(answer);
      }
    };
    // node:http sends a GET's or DELETE's body without a length unless told, and the server reads it as the next request.
    const headers = r.body !== undefined && r.headers['transfer-encoding'] === undefined ? { ...r.headers, 'content-length': String(r.body.length) } : r.headers;
    let req;
    try {
      req = httpRequest({ host: '127.0.0.1', port, method: r.method, path: r.target, headers, setHost: false, agent: false, timeout: timeoutMs, insecureHTTPParser: true }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', (err) => done({ error: `response: ${(err as NodeJS.ErrnoException).code ?? err.message}` }));
      });
    } catch (err) {
      // node:http refuses to write it (an invalid header value): nothing reached the server.
      done({ error: `unsent: ${(err as Error).message}` });
      return;
    }
    req.on('timeout', () => {
      done({ error: 'timeout' });
      req.destroy();
    });
    req.on('error', (err) => done({ error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(r.body);
  });
}

/** Writes `bytes` to `port` on a raw socket, half-closes it, and returns what came back before the server closed. */
export function sendRaw(port: number, bytes: Buffer, timeoutMs = 5_000): Promise<{ reply: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ reply: Buffer.concat(chunks), closed: false });
    }, timeoutMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ reply: Buffer.concat(chunks), closed: true });
    });
    socket.end(bytes);
  });
}

/** A stack frame, or a path of this checkout or its dependencies: what an error answer must never show. */
const LEAK = new RegExp(
  [String.raw`\n\s*at [^\n]*(?:\(|\s)(?:/|file:|node:)[^\n]*:\d+:\d+`, String.raw`node_modules/`, process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), String.raw`\bsrc/server/\w+\.ts`].join('|'),
);

/** True when `s` shows a stack frame or an internal path. */
export function leaksInternals(s: string): boolean {
  return LEAK.test(s);
}

/** The request's path as routing reads it, lower-cased and decoded as far as it goes, for telling routes apart. */
function routedPath(r: HostileRequest): string {
  // Backslashes too: the URL parser turns those of an absolute-form target into slashes.
  return safeDecode(r.target.replace(/^https?:\/\/[^/]*/i, '').split('?')[0]!).toLowerCase().replaceAll('\\', '/');
}

/**
 * What is wrong with `answer` to `r` (empty when nothing): every answer the app wrote carries the security headers
 * (the CSP of its part of the dashboard, nosniff, no referrer, no framing, no shared caching of anything but the
 * static assets) and no `X-Powered-By`; it is no 500, shows no stack or internal path, declares what its body is, and
 * its JSON parses; its HTML carries no markup of the request's; its cookies are HttpOnly and SameSite=Strict, and only
 * for the operator; a 401 challenges; a redirect stays on the dashboard; customer data (`secrets`) goes out only
 * under the review page's or a download's policy and `no-store`; and signed out, nothing but a 401 or the open
 * health checks' bare statuses comes back, and no customer data. An answer node:http's own parser wrote before the
 * app saw the request (400, 413, 431, 505; no CSP) needs only to be empty.
 */
export function answerProblems(r: HostileRequest, answer: HostileAnswer, secrets: readonly string[]): string[] {
  if ('error' in answer) {
    // The server may close on a request head or body past its limits before it reads all we write.
    const headBytes = r.target.length + Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    if (/^(ECONNRESET|EPIPE|unsent: )/.test(answer.error) && (headBytes > 14_000 || (r.body?.length ?? 0) > 500_000 || answer.error.startsWith('unsent: '))) return [];
    return [`no answer: ${answer.error}`];
  }
  const problems: string[] = [];
  const h = answer.headers;
  const text = answer.body.toString('latin1');
  const headerText = JSON.stringify(h);
  const csp = h['content-security-policy'];
  const path = routedPath(r);
  const underBoard = path.includes('/admin/queues');
  if (csp === undefined && [400, 413, 431, 505].includes(answer.status)) {
    if (answer.body.length > 0 && !/^(Bad Request|Request Header Fields Too Large)?$/.test(text.trim())) problems.push(`parser's ${answer.status} has a body: ${text.slice(0, 120)}`);
    return problems;
  }
  if (answer.status >= 500 && !(answer.status === 503 && path.startsWith('/readyz'))) problems.push(`status ${answer.status}: ${text.slice(0, 200)}`);
  if (leaksInternals(text) || leaksInternals(headerText)) problems.push(`leaks internals: ${text.slice(0, 300)}`);
  const allowedPolicies = [REVIEW_CSP, ATTACHMENT_CSP, ...(underBoard ? [BULL_BOARD_CSP] : [])];
  if (typeof csp !== 'string' || !allowedPolicies.includes(csp)) problems.push(`Content-Security-Policy ${JSON.stringify(csp)}`);
  if (h['x-content-type-options'] !== 'nosniff') problems.push(`X-Content-Type-Options ${JSON.stringify(h['x-content-type-options'])}`);
  if (h['referrer-policy'] !== 'no-referrer') problems.push(`Referrer-Policy ${JSON.stringify(h['referrer-policy'])}`);
  if (h['x-frame-options'] !== 'DENY') problems.push(`X-Frame-Options ${JSON.stringify(h['x-frame-options'])}`);
  if (h['x-powered-by'] !== undefined) problems.push(`X-Powered-By ${JSON.stringify(h['x-powered-by'])}`);
  const type = String(h['content-type'] ?? '');
  const staticAsset = answer.status === 200 && /^(text\/css|application\/javascript|text\/javascript|font\/|image\/)/.test(type);
  if (h['cache-control'] !== 'no-store' && !staticAsset && !(answer.status === 304 && answer.body.length === 0)) problems.push(`Cache-Control ${JSON.stringify(h['cache-control'])} on a ${answer.status} ${type}`);
  if (answer.body.length > 0 && type === '') problems.push('a body without Content-Type');
  if (r.method === 'HEAD' && answer.body.length > 0) problems.push('HEAD answered with a body');
  if (/json/.test(type) && answer.body.length > 0) {
    try {
      JSON.parse(answer.body.toString('utf8'));
    } catch {
      problems.push(`JSON that does not parse: ${text.slice(0, 120)}`);
    }
  }
  if (/html/.test(type) && !underBoard && INJECTED.test(answer.body.toString('utf8'))) problems.push(`markup from the request in the page: ${text.slice(Math.max(0, text.search(INJECTED) - 80), text.search(INJECTED) + 80)}`);
  const cookies = ([] as string[]).concat(h['set-cookie'] ?? []);
  if (cookies.length > 0 && r.login !== 'operator') problems.push(`a cookie for a request signed out: ${cookies.join(' | ')}`);
  for (const cookie of cookies) if (!/;\s*HttpOnly/i.test(cookie) || !/;\s*SameSite=Strict/i.test(cookie)) problems.push(`a cookie scripts or other sites get: ${cookie}`);
  if (answer.status === 401 && !String(h['www-authenticate'] ?? '').includes(AUTH_REALM)) problems.push('401 without the Basic challenge');
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304) {
    const location = String(h.location ?? '');
    if (!/^\/(?![/\\])/.test(location)) problems.push(`redirect off the dashboard: ${JSON.stringify(location)}`);
  }
  const shown = secrets.filter((s) => text.includes(s) || headerText.includes(s));
  if (shown.length > 0) {
    if (r.login !== 'operator') problems.push(`customer data signed out (${r.login}): ${shown.join(', ')}`);
    if (csp !== REVIEW_CSP && csp !== ATTACHMENT_CSP) problems.push(`customer data under ${JSON.stringify(csp)}`);
    if (h['cache-control'] !== 'no-store') problems.push(`customer data with Cache-Control ${JSON.stringify(h['cache-control'])}`);
  }
  if (r.login !== 'operator' && answer.status !== 401) {
    // Only the orchestrators' probes answer without the login, and only with bare statuses.
    let open = false;
    try {
      const json = JSON.parse(answer.body.toString('utf8')) as { status?: unknown; checks?: Record<string, unknown> };
      open =
        (answer.status === 200 || answer.status === 503) &&
        typeof json.status === 'string' &&
        Object.keys(json).every((k) => k === 'status' || k === 'checks') &&
        Object.values(json.checks ?? {}).every((v) => typeof v === 'string');
    } catch {
      // A HEAD, or a conditional GET (If-None-Match: *) answered 304, of a probe: no body to read.
      open = answer.body.length === 0 && [200, 304, 503].includes(answer.status) && /^\/(healthz|readyz)/.test(path);
    }
    if (!open) problems.push(`signed out (${r.login}) and answered ${answer.status}: ${text.slice(0, 160)}`);
  }
  return problems;
}

/** A one-line description of a request for a failure message (long parts cut). */
export function describeRequest(r: HostileRequest): string {
  const cut = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…(${s.length})` : s);
  const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, cut(v)]));
  return `${r.method} ${cut(r.target)} ${JSON.stringify(headers)} body=${r.body ? cut(JSON.stringify(r.body.toString('latin1'))) : '-'} login=${r.login}`;
}
