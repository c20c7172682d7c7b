/**
 * Child process for the overhead baselines of phase 4, measured by the parent from /proc like the workers:
 * - `bullmq`: a bare BullMQ Worker with a no-op processor on its own queue (what any queue consumer costs per job);
 * - `langgraph`: bare LangGraph runs of the agent's graph shape (plan → two subtasks in parallel through `Send`, each
 *   a four-node subgraph → answer) with no-op nodes (what the graph machinery itself costs per run); with `product`
 *   LangGraph as the product runs it (src/agent/langgraph.ts), with `default` the package's main entry as is.
 *
 * Protocol over IPC: the child warms up, sends `{ type: 'ready' }`; on `{ type: 'go', runs }` (langgraph) it runs and
 * answers `{ type: 'done' }`. The bullmq child just consumes whatever the parent queues.
 */
import type { RunnableConfig } from '@langchain/core/runnables';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const kind = process.argv[2];

if (kind === 'bullmq') {
  const connection = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: null });
  const worker = new Worker(process.env.BENCH_QUEUE!, async () => undefined, {
    connection,
    prefix: process.env.BENCH_PREFIX!,
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
  });
  await worker.waitUntilReady();
  process.send?.({ type: 'ready' });
  process.on('SIGTERM', () => void worker.close().then(() => connection.quit()).finally(() => process.exit(0)));
} else if (kind === 'langgraph') {
  const flavor = process.argv[3] ?? 'product';
  const lg = flavor === 'default' ? await import('@langchain/langgraph') : await import('../../src/agent/langgraph.js');
  const graph = bareAgentGraph(lg);
  const run = () => graph.invoke({ question: 'q', currentStep: 0 }, { recursionLimit: 50 });
  for (let i = 0; i < 50; i++) await run();
  process.on('message', (message: { type: string; runs?: number }) => {
    if (message.type !== 'go') return;
    void (async () => {
      for (let i = 0; i < (message.runs ?? 0); i++) await run();
      process.send?.({ type: 'done' });
    })();
  });
  process.send?.({ type: 'ready' });
} else {
  process.stderr.write(`unknown baseline ${String(kind)} (bullmq or langgraph)\n`);
  process.exit(2);
}

/** The agent's graph shape (see src/agent/agent.ts) with nodes that only return their state updates. */
function bareAgentGraph({ Annotation, END, Send, START, StateGraph }: Pick<typeof import('@langchain/langgraph'), 'Annotation' | 'END' | 'Send' | 'START' | 'StateGraph'>) {
  const append = <T>(a: T[], b: T[]): T[] => [...a, ...b];
  const Main = Annotation.Root({
    question: Annotation<string>,
    plan: Annotation<string[]>,
    currentStep: Annotation<number>,
    subtaskResults: Annotation<string[]>({ reducer: append, default: () => [] }),
    llmCalls: Annotation<string[]>({ reducer: append, default: () => [] }),
    lastAnswer: Annotation<string>,
  });
  const Sub = Annotation.Root({
    question: Annotation<string>,
    subtask: Annotation<string>,
    isCompleted: Annotation<boolean>,
    messages: Annotation<string[]>({ reducer: (_old, next) => next, default: () => [] }),
    challengeCount: Annotation<number>,
    toolResults: Annotation<string[][]>({ reducer: append, default: () => [] }),
    llmCalls: Annotation<string[]>({ reducer: append, default: () => [] }),
    subtaskAnswer: Annotation<string>,
  });
  const subgraph = new StateGraph(Sub)
    .addNode('select_tools', (s) => ({ messages: [...s.messages, 'tools'], llmCalls: ['select_tools'] }))
    .addNode('execute_tools', (s) => ({ messages: [...s.messages, 'results'], toolResults: [['hit']] }))
    .addNode('create_subtask_answer', () => ({ subtaskAnswer: 'answer', llmCalls: ['create_subtask_answer'] }))
    .addNode('reflect_subtask', (s) => ({ isCompleted: true, challengeCount: (s.challengeCount ?? 0) + 1, llmCalls: ['reflect_subtask'] }))
    .addEdge(START, 'select_tools')
    .addEdge('select_tools', 'execute_tools')
    .addEdge('execute_tools', 'create_subtask_answer')
    .addEdge('create_subtask_answer', 'reflect_subtask')
    .addConditionalEdges('reflect_subtask', (s) => (s.isCompleted ? 'end' : 'continue'), { continue: 'select_tools', end: END })
    .compile();
  return new StateGraph(Main)
    .addNode('create_plan', () => ({ plan: ['subtask 1', 'subtask 2'], llmCalls: ['create_plan'] }))
    .addNode('execute_subtasks', async (s, config?: RunnableConfig) => {
      const r = await subgraph.invoke({ question: s.question, subtask: s.plan[s.currentStep] ?? '', challengeCount: 0, isCompleted: false }, config);
      return { subtaskResults: [r.subtaskAnswer], llmCalls: r.llmCalls };
    })
    .addNode('create_answer', () => ({ lastAnswer: 'answer', llmCalls: ['create_answer'] }))
    .addEdge(START, 'create_plan')
    .addConditionalEdges('create_plan', (s) => s.plan.map((_, i) => new Send('execute_subtasks', { question: s.question, plan: s.plan, currentStep: i })))
    .addEdge('execute_subtasks', 'create_answer')
    .addEdge('create_answer', END)
    .compile();
}
