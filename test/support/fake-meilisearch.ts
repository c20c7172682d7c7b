/**
 * Just enough Meilisearch for the adapter and deployment tests, played by a {@link RecordingHttpServer}: the real
 * `meilisearch` client (and `curl`, for the Compose `meili-key` script) talk real HTTP to it.
 *
 * API keys are enforced as Meilisearch v1 enforces them (crates/meilisearch/src/extractors/authentication: the
 * `ActionPolicy` of each route, and meilisearch-auth's key derivation):
 * - no `Authorization` header: 401 `missing_authorization_header`;
 * - a key that is not the master key nor a known key, or a known key without the route's action: 403
 *   `invalid_api_key`, "The provided API key is invalid.";
 * - a known key on a route of an index its `indexes` patterns do not cover (`*`, a name, or a prefix ending in `*`):
 *   403 `invalid_api_key`, "The API key cannot acces the index …" (the server's spelling); listing indexes shows only
 *   those it covers, and a task of another index is not found;
 * - `actions` may hold an action, its group's wildcard (`indexes.*`) or `*`;
 * - `POST /keys` takes only the master key; a key's value is the hex HMAC-SHA256 of its uid keyed with the master key,
 *   an existing uid answers 409 `api_key_already_exists`, and a uid that is not a UUID 400 `invalid_api_key_uid`;
 * - a uid is read as a UUID (`Uuid::from_str`: any case, hyphenated or not, in braces or after `urn:uuid:`), so
 *   `0B1E…` and `0b1e…` without hyphens are the same key;
 * - `GET /keys/:uidOrKey` (routes/api_key.rs, `keys.get`) answers the key as `KeyView` serialises it (name,
 *   description, key, uid, actions, indexes, expiresAt, createdAt, updatedAt), or 404 `api_key_not_found`.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { RecordedRequest, RecordingHttpServer, RouteResponse } from './recording-http-server.js';

type Doc = Record<string, unknown>;

/** One index of the fake. */
export interface FakeMeiliIndex {
  uid: string;
  primaryKey: string | null;
  settings: Record<string, unknown>;
  docs: Map<string, Doc>;
}

/** One task of the fake. */
export interface FakeMeiliTask {
  uid: number;
  indexUid: string | null;
  /** The indexes a swap task touches (its `indexUid` is null). */
  swapped?: string[];
  type: string;
  status: 'enqueued' | 'succeeded' | 'failed';
  error: { message: string; code: string; type: string; link: string } | null;
  /** Polls answered so far; the first poll says "processing" so the client has to poll again. */
  polls: number;
  /** The change the task makes, run when the task is processed (not when it is enqueued). */
  apply: () => FakeMeiliTaskError | undefined;
}

/** How a task fails. */
export type FakeMeiliTaskError = { message: string; code: string };

/** An API key as `POST /keys` takes it; `key` is its value, derived from the uid and the master key unless given. */
export interface FakeMeiliKey {
  uid?: string;
  key?: string;
  name?: string | null;
  description?: string | null;
  actions: string[];
  indexes: string[];
}

/** A request the fake refused for its key: what a test of least privilege looks at. */
export interface FakeMeiliRefusal {
  method: string;
  path: string;
  status: number;
  code: string;
  /** The key's uid, or undefined for no key or an unknown one. */
  keyUid: string | undefined;
}

/** Options of {@link FakeMeilisearch}. */
export interface FakeMeilisearchOptions {
  /**
   * The master key (`MEILI_MASTER_KEY`): every action, and the only key that may create keys. Without one the fake
   * still refuses every other key (it plays a server whose master key the test does not know, not one without any).
   */
  masterKey?: string;
  /** Keys that exist from the start. */
  keys?: FakeMeiliKey[];
}

/** Meilisearch reads this many words of a query and ignores the rest (a documented limit). */
const QUERY_WORD_LIMIT = 10;
const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SIMPLE_UUID = /^[0-9a-f]{32}$/i;

