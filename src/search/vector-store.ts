/**
 * Storage primitives shared by the embedded manual and Q&A indexes:
 *
 * - a single-file container (JSON metadata + 4-byte-aligned binary sections), so one `rename` switches everything
 *   a reader needs at once (two files could be seen half-switched by a reader in another process);
 * - {@link LiveIndexFile}: atomic replacement (temp file in the same directory, fsync, rename) and cheap
 *   cross-process reload (a `stat` per check, reload only when inode/size/mtime/ctime changed);
 * - the brute-force cosine scan over a packed Float32 matrix of normalised vectors ({@link topKByDot}), and the
 *   faster {@link VectorIndex}: an int8 copy of the rows scanned by usearch's native exact search, its best
 *   candidates re-scored exactly against the Float32 rows.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from '../logger.js';

const CONTAINER_MAGIC = 0x31584448; // "HDX1" little-endian

/** A decoded container: its metadata and its binary sections (views into the file's bytes). */
export interface Container<M> {
  meta: M;
  sections: Uint8Array[];
}

/** Packs metadata and sections. Deterministic: the same input gives the same bytes. */
export function encodeContainer(meta: unknown, sections: readonly Uint8Array[]): Uint8Array {
  const metaBytes = new TextEncoder().encode(JSON.stringify(meta));
  const head = new Uint32Array(3 + sections.length);
  head[0] = CONTAINER_MAGIC;
  head[1] = metaBytes.length;
  head[2] = sections.length;
  sections.forEach((s, i) => (head[3 + i] = s.length));
  let size = head.byteLength + align8(metaBytes.length);
  for (const s of sections) size += align8(s.length);
  const out = new Uint8Array(align8(size));
  out.set(new Uint8Array(head.buffer), 0);
  let pos = align8(head.byteLength);
  out.set(metaBytes, pos);
  pos += align8(metaBytes.length);
  for (const s of sections) {
    out.set(s, pos);
    pos += align8(s.length);
  }
  return out;
}

/** Unpacks {@link encodeContainer}'s output; throws on anything truncated or foreign. */
export function decodeContainer<M>(bytes: Uint8Array): Container<M> {
  // Sections are read as Float32/Uint32 views, which need 4-byte alignment of the underlying buffer offset.
  const src = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  const view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  if (src.byteLength < 12 || view.getUint32(0, true) !== CONTAINER_MAGIC) throw new Error('not a helpdesk index file');
  const metaLen = view.getUint32(4, true);
  const nSections = view.getUint32(8, true);
  const headLen = 12 + 4 * nSections;
  if (src.byteLength < headLen) throw new Error('truncated index file');
  const lengths: number[] = [];
  for (let i = 0; i < nSections; i++) lengths.push(view.getUint32(12 + 4 * i, true));
  let pos = align8(headLen);
  if (src.byteLength < pos + metaLen) throw new Error('truncated index file');
  const meta = JSON.parse(new TextDecoder().decode(src.subarray(pos, pos + metaLen))) as M;
  pos += align8(metaLen);
  const sections: Uint8Array[] = [];
  for (const len of lengths) {
    if (src.byteLength < pos + len) throw new Error('truncated index file');
    sections.push(src.subarray(pos, pos + len));
    pos += align8(len);
  }
  return { meta, sections };
}

/** Float32 view of a section (copies only when the bytes are not 4-byte aligned). */
export function float32View(bytes: Uint8Array): Float32Array {
  const src = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice();
  return new Float32Array(src.buffer, src.byteOffset, Math.floor(src.byteLength / 4));
}

/** Byte view of a typed array, for writing it as a section. */
export function bytesOf(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}

/** Options of {@link LiveIndexFile}. */
export interface LiveIndexFileOptions<T> {
  /** The live file; its directory is created on first write. */
  file: string;
  /** Turns the file's bytes into the in-memory index; throws on corrupt input. */
  decode: (bytes: Uint8Array) => T;
  log: Logger;
  /**
   * Minimum milliseconds between two `stat` checks for a newer file. 0 checks on every access; a `stat` costs
   * a few microseconds, well inside a search's budget, and makes another process's reindex visible at once.
   */
  checkIntervalMs?: number;
}

