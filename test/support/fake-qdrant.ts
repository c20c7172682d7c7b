/**
 * Just enough Qdrant for the adapter and deployment tests, played by a {@link RecordingHttpServer}: the real
 * `@qdrant/js-client-rest` client talks real HTTP to it.
 *
 * Keys as Qdrant enforces them (src/common/auth/mod.rs `AuthKeys::validate_request`, src/actix/auth.rs,
 * lib/storage/src/rbac): the `api-key` header (or `Authorization: Bearer`) must be `service.api_key` (read and write)
 * or `service.read_only_api_key` (`Access::full_ro`); a missing or unknown key is refused before any routing with 401
 * and a plain-text body. With the read-only key every read answers (collections, aliases, a collection's info,
 * query, search, count, scroll), and every write is refused by the operation's access check: 403 with Qdrant's JSON
 * error `Forbidden: Global manage access is required` (a `StorageError::Forbidden`, which the REST layer maps to 403).
 */
import type { RecordedRequest, RecordingHttpServer, RouteResponse } from './recording-http-server.js';

/** A point as stored. */
export interface FakeQdrantPoint {
  id: string | number;
  vector: number[];
  payload: Record<string, unknown>;
}

/** A collection as stored. */
export interface FakeQdrantCollection {
  config: { vectors: { size: number; distance: string } };
  metadata: Record<string, unknown>;
  points: Map<string | number, FakeQdrantPoint>;
}

/** One action of `POST /collections/aliases`. */
export interface FakeQdrantAliasAction {
  delete_alias?: { alias_name: string };
  create_alias?: { alias_name: string; collection_name: string };
}

/** A request the fake refused for its key: what a test of least privilege looks at. */
export interface FakeQdrantRefusal {
  method: string;
  path: string;
  status: number;
  /** Which key it came with: none or an unknown one, or the read-only key on a write. */
  key: 'none' | 'unknown' | 'read-only';
}

/** Options of {@link FakeQdrant}. */
export interface FakeQdrantOptions {
  /** `service.api_key`: reads and writes. */
  apiKey: string;
  /** `service.read_only_api_key`: reads only. */
  readOnlyApiKey?: string;
}

/** Qdrant's answer to a request that succeeded. */
export function qdrantOk(result: unknown): RouteResponse {
  return { body: { result, status: 'ok', time: 0.001 } };
}

/** Qdrant's JSON error: `{ status: { error }, time }`. */
export function qdrantError(status: number, error: string): RouteResponse {
  return { status, body: { status: { error }, time: 0 } };
}

function missingCollection(name: string): RouteResponse {
  return qdrantError(404, `Not found: Collection \`${name}\` doesn't exist!`);
}

/** Routes Qdrant serves without a key (its auth middleware skips them); every other route needs it. */
const KEY_FREE = new Set(['/', '/healthz', '/livez', '/readyz']);

/** Qdrant's default limit on a request body (`service.max_request_size_mb: 32`). */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;

