/** What every phase gets: the sizes of this run, where to put files, where figures go, and a progress log. */
import type { FigureSink } from './report.js';

/** Sizes of one run; `--quick` shrinks every one of them. */
export interface Sizes {
  /** Manual chunks and Q&A pairs of the search and reindex phases. */
  searchChunks: number;
  searchPairs: number;
  /** Vector size of the Q&A index in the search phase (the product default, text-embedding-3-small's). */
  qaDims: number;
  /** Timed queries per engine (after a warm-up). */
  searchQueries: number;
  /** Bare baseline repetitions. */
  baselineJobs: number;
  baselineGraphRuns: number;
  /** End-to-end runs. */
  e2e: {
    /** Mixed mails answered before the first CPU batch ("100 accumulated"). */
    accumulateFirst: number;
    /** Two-topic mails of each CPU batch. */
    cpuBatch: number;
    /** Mails per throughput run, by LLM latency and concurrency. */
    runs: Array<{ latencyMs: number; concurrency: number; mails: number }>;
    /** Tickets that must be in Redis before the second CPU batch. */
    accumulateSecond: number;
    /** Mails sent one at a time, each after the previous reply, for a lone mail's overhead. */
    loneMails: number;
  };
}

export const FULL_SIZES: Sizes = {
  searchChunks: 10_000,
  searchPairs: 10_000,
  qaDims: 1536,
  searchQueries: 200,
  baselineJobs: 2_000,
  baselineGraphRuns: 300,
  e2e: {
    accumulateFirst: 100,
    cpuBatch: 200,
    runs: [
      { latencyMs: 0, concurrency: 32, mails: 1_000 },
      { latencyMs: 500, concurrency: 32, mails: 384 },
      { latencyMs: 0, concurrency: 1, mails: 100 },
      { latencyMs: 500, concurrency: 1, mails: 20 },
      { latencyMs: 0, concurrency: 8, mails: 300 },
      { latencyMs: 500, concurrency: 8, mails: 96 },
    ],
    accumulateSecond: 2_000,
    loneMails: 20,
  },
};

export const QUICK_SIZES: Sizes = {
  searchChunks: 1_000,
  searchPairs: 1_000,
  qaDims: 1536,
  searchQueries: 50,
  baselineJobs: 100,
  baselineGraphRuns: 50,
  e2e: {
    accumulateFirst: 5,
    cpuBatch: 10,
    runs: [
      { latencyMs: 0, concurrency: 32, mails: 10 },
      { latencyMs: 500, concurrency: 32, mails: 10 },
      { latencyMs: 0, concurrency: 1, mails: 5 },
      { latencyMs: 500, concurrency: 1, mails: 2 },
      { latencyMs: 0, concurrency: 8, mails: 10 },
      { latencyMs: 500, concurrency: 8, mails: 8 },
    ],
    accumulateSecond: 50,
    loneMails: 3,
  },
};

/** Price of one model, USD per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input tokens served from the provider's prompt cache. */
  cachedInputPerMTok?: number;
}

/** Shared by all phases of a run. */
export interface BenchContext {
  quick: boolean;
  sizes: Sizes;
  /** Scratch directory of this run (removed at the end unless --keep). */
  tmp: string;
  figures: FigureSink;
  prices: Record<string, ModelPrice>;
  /** Directory for `--cpu-prof` profiles of the worker processes, when asked for. */
  cpuProfDir: string | undefined;
  /** `--cpu-only`: the end-to-end phase runs only the first two-topic CPU batch (a short loop while profiling). */
  cpuOnly: boolean;
  log(message: string): void;
  /** Values one phase computes for another (e.g. the indexes built by the reindex phase). */
  memo: Map<string, Promise<unknown>>;
}

/** Computes `make()` once per run under `key`. */
export function memo<T>(ctx: BenchContext, key: string, make: () => Promise<T>): Promise<T> {
  let p = ctx.memo.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    ctx.memo.set(key, p);
  }
  return p;
}
