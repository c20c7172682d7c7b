/**
 * The agent's result types, after the design's models (Plan, ReflectionResult, ToolResult, Subtask, AgentResult),
 * plus what an operator needs: LLM calls and token usage, and the sources behind the answer.
 */
import { z } from 'zod';
import type { SearchOutput } from '../search/types.js';

export type { SearchOutput };

/** Structured output of the planner. */
export const planSchema = z.object({
  subtasks: z.array(z.string()).describe('質問に回答するために調べるサブタスクの一覧（重複なし・必要最小限）'),
});
export type Plan = z.infer<typeof planSchema>;

/** Structured output of the reflection step. */
export const reflectionResultSchema = z.object({
  advice: z
    .string()
    .describe(
      '不十分な場合: 何が足りないか、次にどのツールをどんな語句で試すべきかの具体的な助言。過去の助言や他のサブタスクと重ならないこと。十分な場合は短い所見。',
    ),
  isCompleted: z.boolean().describe('ツールの結果と回答がサブタスクに正しく答えていれば true'),
});
export type ReflectionResult = z.infer<typeof reflectionResultSchema>;

/** One tool call and what it returned. `args` is the raw JSON argument string the model produced. */
export interface ToolResult {
  toolName: string;
  args: string;
  results: SearchOutput[];
}

/** Token usage of one or more LLM calls. */
export interface LlmUsage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** What one answered LLM call used: the metrics' token counters and the insights' cost are sums of these. */
export interface ModelCallUsage {
  model: string;
  promptTokens: number;
  completionTokens: number;
  /**
   * Prompt tokens the server served from its prompt cache (`usage.prompt_tokens_details.cached_tokens`), when it
   * reports them (OpenAI does; the scripted server and many local servers do not).
   */
  cachedPromptTokens?: number;
}

/** The {@link ModelCallUsage} of a response of `model` from its `usage` (absent usage counts as no tokens). */
export function modelCallUsage(
  model: string,
  usage: { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null | undefined,
): ModelCallUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens;
  return {
    model,
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    ...(typeof cached === 'number' ? { cachedPromptTokens: cached } : {}),
  };
}

/** One LLM call as recorded for the result (which step, how long, how many tokens). */
export interface LlmCallRecord extends ModelCallUsage {
  step: 'create_plan' | 'select_tools' | 'create_subtask_answer' | 'reflect_subtask' | 'create_answer';
  /** The subtask the call belonged to; absent for plan and final answer. */
  subtask?: string;
  durationMs: number;
}

/** The outcome of one subtask's loop. `toolResults[i]` holds the calls of try i. */
export interface Subtask {
  taskName: string;
  toolResults: ToolResult[][];
  reflectionResults: ReflectionResult[];
  isCompleted: boolean;
  subtaskAnswer: string;
  challengeCount: number;
  /** True when the subtask ran out of tries and its answer is the "not found" fallback. */
  usedFallback: boolean;
  usage: LlmUsage;
}

/** A source the answer drew on: a manual file or a Q&A pair (`file.csv#row`). */
export interface AnswerSource {
  kind: 'manual' | 'qa';
  fileName: string;
}

/** Everything one agent run produced. */
export interface AgentResult {
  question: string;
  plan: Plan;
  subtasks: Subtask[];
  answer: string;
  /**
   * Why the model stopped writing the answer when it was not done (`length`: the token limit cut it off,
   * `content_filter`); absent when it finished.
   */
  answerFinishReason?: string;
  /** Distinct sources of the tool results of completed subtasks, in first-seen order. */
  sources: AnswerSource[];
  usage: LlmUsage;
  llmCalls: LlmCallRecord[];
  /** Set when the question was cut to MAX_QUESTION_CHARS. */
  truncated: boolean;
  /** Set when the plan was cut to MAX_SUBTASKS. */
  droppedSubtasks: string[];
  durationMs: number;
}

/**
 * What an agent run spent: its LLM calls (with their tokens) and how long it ran. A run that fails carries it on its
 * error (`agentRunSpendOf` in agent.ts), since it has no {@link AgentResult}; so does the error of a job step after a
 * run that finished.
 */
export interface AgentRunSpend {
  durationMs: number;
  usage: LlmUsage;
  llmCalls: LlmCallRecord[];
  /**
   * True when the run finished and its result was stored on the ticket before a later step failed: it is a run that
   * produced a result, and the insights count its calls from the ticket at its outcome.
   */
  resultStored?: boolean;
}

/** The design's cap on tries per subtask. */
export const MAX_CHALLENGE_COUNT = 3;

export const emptyUsage = (): LlmUsage => ({ calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 });

/** Adds usages (pure). */
export function addUsage(...usages: LlmUsage[]): LlmUsage {
  return usages.reduce(
    (a, b) => ({
      calls: a.calls + b.calls,
      promptTokens: a.promptTokens + b.promptTokens,
      completionTokens: a.completionTokens + b.completionTokens,
      totalTokens: a.totalTokens + b.totalTokens,
    }),
    emptyUsage(),
  );
}

/** Sums recorded calls into a usage. */
export function usageOf(calls: readonly ModelCallUsage[]): LlmUsage {
  return addUsage(
    ...calls.map((c) => ({
      calls: 1,
      promptTokens: c.promptTokens,
      completionTokens: c.completionTokens,
      totalTokens: c.promptTokens + c.completionTokens,
    })),
  );
}