/**
 * One index file that other processes may replace at any time. Readers always get a complete index: the old one
 * until the new file has been renamed into place and read, then the new one.
 */
export class LiveIndexFile<T> {
  private value: T | undefined;
  /** Identity (inode, size, mtime, ctime) of the file `value` came from; `absent` when there is no file. */
  private identity: string | undefined;
  private failed: { identity: string; error: Error } | undefined;
  private lastCheck = 0;
  private inflight: Promise<void> | undefined;
  private writeChain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LiveIndexFileOptions<T>) {}

  /** The file this instance serves. */
  get file(): string {
    return this.options.file;
  }

  /**
   * The current index, or undefined when no file exists. Reloads first when the file changed since the last load.
   * A file that fails to decode keeps serving the previously loaded index (logged); with none, it throws.
   */
  async current(): Promise<T | undefined> {
    await this.refresh();
    if (this.failed && this.failed.identity === this.identity && this.value === undefined) throw this.failed.error;
    return this.value;
  }

  /** Throws when the live file exists but cannot be decoded (readiness checks). An absent file is fine. */
  async check(): Promise<void> {
    this.lastCheck = 0;
    await this.refresh();
    if (this.failed && this.failed.identity === this.identity) throw this.failed.error;
  }

  /**
   * Writes `bytes` beside the live file and renames it into place, then serves `value` (which the caller built
   * from the same data, so there is no need to read it back). Writes from one instance are serialised.
   */
  replace(bytes: Uint8Array, value: T): Promise<void> {
    const run = this.writeChain.then(() => this.writeNow(bytes, value));
    this.writeChain = run.catch(() => undefined);
    return run;
  }

  private async writeNow(bytes: Uint8Array, value: T): Promise<void> {
    const { file } = this.options;
    const dir = path.dirname(file);
    await fs.mkdir(dir, { recursive: true });
    await removeDeadWritersFiles(dir, path.basename(file));
    const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomUUID()}.tmp`);
    let ino: bigint;
    try {
      const handle = await fs.open(tmp, 'w');
      try {
        await handle.writeFile(bytes);
        // The data must be on disk before the rename makes it the live index, or a crash could leave an empty file.
        await handle.datasync();
        ino = (await handle.stat({ bigint: true })).ino;
      } finally {
        await handle.close();
      }
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw err;
    }
    await syncDir(dir);
    this.value = value;
    this.failed = undefined;
    const st = await fs.stat(file, { bigint: true }).catch(() => undefined);
    // If another writer renamed its file in since ours, leave the identity unknown so the next access loads theirs.
    this.identity = st && st.ino === ino ? identityOf(st) : undefined;
    this.lastCheck = Date.now();
  }

  /**
   * The file is not there. Before any load that is an index not built yet; after one, the file was removed (DATA_DIR
   * cleaned, a volume remounted): the loaded index keeps answering and readiness fails, since answering every search
   * with nothing would park every ticket as unanswered, which looks like a knowledge gap and not an outage.
   */
  private lost(): void {
    if (this.value !== undefined && this.identity !== 'absent') {
      const error = new Error(`the index file ${this.options.file} disappeared; serving the index loaded before (reindex to write it again)`);
      this.failed = { identity: 'absent', error };
      this.options.log.error({ file: this.options.file }, error.message);
    }
    this.identity = 'absent';
  }

  private async refresh(): Promise<void> {
    const interval = this.options.checkIntervalMs ?? 0;
    if (this.identity !== undefined && interval > 0 && Date.now() - this.lastCheck < interval) return;
    // Concurrent searches share one stat (and one reload), so a burst of queries does not read the file N times.
    this.inflight ??= this.refreshNow().finally(() => (this.inflight = undefined));
    await this.inflight;
  }

  private async refreshNow(): Promise<void> {
    this.lastCheck = Date.now();
    // A turn of the event loop first, as when the stat went through the thread pool: a caller that searches in a loop
    // (a busy worker, a search during a rebuild in the same process) lets the rest of the process go on in between.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const id = statIdentity(this.options.file);
    if (id === this.identity) return;
    if (id === 'absent') {
      this.lost();
      return;
    }
    if (this.failed?.identity === id) return;
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(this.options.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.lost();
        return;
      }
      throw err;
    }
    try {
      // Identity and bytes come from the same open file, so a rename racing this read cannot mix them up.
      const st = await handle.stat({ bigint: true });
      const loadedId = identityOf(st);
      const bytes = await readWhole(handle, Number(st.size));
      try {
        const started = performance.now();
        this.value = this.options.decode(bytes);
        this.identity = loadedId;
        this.failed = undefined;
        this.options.log.info({ file: this.options.file, bytes: bytes.byteLength, ms: Math.round(performance.now() - started) }, 'index loaded');
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        this.failed = { identity: loadedId, error };
        this.identity = loadedId;
        this.options.log.error({ file: this.options.file, err: error.message }, 'index file unreadable; serving the previous index if any');
      }
    } finally {
      await handle.close();
    }
  }
}

/**
 * Removes the temporary files (`.<name>.<pid>.<uuid>.tmp`) of writers that are no longer running: a process killed
 * mid-write leaves its partial file, and each later crash another, hundreds of MB for a large index.
 */
async function removeDeadWritersFiles(dir: string, name: string): Promise<void> {
  const prefix = `.${name}.`;
  for (const entry of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!entry.startsWith(prefix) || !entry.endsWith('.tmp')) continue;
    const pid = Number(entry.slice(prefix.length).split('.')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || isRunning(pid)) continue;
    await fs.rm(path.join(dir, entry), { force: true }).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The whole open file. Writers never change a file in place, so its size holds. */
async function readWhole(handle: fs.FileHandle, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let done = 0;
  while (done < size) {
    const { bytesRead } = await handle.read(bytes, done, size - done, done);
    if (bytesRead === 0) throw new Error(`index file ended after ${done} of ${size} bytes`);
    done += bytesRead;
  }
  return bytes;
}

/**
 * The identity of the file at `file` now, `absent` when there is none. Asked before every search and every ticket:
 * a `stat` is a system call of a few microseconds on the machine's own disk, but through the thread pool
 * (`fs.promises`) it cost 13–33 µs of CPU more each time, in waking a pool thread and the event loop again (a turn of
 * the event loop alone costs about 3 µs).
 */
function statIdentity(file: string): string {
  try {
    return identityOf(statSync(file, { bigint: true }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
}

function identityOf(st: { ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

async function syncDir(dir: string): Promise<void> {
  // Makes the rename itself durable; not every platform allows fsync on a directory, and it is only durability.
  try {
    const h = await fs.open(dir, 'r');
    try {
      await h.sync();
    } finally {
      await h.close();
    }
  } catch {
    /* best effort */
  }
}

/** One scored row of a vector scan. */
export interface VectorMatch {
  index: number;
  score: number;
}

/**
 * Brute-force top-k by dot product over the rows of `matrix` (`dims` floats each). With normalised vectors the dot
 * product is the cosine similarity. Four rows are scored per pass over the query so each query element is loaded
 * once for four multiply-adds, with four independent accumulators V8 keeps in registers; no allocation per row.
 */
export function topKByDot(matrix: Float32Array, dims: number, query: Float32Array, k: number): VectorMatch[] {
  const count = dims > 0 ? Math.floor(matrix.length / dims) : 0;
  if (k <= 0 || count === 0) return [];
  const best = new TopK(Math.min(k, count));
  let row = 0;
  for (; row + 4 <= count; row += 4) {
    const b0 = row * dims;
    const b1 = b0 + dims;
    const b2 = b1 + dims;
    const b3 = b2 + dims;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < dims; j++) {
      const x = query[j]!;
      s0 += matrix[b0 + j]! * x;
      s1 += matrix[b1 + j]! * x;
      s2 += matrix[b2 + j]! * x;
      s3 += matrix[b3 + j]! * x;
    }
    best.offer(row, s0);
    best.offer(row + 1, s1);
    best.offer(row + 2, s2);
    best.offer(row + 3, s3);
  }
  for (; row < count; row++) {
    const b = row * dims;
    let s = 0;
    for (let j = 0; j < dims; j++) s += matrix[b + j]! * query[j]!;
    best.offer(row, s);
  }
  return best.results();
}

/** The k highest scores seen, kept sorted; ties keep the earlier row. k is tens at most, so insertion is cheapest. */
class TopK {
  private readonly idx: Int32Array;
  private readonly score: Float64Array;
  private filled = 0;

  constructor(private readonly k: number) {
    this.idx = new Int32Array(k);
    this.score = new Float64Array(k);
  }

  offer(index: number, s: number): void {
    const k = this.k;
    if (this.filled === k && s <= this.score[k - 1]!) return;
    let pos = this.filled < k ? this.filled++ : k - 1;
    while (pos > 0 && this.score[pos - 1]! < s) {
      this.score[pos] = this.score[pos - 1]!;
      this.idx[pos] = this.idx[pos - 1]!;
      pos--;
    }
    this.score[pos] = s;
    this.idx[pos] = index;
  }

  results(): VectorMatch[] {
    const out: VectorMatch[] = [];
    for (let i = 0; i < this.filled; i++) out.push({ index: this.idx[i]!, score: this.score[i]! });
    return out;
  }
}

/**
 * Int8 copy of a matrix of rows, one scale per row: `row[j] ≈ codes[j] * scale`, with the row's largest magnitude
 * mapped to ±127. Per row rather than one global scale: normalised 1,536-dimension embeddings have components around
 * ±0.1, so a global 1/127 step would use a handful of the 255 levels; a per-row step uses all of them, for one float
 * per row. Rows are padded with zeros to `stride` (a multiple of 16, the width of a SIMD register: the padding adds
 * nothing to a dot product or a norm, and keeps rows aligned in the index file).
 */
export interface QuantizedRows {
  codes: Int8Array;
  scales: Float32Array;
  stride: number;
}

/** Bytes of one SIMD register: rows are padded to a multiple of it. */
const LANE_BYTES = 16;

/** Row stride of the int8 codes for `dims` dimensions. */
export function quantizedStride(dims: number): number {
  return Math.ceil(dims / LANE_BYTES) * LANE_BYTES;
}

/** Quantises every row of `matrix` (`dims` floats each) to int8 with a per-row scale. Deterministic. */
export function quantizeRows(matrix: Float32Array, dims: number): QuantizedRows {
  const rows = dims > 0 ? Math.floor(matrix.length / dims) : 0;
  const stride = quantizedStride(dims);
  const codes = new Int8Array(rows * stride);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * dims;
    let max = 0;
    for (let j = 0; j < dims; j++) max = Math.max(max, Math.abs(matrix[base + j]!));
    if (max === 0) continue;
    const inv = 127 / max;
    const out = r * stride;
    for (let j = 0; j < dims; j++) codes[out + j] = Math.round(matrix[base + j]! * inv);
    scales[r] = max / 127;
  }
  return { codes, scales, stride };
}

/**
 * usearch's exact search (SIMD kernels in a native module shipped prebuilt for Linux, macOS and Windows on x64 and
 * arm64) scores the int8 rows. Loaded lazily and optionally: where its binary cannot load (another libc, another
 * architecture) the JavaScript kernel below gives the same candidates, only slower.
 */
type ExactSearch = (dataset: Int8Array, queries: Int8Array, dimensions: number, count: number, metric: 'cos', threads: number) => { keys: BigUint64Array };
let exactSearchFn: ExactSearch | null | undefined;

function nativeExactSearch(): ExactSearch | undefined {
  if (exactSearchFn === undefined) {
    try {
      exactSearchFn = (createRequire(import.meta.url)('usearch') as { exactSearch: ExactSearch }).exactSearch;
    } catch {
      exactSearchFn = null;
    }
  }
  return exactSearchFn ?? undefined;
}

/**
 * The int16 range of the quantised query: as wide as int16 allows, narrowed so that `stride` products of an int8
 * code and a query value can never overflow an int32 sum (exact sums in both kernels).
 */
function queryRange(stride: number): number {
  return Math.max(1, Math.min(32_767, Math.floor(0x7fffffff / (127 * Math.max(stride, 1)))));
}

/** Options of {@link VectorIndex}. */
export interface VectorIndexOptions {
  /** Use usearch's native kernel when it loads (default true); false forces the JavaScript kernel (tests). */
  native?: boolean;
}

/**
 * Top-k by dot product over normalised rows, in two steps: every row's int8 copy is scored against an int16 copy of
 * the query (usearch's native exact search, or a four-rows-per-pass integer loop), the best candidates are kept, and
 * only those are re-scored with the Float32 rows. The result is {@link topKByDot}'s — same rows, same scores, same
 * order — whenever the true top k are among the candidates; quantisation error is about 1e-3 of a score, so
 * {@link candidateCount} keeps a wide margin.
 */
export class VectorIndex {
  /** Rows in the index. */
  readonly count: number;
  private readonly codes: Int8Array;
  private readonly exactSearch: ExactSearch | undefined;

  /**
   * @param vectors the normalised Float32 rows, `dims` each (exact re-scoring).
   * @param quantized their {@link quantizeRows} copy.
   */
  constructor(
    readonly vectors: Float32Array,
    readonly dims: number,
    private readonly quantized: QuantizedRows,
    options: VectorIndexOptions = {},
  ) {
    this.count = dims > 0 ? Math.floor(vectors.length / dims) : 0;
    const { codes, scales, stride } = quantized;
    if (stride !== quantizedStride(dims) || codes.length !== this.count * stride || scales.length !== this.count) {
      throw new Error(`quantised rows do not match ${this.count} rows × ${dims} dims`);
    }
    this.exactSearch = options.native === false ? undefined : nativeExactSearch();
    // usearch 2.26's binding reads a typed array from the start of its ArrayBuffer, ignoring the view's byteOffset
    // (tested): rows decoded from an index file are views into it, so they are copied once to a buffer of their own.
    this.codes = this.exactSearch && codes.byteOffset !== 0 ? codes.slice() : codes;
  }

  /** Which kernel scans the int8 rows (logs and tests). */
  get kernel(): 'usearch' | 'js' {
    return this.exactSearch ? 'usearch' : 'js';
  }

  /**
   * The `k` rows with the highest dot product with `query` (normalised, `dims` long), best first, ties to the
   * earlier row; scores are exact Float32-row dot products.
   */
  topK(query: Float32Array, k: number, candidates = candidateCount(k)): VectorMatch[] {
    if (k <= 0 || this.count === 0) return [];
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, index ${this.dims}`);
    const shortlist = this.candidates(query, Math.min(Math.max(candidates, k), this.count));
    // Re-score in row order so the exact top-k keeps topKByDot's tie rule (the earlier row first).
    shortlist.sort((a, b) => a - b);
    const best = new TopK(Math.min(k, this.count));
    const { vectors, dims } = this;
    for (const row of shortlist) {
      const base = row * dims;
      let s = 0;
      for (let j = 0; j < dims; j++) s += vectors[base + j]! * query[j]!;
      best.offer(row, s);
    }
    return best.results();
  }

  /**
   * Rows of the `n` best approximate scores, unordered. usearch ranks the int8 rows by their cosine with an int8 copy
   * of the query: a row's codes are the row scaled by one factor, so their cosine is the row's own up to rounding. The
   * JavaScript kernel computes int8 row · int16 query × row scale, the same ranking up to rounding.
   */
  private candidates(query: Float32Array, n: number): Int32Array {
    const { stride, scales } = this.quantized;
    let max = 0;
    for (let j = 0; j < query.length; j++) max = Math.max(max, Math.abs(query[j]!));
    if (max === 0) return Int32Array.from({ length: n }, (_, r) => r);
    if (this.exactSearch) {
      const q = new Int8Array(stride);
      for (let j = 0; j < query.length; j++) q[j] = Math.round((query[j]! * 127) / max);
      // One thread: the caller is a worker handling one ticket among several; a thread pool per query costs more.
      const { keys } = this.exactSearch(this.codes, q, stride, n, 'cos', 1);
      return Int32Array.from(keys, (key) => Number(key));
    }
    const heap = new CandidateHeap(n);
    const factor = queryRange(stride) / max;
    const q = new Int32Array(stride);
    for (let j = 0; j < query.length; j++) q[j] = Math.round(query[j]! * factor);
    scanRowsJs(this.codes, stride, this.count, q, (row, sum) => heap.offer(row, sum * scales[row]!));
    return heap.rows();
  }
}