/**
 * A uid as the uuid crate's `Uuid::parse_str` reads it (simple, hyphenated, `{braced}` or `urn:uuid:`, any case), in
 * the lower-case hyphenated form the server writes it back; undefined when it is not a UUID.
 */
export function parseMeiliUid(text: string): string | undefined {
  const bare = text.length === 45 && text.startsWith('urn:uuid:') ? text.slice(9) : text.length === 38 && text.startsWith('{') && text.endsWith('}') ? text.slice(1, -1) : text;
  if (SIMPLE_UUID.test(bare)) return `${bare.slice(0, 8)}-${bare.slice(8, 12)}-${bare.slice(12, 16)}-${bare.slice(16, 20)}-${bare.slice(20)}`.toLowerCase();
  return UUID.test(bare) ? bare.toLowerCase() : undefined;
}

/**
 * The value Meilisearch gives the key of `uid`: the hex HMAC-SHA256 of the hyphenated lower-case uid, keyed with the
 * master key (meilisearch-auth's `generate_key_as_hexa`), which is why `.env` can hold a key before the server runs.
 */
export function deriveMeiliKey(uid: string, masterKey: string): string {
  return createHmac('sha256', masterKey).update(uid.toLowerCase()).digest('hex');
}

/**
 * Just enough Meilisearch, as the server behaves: every route but `/health` needs a key allowed the route's action on
 * the route's index (see the module comment); tasks are processed asynchronously, in order, only when time passes
 * (here: when the client polls; the first poll of a task says "processing"); search reads the first ten words of the
 * query and scores a substring match of each, with a bonus for heading matches.
 */
export class FakeMeilisearch {
  readonly indexes = new Map<string, FakeMeiliIndex>();
  readonly tasks = new Map<number, FakeMeiliTask>();
  /** Keys by value. */
  readonly keys = new Map<string, Required<FakeMeiliKey>>();
  /** Every request refused for its key, in order. */
  readonly refusals: FakeMeiliRefusal[] = [];
  /** Lets a test fail a task: return an error to fail it. */
  failTask: (type: string, request: RecordedRequest) => FakeMeiliTaskError | undefined = () => undefined;
  readonly #masterKey: string | undefined;
  #nextTask = 0;

  constructor(options: FakeMeilisearchOptions = {}) {
    this.#masterKey = options.masterKey;
    for (const key of options.keys ?? []) this.addKey(key);
  }

