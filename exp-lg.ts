import { Annotation, END, Send, START, StateGraph } from './src/agent/langgraph.js';
import type { RunnableConfig } from '@langchain/core/runnables';
function bareAgentGraph() {
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
      const r = await subgraph.invoke({ question: s.question, subtask: s.plan[s.currentStep] ?? '', challengeCount: 0, isCompleted: false }, 'fresh' === 'fresh' ? { signal: config?.signal, recursionLimit: 50 } : config);
      return { subtaskResults: [r.subtaskAnswer], llmCalls: r.llmCalls };
    })
    .addNode('create_answer', () => ({ lastAnswer: 'answer', llmCalls: ['create_answer'] }))
    .addEdge(START, 'create_plan')
    .addConditionalEdges('create_plan', (s) => s.plan.map((_, i) => new Send('execute_subtasks', { question: s.question, plan: s.plan, currentStep: i })))
    .addEdge('execute_subtasks', 'create_answer')
    .addEdge('create_answer', END)
    .compile();
}
const graph = bareAgentGraph();
const run = () => graph.invoke({ question: 'q', currentStep: 0 }, { recursionLimit: 50 });
for (let i = 0; i < 200; i++) await run();
const c0 = process.cpuUsage();
for (let i = 0; i < 1500; i++) await run();
const c = process.cpuUsage(c0);
console.log('fresh', ((c.user + c.system) / 1000 / 1500).toFixed(2), 'ms cpu/run');