/**
 * Candidates re-scored exactly for a top-k: twice k, and at least k + 64. Near-ties inside the quantisation error
 * (about 1e-3) are what the margin is for; re-scoring 114 rows for the fused search's depth of 50 costs ~0.2 ms.
 */
export function candidateCount(k: number): number {
  return Math.max(2 * k, k + 64);
}

/** The JavaScript kernel: int32 sums of int8 rows with an integer query, four rows per pass over the query. */
function scanRowsJs(codes: Int8Array, stride: number, count: number, q: Int32Array, emit: (row: number, sum: number) => void): void {
  let row = 0;
  for (; row + 4 <= count; row += 4) {
    const b0 = row * stride;
    const b1 = b0 + stride;
    const b2 = b1 + stride;
    const b3 = b2 + stride;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < stride; j++) {
      const x = q[j]!;
      s0 = (s0 + codes[b0 + j]! * x) | 0;
      s1 = (s1 + codes[b1 + j]! * x) | 0;
      s2 = (s2 + codes[b2 + j]! * x) | 0;
      s3 = (s3 + codes[b3 + j]! * x) | 0;
    }
    emit(row, s0);
    emit(row + 1, s1);
    emit(row + 2, s2);
    emit(row + 3, s3);
  }
  for (; row < count; row++) {
    const b = row * stride;
    let s = 0;
    for (let j = 0; j < stride; j++) s = (s + codes[b + j]! * q[j]!) | 0;
    emit(row, s);
  }
}

/** Bounded min-heap of (score, row): keeps the n highest scores offered; a row equal to the minimum is not let in. */
class CandidateHeap {
  private readonly row: Int32Array;
  private readonly score: Float64Array;
  private size = 0;

  constructor(private readonly n: number) {
    this.row = new Int32Array(n);
    this.score = new Float64Array(n);
  }

  offer(row: number, s: number): void {
    const { n, score } = this;
    if (this.size < n) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (score[parent]! <= s) break;
        score[i] = score[parent]!;
        this.row[i] = this.row[parent]!;
        i = parent;
      }
      score[i] = s;
      this.row[i] = row;
      return;
    }
    if (n === 0 || s <= score[0]!) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && score[right]! < score[left]! ? right : left;
      if (score[child]! >= s) break;
      score[i] = score[child]!;
      this.row[i] = this.row[child]!;
      i = child;
    }
    score[i] = s;
    this.row[i] = row;
  }

  rows(): Int32Array {
    return this.row.slice(0, this.size);
  }
}

/** Scales `v` in place to unit length (zero vectors stay zero) and returns it. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  if (sum > 0) {
    const inv = 1 / Math.sqrt(sum);
    for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  }
  return v;
}