  /** Adds a key as `POST /keys` would, and returns its value. */
  addKey(spec: FakeMeiliKey): string {
    const uid = spec.uid ?? randomUUID();
    const key = spec.key ?? deriveMeiliKey(uid, this.#masterKey ?? '');
    this.keys.set(key, { uid, key, name: spec.name ?? null, description: spec.description ?? null, actions: [...spec.actions], indexes: [...spec.indexes] });
    return key;
  }

  /** The key of `uid` (in any form the server reads as the same UUID), if it exists. */
  keyByUid(uid: string): Required<FakeMeiliKey> | undefined {
    const canonical = parseMeiliUid(uid) ?? uid;
    return [...this.keys.values()].find((key) => key.uid === canonical);
  }

  install(server: RecordingHttpServer): void {
    /** A route guarded by `action`; the index of a path under `/indexes/:uid` is checked against the key's too. */
    const route = (method: string, path: string, action: string, handler: (req: RecordedRequest, access: Access) => RouteResponse) =>
      server.on(method, path, (req) => {
        const access = this.#authorize(req, action, path.startsWith('/indexes/:uid') ? req.params.uid : undefined);
        return 'refused' in access ? access.refused : handler(req, access);
      });
    server.on('GET', '/health', () => ({ body: { status: 'available' } }));
    server.on('POST', '/keys', (req) => this.#createKey(req));
    route('GET', '/keys/:key', 'keys.get', (req) => {
      const param = req.params.key!;
      const uid = parseMeiliUid(param);
      const key = uid !== undefined ? this.keyByUid(uid) : this.keys.get(param);
      if (!key) return invalidRequest(404, 'api_key_not_found', `API key \`${uid ?? param}\` not found.`);
      const at = new Date().toISOString();
      return {
        body: { name: key.name, description: key.description, key: key.key, uid: key.uid, actions: key.actions, indexes: key.indexes, expiresAt: null, createdAt: at, updatedAt: at },
      };
    });
    route('GET', '/tasks/:uid', 'tasks.get', (req, access) => {
      const task = this.tasks.get(Number(req.params.uid));
      // A task of an index the key does not cover is not found, as in the task list the server filters.
      const visible = task && [...(task.indexUid ? [task.indexUid] : []), ...(task.swapped ?? [])].every((uid) => access.covers(uid));
      if (!task || !visible) return notFound('task_not_found', `Task \`${req.params.uid}\` not found.`);
      task.polls += 1;
      this.#process(task.polls === 1 ? task.uid - 1 : task.uid);
      const status = task.polls === 1 ? 'processing' : task.status;
      return {
        body: {
          uid: task.uid,
          batchUid: task.uid,
          indexUid: task.indexUid,
          status,
          type: task.type,
          canceledBy: null,
          details: {},
          error: status === 'failed' ? task.error : null,
          duration: status === 'processing' ? null : 'PT0.001S',
          enqueuedAt: new Date().toISOString(),
          startedAt: new Date().toISOString(),
          finishedAt: status === 'processing' ? null : new Date().toISOString(),
        },
      };
    });
    route('POST', '/indexes', 'indexes.create', (req, access) => {
      const { uid, primaryKey } = req.body as { uid: string; primaryKey?: string };
      // The uid is in the body, so the server checks it after the action (AuthenticationError::InvalidToken).
      if (!access.covers(uid)) return this.#refuse(req, access.keyUid, invalidApiKey());
      return this.#enqueue(req, 'indexCreation', uid, () => {
        if (this.indexes.has(uid)) return { message: `Index \`${uid}\` already exists.`, code: 'index_already_exists' };
        this.indexes.set(uid, { uid, primaryKey: primaryKey ?? null, settings: {}, docs: new Map() });
        return undefined;
      });
    });
    route('DELETE', '/indexes/:uid', 'indexes.delete', (req) =>
      this.#enqueue(req, 'indexDeletion', req.params.uid!, () => {
        if (!this.indexes.delete(req.params.uid!)) return indexNotFound(req.params.uid!);
        return undefined;
      }),
    );
    route('PATCH', '/indexes/:uid/settings', 'settings.update', (req) =>
      this.#enqueue(req, 'settingsUpdate', req.params.uid!, () => {
        const index = this.#getOrCreate(req.params.uid!);
        Object.assign(index.settings, req.body);
        return undefined;
      }),
    );
    route('POST', '/indexes/:uid/documents', 'documents.add', (req) =>
      this.#enqueue(req, 'documentAdditionOrUpdate', req.params.uid!, () => {
        const index = this.#getOrCreate(req.params.uid!);
        index.primaryKey ??= req.query.primaryKey ?? 'id';
        for (const doc of req.body as Doc[]) {
          const id = doc[index.primaryKey];
          if (typeof id !== 'string' || !/^[A-Za-z0-9_-]+$/.test(id)) {
            return { message: `Document identifier \`${String(id)}\` is invalid.`, code: 'invalid_document_id' };
          }
          index.docs.set(id, doc);
        }
        return undefined;
      }),
    );
    route('POST', '/swap-indexes', 'indexes.swap', (req, access) => {
      const swaps = req.body as { indexes: [string, string] }[];
      // Every index of a swap must be covered by the key (the route refuses with InvalidToken otherwise).
      if (!swaps.every(({ indexes }) => indexes.every((uid) => access.covers(uid)))) return this.#refuse(req, access.keyUid, invalidApiKey());
      const response = this.#enqueue(req, 'indexSwap', null, () => {
        for (const { indexes } of swaps) {
          for (const uid of indexes) if (!this.indexes.has(uid)) return indexNotFound(uid);
        }
        for (const { indexes: [a, b] } of swaps) {
          const left = this.indexes.get(a)!;
          const right = this.indexes.get(b)!;
          this.indexes.set(a, { ...right, uid: a });
          this.indexes.set(b, { ...left, uid: b });
        }
        return undefined;
      });
      this.tasks.get((response.body as { taskUid: number }).taskUid)!.swapped = swaps.flatMap(({ indexes }) => indexes);
      return response;
    });
    route('GET', '/indexes', 'indexes.get', (_req, access) => {
      // The list holds only the indexes the key covers.
      const results = [...this.indexes.values()]
        .filter(({ uid }) => access.covers(uid))
        .map(({ uid, primaryKey }) => ({ uid, primaryKey, createdAt: '', updatedAt: '' }));
      return { body: { results, offset: 0, limit: 1000, total: results.length } };
    });
    route('GET', '/indexes/:uid', 'indexes.get', (req) => {
      const index = this.indexes.get(req.params.uid!);
      if (!index) return notFoundResponse(indexNotFound(req.params.uid!));
      return { body: { uid: index.uid, primaryKey: index.primaryKey, createdAt: '', updatedAt: '' } };
    });
    route('GET', '/indexes/:uid/stats', 'stats.get', (req) => {
      const index = this.indexes.get(req.params.uid!);
      if (!index) return notFoundResponse(indexNotFound(req.params.uid!));
      return { body: { numberOfDocuments: index.docs.size, isIndexing: false, fieldDistribution: {} } };
    });
    route('POST', '/indexes/:uid/search', 'search', (req) => {
      const index = this.indexes.get(req.params.uid!);
      if (!index) return notFoundResponse(indexNotFound(req.params.uid!));
      return { body: search(index, req.body as SearchBody) };
    });
  }

  /** Live documents of an index by chunk id, for assertions. */
  chunkIds(uid: string): string[] {
    return [...(this.indexes.get(uid)?.docs.values() ?? [])].map((doc) => String(doc.chunkId)).sort();
  }

  /**
   * Who the request's key is and what it may touch, as the route's `ActionPolicy` decides: the master key may do
   * anything; a known key must cover the index in the path (checked first, with its own message), then hold the action.
   */
  #authorize(req: RecordedRequest, action: string, index: string | undefined): Access | { refused: RouteResponse } {
    const header = req.headers.authorization;
    if (header === undefined) {
      return { refused: this.#refuse(req, undefined, { status: 401, code: 'missing_authorization_header', message: 'The Authorization header is missing. It must use the bearer authorization method.' }) };
    }
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    if (token === undefined) {
      return { refused: this.#refuse(req, undefined, { status: 401, code: 'missing_authorization_header', message: 'The Authorization header is missing. It must use the bearer authorization method.' }) };
    }
    if (this.#masterKey !== undefined && token === this.#masterKey) return { keyUid: undefined, covers: () => true };
    const key = this.keys.get(token);
    if (!key) return { refused: this.#refuse(req, undefined, invalidApiKey()) };
    const covers = (uid: string) => key.indexes.some((pattern) => indexPatternMatches(pattern, uid));
    if (index !== undefined && !covers(index)) {
      return {
        refused: this.#refuse(req, key.uid, {
          status: 403,
          code: 'invalid_api_key',
          message: `The API key cannot acces the index \`${index}\`, authorized indexes are ${JSON.stringify(key.indexes)}.`,
        }),
      };
    }
    if (!actionAllowed(key.actions, action)) return { refused: this.#refuse(req, key.uid, invalidApiKey()) };
    return { keyUid: key.uid, covers };
  }

  #refuse(req: RecordedRequest, keyUid: string | undefined, error: { status: number; code: string; message: string }): RouteResponse {
    this.refusals.push({ method: req.method, path: req.path, status: error.status, code: error.code, keyUid });
    return { status: error.status, body: { message: error.message, code: error.code, type: 'auth', link: `https://docs.meilisearch.com/errors#${error.code}` } };
  }

  /** `POST /keys`: the master key only; the key's value derives from its uid. */
  #createKey(req: RecordedRequest): RouteResponse {
    const header = req.headers.authorization;
    if (header === undefined) {
      return this.#refuse(req, undefined, { status: 401, code: 'missing_authorization_header', message: 'The Authorization header is missing. It must use the bearer authorization method.' });
    }
    if (this.#masterKey === undefined || header !== `Bearer ${this.#masterKey}`) return this.#refuse(req, undefined, invalidApiKey());
    const body = req.body as { uid?: string; name?: string | null; description?: string | null; actions: string[]; indexes: string[] };
    const uid = body.uid === undefined ? undefined : parseMeiliUid(body.uid);
    if (body.uid !== undefined && uid === undefined) {
      return invalidRequest(400, 'invalid_api_key_uid', `Invalid value at \`.uid\`: invalid character: expected an optional prefix of \`urn:uuid:\` followed by [0-9a-fA-F-], found \`${body.uid}\`.`);
    }
    if (uid !== undefined && this.keyByUid(uid)) {
      return invalidRequest(409, 'api_key_already_exists', `\`uid\` field value \`${uid}\` is already an existing API key.`);
    }
    const key = this.addKey({ ...body, uid });
    const created = this.keys.get(key)!;
    return { status: 201, body: { ...created, expiresAt: null, createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() } };
  }

  /** Processes the enqueued tasks up to `upTo`, in order, as the server's scheduler would. */
  #process(upTo: number): void {
    for (const task of this.tasks.values()) {
      if (task.uid > upTo) break;
      if (task.status !== 'enqueued') continue;
      const error = task.apply();
      task.status = error ? 'failed' : 'succeeded';
      task.error = error ? { ...error, type: 'invalid_request', link: `https://docs.meilisearch.com/errors#${error.code}` } : null;
    }
  }

  #getOrCreate(uid: string): FakeMeiliIndex {
    let index = this.indexes.get(uid);
    if (!index) {
      index = { uid, primaryKey: null, settings: {}, docs: new Map() };
      this.indexes.set(uid, index);
    }
    return index;
  }

  #enqueue(req: RecordedRequest, type: string, indexUid: string | null, apply: () => FakeMeiliTaskError | undefined): RouteResponse {
    const uid = this.#nextTask++;
    const failure = this.failTask(type, req);
    this.tasks.set(uid, { uid, indexUid, type, status: 'enqueued', error: null, polls: 0, apply: failure ? () => failure : apply });
    return { status: 202, body: { taskUid: uid, indexUid, status: 'enqueued', type, enqueuedAt: new Date().toISOString() } };
  }
}