/** The forms of UUID Qdrant parses as a point id (simple, hyphenated, braced, URN), any case. */
const UUID_POINT_ID = /^(?:urn:uuid:)?(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\{[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\})$/i;

/** What a route needs of the key: reads pass with the read-only key, writes need `service.api_key`. */
type Needs = 'read' | 'write';

/**
 * Just enough Qdrant, as the server behaves: keys (see the module comment), key-free routes, the 32 MiB body limit,
 * collections (409 when one exists, 400 when an alias has the name), collection metadata, upsert and delete with point
 * id checks (unsigned integers or UUIDs), cosine query with vector size checks (through an alias too), count, alias
 * changes applied one by one without rollback, and aliases that disappear with the collection they point to.
 */
export class FakeQdrant {
  readonly collections = new Map<string, FakeQdrantCollection>();
  readonly aliases = new Map<string, string>();
  /** Every request refused for its key, in order. */
  readonly refusals: FakeQdrantRefusal[] = [];
  readonly #apiKey: string;
  readonly #readOnlyApiKey: string | undefined;

  constructor(options: FakeQdrantOptions) {
    this.#apiKey = options.apiKey;
    // As Qdrant since it treats an empty key as none (qdrant#9199): an empty read-only key opens nothing.
    this.#readOnlyApiKey = options.readOnlyApiKey || undefined;
  }

  /** `prefix` plays a reverse proxy that serves Qdrant under a path. */
  install(server: RecordingHttpServer, prefix = ''): void {
    const route = (method: string, path: string, needs: Needs, handler: (req: RecordedRequest) => RouteResponse) =>
      server.on(method, `${prefix}${path}`, (req) => this.#authorize(req, prefix, needs) ?? tooLarge(req) ?? handler(req));
    route('GET', '/', 'read', () => ({ body: { title: 'qdrant - vector search engine', version: '1.18.2' } }));
    route('GET', '/healthz', 'read', () => ({ body: 'healthz check passed', headers: { 'content-type': 'text/plain' } }));
    route('GET', '/collections', 'read', () => qdrantOk({ collections: [...this.collections.keys()].map((name) => ({ name })) }));
    route('GET', '/aliases', 'read', () => qdrantOk({ aliases: [...this.aliases].map(([alias_name, collection_name]) => ({ alias_name, collection_name })) }));
    route('GET', '/collections/:name', 'read', (req) => {
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      return qdrantOk({
        status: 'green',
        points_count: collection.points.size,
        config: { params: { vectors: collection.config.vectors }, metadata: collection.metadata },
      });
    });
    route('PUT', '/collections/:name', 'write', (req) => {
      const name = req.params.name!;
      if (this.collections.has(name)) return qdrantError(409, `Wrong input: Collection \`${name}\` already exists!`);
      if (this.aliases.has(name)) return qdrantError(400, `Wrong input: Can't create collection with name ${name}. Alias with the same name already exists`);
      const body = req.body as { vectors: FakeQdrantCollection['config']['vectors']; metadata?: Record<string, unknown> };
      this.collections.set(name, { config: { vectors: body.vectors }, metadata: body.metadata ?? {}, points: new Map() });
      return qdrantOk(true);
    });
    route('PATCH', '/collections/:name', 'write', (req) => {
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      const { metadata } = req.body as { metadata?: Record<string, unknown> };
      if (metadata) Object.assign(collection.metadata, metadata);
      return qdrantOk(true);
    });
    route('DELETE', '/collections/:name', 'write', (req) => {
      const name = req.params.name!;
      // Deleting a collection deletes the aliases that point to it.
      for (const [alias, target] of this.aliases) if (target === name) this.aliases.delete(alias);
      return qdrantOk(this.collections.delete(name));
    });
    route('PUT', '/collections/:name/points', 'write', (req) => {
      const points = (req.body as { points: FakeQdrantPoint[] }).points;
      // The body is parsed before the collection is looked up.
      const badId = invalidPointId(points.map((point) => point.id));
      if (badId) return badId;
      // Point operations accept an alias as well as a collection name.
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      for (const point of points) {
        if (point.vector.length !== collection.config.vectors.size) return dimensionError(collection, point.vector.length);
      }
      for (const point of points) collection.points.set(point.id, point);
      return qdrantOk({ operation_id: 1, status: req.query.wait === 'true' ? 'completed' : 'acknowledged' });
    });
    route('POST', '/collections/:name/points/delete', 'write', (req) => {
      const ids = (req.body as { points: (string | number)[] }).points;
      const badId = invalidPointId(ids);
      if (badId) return badId;
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      // Ids that are not there are no error.
      for (const id of ids) collection.points.delete(id);
      return qdrantOk({ operation_id: 2, status: req.query.wait === 'true' ? 'completed' : 'acknowledged' });
    });
    route('POST', '/collections/aliases', 'write', (req) => this.applyAliasActions(req.body as { actions: FakeQdrantAliasAction[] }));
    route('POST', '/collections/:name/points/query', 'read', (req) => {
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      const { query, limit = 10, with_payload } = req.body as { query: number[]; limit?: number; with_payload?: boolean };
      if (query.length !== collection.config.vectors.size) return dimensionError(collection, query.length);
      const points = [...collection.points.values()]
        .map((point) => ({ id: point.id, version: 0, score: cosine(query, point.vector), ...(with_payload ? { payload: point.payload } : {}) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
      return qdrantOk({ points });
    });
    route('POST', '/collections/:name/points/count', 'read', (req) => {
      const collection = this.#resolve(req.params.name!);
      if (!collection) return missingCollection(req.params.name!);
      return qdrantOk({ count: collection.points.size });
    });
  }

  /**
   * `POST /collections/aliases` as Qdrant's `update_aliases` applies it: action by action, each kept at once, and no
   * rollback when a later one fails. `delete_alias` of a missing alias is no error; `create_alias` needs the
   * collection (404), refuses an alias named like a collection (409, Qdrant's AlreadyExists since v1.8) and
   * overwrites an alias that exists.
   */
  applyAliasActions({ actions }: { actions: FakeQdrantAliasAction[] }): RouteResponse {
    for (const action of actions) {
      if (action.delete_alias) {
        this.aliases.delete(action.delete_alias.alias_name);
      } else if (action.create_alias) {
        const { alias_name, collection_name } = action.create_alias;
        if (!this.collections.has(collection_name)) return missingCollection(collection_name);
        if (this.collections.has(alias_name)) return qdrantError(409, `Wrong input: Collection \`${alias_name}\` already exists!`);
        this.aliases.set(alias_name, collection_name);
      }
    }
    return qdrantOk(true);
  }

  /**
   * A missing or unknown key is refused with 401 and a plain-text body, before any routing; the read-only key passes
   * the middleware and is refused by a write operation's access check, with 403 and Qdrant's JSON error.
   */
  #authorize(req: RecordedRequest, prefix: string, needs: Needs): RouteResponse | undefined {
    if (KEY_FREE.has(req.path.slice(prefix.length) || '/')) return undefined;
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice('Bearer '.length) : undefined;
    const key = req.headers['api-key'] ?? bearer;
    if (key === this.#apiKey) return undefined;
    if (key !== undefined && key === this.#readOnlyApiKey) {
      if (needs === 'read') return undefined;
      this.refusals.push({ method: req.method, path: req.path, status: 403, key: 'read-only' });
      return qdrantError(403, 'Forbidden: Global manage access is required');
    }
    this.refusals.push({ method: req.method, path: req.path, status: 401, key: key === undefined ? 'none' : 'unknown' });
    const body = key === undefined ? 'Must provide an API key or an Authorization bearer token' : 'Invalid API key or JWT';
    return { status: 401, body, headers: { 'content-type': 'text/plain' } };
  }

  #resolve(name: string): FakeQdrantCollection | undefined {
    return this.collections.get(this.aliases.get(name) ?? name);
  }
}

/** Qdrant refuses a body over its limit before parsing it (after the key check, which runs first). */
function tooLarge(req: RecordedRequest): RouteResponse | undefined {
  const header = req.headers['content-length'];
  const length = header === undefined ? Buffer.byteLength(JSON.stringify(req.body ?? '')) : Number(header);
  if (length <= MAX_REQUEST_BYTES) return undefined;
  return qdrantError(400, `Payload error: JSON payload (${length} bytes) is larger than allowed (limit: ${MAX_REQUEST_BYTES} bytes).`);
}

/** Qdrant's answer when a point id in the body is neither an unsigned integer nor a UUID. */
function invalidPointId(ids: unknown[]): RouteResponse | undefined {
  const bad = ids.findIndex((id) => !(typeof id === 'number' ? Number.isInteger(id) && id >= 0 : typeof id === 'string' && UUID_POINT_ID.test(id)));
  if (bad < 0) return undefined;
  return qdrantError(400, `Format error in JSON body: value ${String(ids[bad])} is not a valid point ID, valid values are either an unsigned integer or a UUID`);
}

function dimensionError(collection: FakeQdrantCollection, got: number): RouteResponse {
  return qdrantError(400, `Wrong input: Vector dimension error: expected dim: ${collection.config.vectors.size}, got ${got}`);
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((value, i) => {
    dot += value * b[i]!;
    na += value * value;
    nb += b[i]! * b[i]!;
  });
  return dot / Math.sqrt(na * nb);
}
