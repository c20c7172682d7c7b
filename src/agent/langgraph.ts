/**
 * LangGraph as the product runs it. Every module of the product takes LangGraph from here, never from
 * `@langchain/langgraph` itself, because of what the package's main entry costs per graph step on Node 20:
 *
 * - The main entry installs an `AsyncLocalStorage` at import so that nodes may call `getConfig()` without being handed
 *   their config. On Node 20 (no async context frames) a live AsyncLocalStorage turns on promise hooks for every
 *   promise of the process: the agent worker's Redis and HTTP code pays too. The agent hands every node and subgraph
 *   its config explicitly, so it imports the `web` entry, which has the same API and installs nothing.
 * - `@langchain/core` builds a LangSmith run tree (uuid, timestamps, a dozen environment reads) in
 *   `runWithConfig` for every node, edge and channel write, about ninety per two-topic ticket, and then hands it to
 *   the context storage. With no storage installed that storage is a stub that discards it, so
 *   {@link installLeanRunContext} skips building it. Profiled, this and the promise hooks were about 60 % of a bare
 *   graph run's CPU (`npm run bench`, figure `baseline.langgraph.*`).
 *
 * When LangSmith tracing is on, loading its OpenAI wrapper installs the storage (see `src/openai.ts`) and
 * `runWithConfig` runs unchanged, so traced runs nest as before.
 */
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';

export { Annotation, END, Send, START, StateGraph } from '@langchain/langgraph/web';

/** Where `@langchain/core` and `langsmith` look for the context storage (`Symbol.for`, shared by every copy). */
const CONTEXT_STORAGE_KEY = Symbol.for('ls:tracing_async_local_storage');
const LEAN = Symbol.for('helpdesk:lean-run-context');

type RunWithConfig = typeof AsyncLocalStorageProviderSingleton.runWithConfig;

/** True while a context storage is installed (LangSmith tracing on, or something imported LangGraph's main entry). */
export function contextStorageInstalled(): boolean {
  return (globalThis as Record<symbol, unknown>)[CONTEXT_STORAGE_KEY] !== undefined;
}

/**
 * Makes `runWithConfig` call its callback directly while no context storage is installed, which is exactly what
 * the stub storage it would otherwise use does, minus the run tree built for it. Idempotent: modules of this
 * repository may be evaluated more than once per process (test runners), `@langchain/core` only once.
 */
export function installLeanRunContext(): void {
  const provider = AsyncLocalStorageProviderSingleton as unknown as { runWithConfig: RunWithConfig & { [LEAN]?: true } };
  if (provider.runWithConfig[LEAN]) return;
  const original = provider.runWithConfig;
  const lean = function (this: unknown, ...args: Parameters<RunWithConfig>) {
    if (!contextStorageInstalled()) return args[1]();
    return original.apply(this, args);
  } as RunWithConfig & { [LEAN]?: true };
  lean[LEAN] = true;
  provider.runWithConfig = lean;
}

installLeanRunContext();
