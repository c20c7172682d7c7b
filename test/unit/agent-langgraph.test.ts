/**
 * LangGraph as the product runs it (src/agent/langgraph.ts): without a context storage `runWithConfig` calls its
 * callback directly, with one (LangSmith tracing) it runs unchanged; and the product loads no storage by itself.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { getConfig } from '@langchain/langgraph/web';
import type { RunnableConfig } from '@langchain/core/runnables';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Annotation, END, START, StateGraph, contextStorageInstalled, installLeanRunContext } from '../../src/agent/langgraph.js';
import { createOpenAIClient } from '../../src/openai.js';

const STORAGE_KEY = Symbol.for('ls:tracing_async_local_storage');
const globals = globalThis as Record<symbol, unknown>;

/** A graph whose node calls a subgraph with its config and reports what it saw of the config both ways. */
function nestedGraph() {
  const State = Annotation.Root({ seen: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) });
  const inner = new StateGraph(State)
    .addNode('inner', (_s, config: RunnableConfig) => ({ seen: [`handed:${String(config.configurable?.ticket)}`] }))
    .addEdge(START, 'inner')
    .addEdge('inner', END)
    .compile();
  return new StateGraph(State)
    .addNode('outer', async (_s, config: RunnableConfig) => {
      let ambient = 'none';
      try {
        ambient = String(getConfig().configurable?.ticket);
      } catch {
        // getConfig() needs a context storage; without one the node relies on the config it is handed.
      }
      const r = await inner.invoke({}, config);
      return { seen: [...r.seen, `ambient:${ambient}`] };
    })
    .addEdge(START, 'outer')
    .addEdge('outer', END)
    .compile();
}

afterEach(() => {
  delete globals[STORAGE_KEY];
});

describe('LangGraph runtime of the product', () => {
  it('installs the lean run context once, however often the module is evaluated', () => {
    const installed = AsyncLocalStorageProviderSingleton.runWithConfig;
    installLeanRunContext();
    installLeanRunContext();
    expect(AsyncLocalStorageProviderSingleton.runWithConfig).toBe(installed);
    expect(Object.getOwnPropertySymbols(installed)).toContain(Symbol.for('helpdesk:lean-run-context'));
  });

  it('without a context storage, calls the callback directly and passes the config explicitly', async () => {
    expect(contextStorageInstalled()).toBe(false);
    const r = await nestedGraph().invoke({}, { configurable: { ticket: 'T-1' } });
    expect(r.seen).toEqual(['handed:T-1', 'ambient:none']);
    // Nothing is configured or built for a storage that would discard it.
    const configure = vi.spyOn(CallbackManager, '_configureSync');
    expect(AsyncLocalStorageProviderSingleton.runWithConfig({}, () => 42)).toBe(42);
    expect(configure).not.toHaveBeenCalled();
    configure.mockRestore();
  });

  it('with a context storage (LangSmith tracing), runs unchanged: nodes see their config through it', async () => {
    globals[STORAGE_KEY] = new AsyncLocalStorage();
    expect(contextStorageInstalled()).toBe(true);
    const r = await nestedGraph().invoke({}, { configurable: { ticket: 'T-2' } });
    expect(r.seen).toEqual(['handed:T-2', 'ambient:T-2']);
  });

  it('the product installs no context storage while tracing is off', () => {
    createOpenAIClient({ OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9', LLM_TIMEOUT_MS: 1000, LLM_MAX_RETRIES: 0 });
    expect(contextStorageInstalled()).toBe(false);
  });
});
