/**
 * Agent subtasks for trust tests: one attempt whose tool calls each returned one search hit, as the agent records
 * them (src/agent/types.ts), without running the agent.
 */
import type { Subtask } from '../../src/agent/types.js';

/** One search hit a tool call returned: the tool's name, where the text came from, and the text. */
export interface SearchHitRow {
  tool: string;
  fileName: string;
  content: string;
}

/** A subtask whose one attempt made a call per hit; `completed` false is a subtask that ran out of tries. */
export function subtaskWithHits(hits: readonly SearchHitRow[], completed = true): Subtask {
  return {
    taskName: 't',
    toolResults: [hits.map((h) => ({ toolName: h.tool, args: '{}', results: [{ fileName: h.fileName, content: h.content }] }))],
    reflectionResults: [],
    isCompleted: completed,
    subtaskAnswer: 'a',
    challengeCount: 1,
    usedFallback: !completed,
    usage: { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}