/** What an authorised request's key may touch. */
interface Access {
  /** The key's uid; undefined for the master key. */
  keyUid: string | undefined;
  covers(index: string): boolean;
}

/** `*`, an index name, or a prefix ending in `*` (Meilisearch's `IndexUidPattern`). */
function indexPatternMatches(pattern: string, uid: string): boolean {
  return pattern.endsWith('*') ? uid.startsWith(pattern.slice(0, -1)) : uid === pattern;
}

/** The action itself, its group's wildcard (`documents.*`), or `*`. */
function actionAllowed(actions: string[], action: string): boolean {
  const group = action.includes('.') ? `${action.slice(0, action.indexOf('.'))}.*` : undefined;
  return actions.some((granted) => granted === '*' || granted === action || granted === group);
}

function invalidApiKey(): { status: number; code: string; message: string } {
  return { status: 403, code: 'invalid_api_key', message: 'The provided API key is invalid.' };
}

function invalidRequest(status: number, code: string, message: string): RouteResponse {
  return { status, body: { message, code, type: 'invalid_request', link: `https://docs.meilisearch.com/errors#${code}` } };
}

interface SearchBody {
  q: string;
  limit?: number;
  showRankingScore?: boolean;
  attributesToRetrieve?: string[];
  matchingStrategy?: 'last' | 'all' | 'frequency';
}

function search(index: FakeMeiliIndex, body: SearchBody): unknown {
  const terms = [...segmenter.segment(body.q.normalize('NFKC'))]
    .filter((segment) => segment.isWordLike)
    .map((segment) => segment.segment)
    .slice(0, QUERY_WORD_LIMIT);
  const limit = body.limit ?? 20;
  const textOf = (doc: Doc) => `${String(doc.heading ?? '')}\n${String(doc.content ?? '')}\n${String(doc.fileName ?? '')}`;
  const scoreOf = (doc: Doc) => {
    const heading = String(doc.heading ?? '');
    const matched = terms.filter((term) => textOf(doc).includes(term)).length;
    const inHeading = terms.filter((term) => heading.includes(term)).length;
    return terms.length ? (matched + inHeading * 0.5) / (terms.length * 1.5) : 1;
  };
  // The `words` ranking rule: documents holding every required term first; while fewer than `limit` were found, the
  // next group of terms stops being required, in the order of the matching strategy. The last group is never dropped
  // (milli's `removal_order_for_terms_matching_strategy`), so a document without it is never returned.
  const required = new Set(terms);
  const found: Doc[] = [];
  for (const drop of [[], ...removalOrder(terms, [...index.docs.values()].map(textOf), body.matchingStrategy ?? 'last')]) {
    for (const term of drop) required.delete(term);
    const bucket = [...index.docs.values()]
      .filter((doc) => !found.includes(doc) && [...required].every((term) => textOf(doc).includes(term)))
      .filter((doc) => required.size > 0 || terms.some((term) => textOf(doc).includes(term)))
      .sort((a, b) => scoreOf(b) - scoreOf(a));
    found.push(...bucket);
    if (found.length >= limit) break;
  }
  const hits = found.slice(0, limit).map((doc) => {
    const hit: Doc = body.attributesToRetrieve
      ? Object.fromEntries(body.attributesToRetrieve.filter((key) => key in doc).map((key) => [key, doc[key]]))
      : { ...doc };
    if (body.showRankingScore) hit._rankingScore = scoreOf(doc);
    return hit;
  });
  return { hits, query: body.q, processingTimeMs: 0, limit, offset: 0, estimatedTotalHits: found.length };
}

/**
 * The groups of query terms Meilisearch stops requiring, in order, for a matching strategy (milli's query_graph.rs):
 * `last` drops terms from the end and keeps the first; `frequency` drops the terms no document holds, then the most
 * frequent, and keeps the rarest (terms of equal frequency go together); `all` drops none.
 */
function removalOrder(terms: string[], texts: string[], strategy: 'last' | 'all' | 'frequency'): string[][] {
  if (strategy === 'all' || terms.length < 2) return [];
  if (strategy === 'last') return terms.slice(1).reverse().map((term) => [term]);
  const frequency = (term: string) => texts.filter((text) => text.includes(term)).length || Number.POSITIVE_INFINITY;
  const groups = new Map<number, string[]>();
  for (const term of terms) groups.set(frequency(term), [...(groups.get(frequency(term)) ?? []), term]);
  return [...groups.entries()]
    .sort(([a], [b]) => b - a)
    .map(([, group]) => group)
    .slice(0, -1);
}

function indexNotFound(uid: string): FakeMeiliTaskError {
  return { message: `Index \`${uid}\` not found.`, code: 'index_not_found' };
}

function notFoundResponse(error: FakeMeiliTaskError): RouteResponse {
  return { status: 404, body: { ...error, type: 'invalid_request', link: `https://docs.meilisearch.com/errors#${error.code}` } };
}

function notFound(code: string, message: string): RouteResponse {
  return notFoundResponse({ code, message });
}
