/**
 * The help-desk agent, after the design's HelpDeskAgent: a LangGraph main graph (create_plan → one
 * execute_subtasks per subtask through `Send` → create_answer) and a subgraph per subtask (select_tools →
 * execute_tools → create_subtask_answer → reflect_subtask, looping until the reflection passes or
 * {@link MAX_CHALLENGE_COUNT} tries are spent).
 *
 * Differences from the design, on purpose: a retry really drops the earlier tool traffic (the design's filter kept
 * it); invalid tool calls from the model are answered instead of crashing the run; the question and plan are guarded
 * (empty, too long, too many or duplicate subtasks); one reply's tool calls are bounded (count, repeats, argument
 * size, characters of hits fed back); the model's output is capped (tokens per call when configured, a planned
 * subtask's length, the subtask answers and advice passed on); a subtask answer cut off by the output limit is a
 * failed try; a failed run stops its other subtasks; every LLM call is recorded with its tokens; and customer text
 * reaches the model only inside delimited blocks of user messages (see `prompts.ts`).
 */
import { Annotation, END, Send, START, StateGraph } from './langgraph.js';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { BadRequestError, type OpenAI } from 'openai';
import { zodResponseFormat } from 'openai/helpers/zod';
import type { z } from 'zod';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { createLogger, type Logger } from '../logger.js';
import { removeControls, removeInvisible } from '../mail/invisible.js';
import type { SearchOutput } from '../search/types.js';
import { type PromptSet, renderSystemPrompt, renderUserPrompt, resolvePrompts } from './prompts.js';
import { type DirectSearch, TOOL_SOURCE_KIND, directSearchOf } from './tools.js';
import {
  type AgentResult,
  type AgentRunSpend,
  type AnswerSource,
  type LlmCallRecord,
  MAX_CHALLENGE_COUNT,
  type ReflectionResult,
  type Subtask,
  type ToolResult,
  modelCallUsage,
  planSchema,
  reflectionResultSchema,
  usageOf,
} from './types.js';

const append = <T>(a: T[], b: T[]): T[] => [...a, ...b];

const AgentStateAnnotation = Annotation.Root({
  question: Annotation<string>,
  /** Earlier exchange of the mail thread; empty when none. */
  conversation: Annotation<string>,
  plan: Annotation<string[]>,
  /** Planned subtasks beyond maxSubtasks, which were not run. */
  droppedSubtasks: Annotation<string[]>,
  currentStep: Annotation<number>,
  subtaskResults: Annotation<Subtask[]>({ reducer: append, default: () => [] }),
  llmCalls: Annotation<LlmCallRecord[]>({ reducer: append, default: () => [] }),
  lastAnswer: Annotation<string>,
  /** Why the model stopped writing the final answer, when not because it was done (`length`, `content_filter`). */
  answerFinishReason: Annotation<string | undefined>,
});

/** State of the main graph (plan → subtasks → answer). */
export type AgentState = typeof AgentStateAnnotation.State;

const AgentSubGraphStateAnnotation = Annotation.Root({
  question: Annotation<string>,
  plan: Annotation<string[]>,
  subtask: Annotation<string>,
  isCompleted: Annotation<boolean>,
  // Each node hands back the whole conversation it built, so the last write is the truth.
  messages: Annotation<ChatCompletionMessageParam[]>({ reducer: (_old, next) => next, default: () => [] }),
  challengeCount: Annotation<number>,
  toolResults: Annotation<ToolResult[][]>({ reducer: append, default: () => [] }),
  reflectionResults: Annotation<ReflectionResult[]>({ reducer: append, default: () => [] }),
  subtaskAnswer: Annotation<string>,
  /**
   * Why the model stopped writing this try's subtask answer, when not because it was done (`length`: cut off by the
   * output limit, `content_filter`). Such an answer is a failed try.
   */
  subtaskAnswerFinishReason: Annotation<string | undefined>,
  usedFallback: Annotation<boolean>,
  llmCalls: Annotation<LlmCallRecord[]>({ reducer: append, default: () => [] }),
});

/** State of one subtask's subgraph (tools → answer → reflection loop). */
export type AgentSubGraphState = typeof AgentSubGraphStateAnnotation.State;

/** Thrown by {@link HelpDeskAgent.runAgent} for an empty or whitespace-only question. */
export class EmptyQuestionError extends Error {
  constructor() {
    super('The question is empty (or only whitespace); there is nothing for the agent to answer.');
    this.name = 'EmptyQuestionError';
  }
}

// Symbol-keyed and not enumerable: the spend rides on the run's own error (so retries and `UnrecoverableError`
// decisions see that error unchanged) without showing up in every log line that serialises the error.
const SPEND = Symbol('helpdesk.agentRunSpend');

/**
 * What the failed agent run behind `err` spent before it failed: the calls the model server answered (and billed)
 * up to the failure. Follows `cause`, since the job wraps a permanent failure in `UnrecoverableError`. Undefined
 * for an error that did not come out of {@link HelpDeskAgent.runAgent} (or one thrown before its first step).
 */
export function agentRunSpendOf(err: unknown): AgentRunSpend | undefined {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const spend = (e as { [SPEND]?: AgentRunSpend })[SPEND];
    if (spend) return spend;
  }
  return undefined;
}

/**
 * `err` as an Error carrying `spend` (see {@link agentRunSpendOf}); the same object when it is one. Also for the job
 * whose own step failed after a run finished: the model billed that run's calls all the same.
 */
export function withSpend(err: unknown, spend: AgentRunSpend): unknown {
  const error = typeof err === 'object' && err !== null ? err : new Error(String(err));
  // A frozen error is rethrown as it is: its spend is lost, never the error.
  if (Object.isExtensible(error)) Object.defineProperty(error, SPEND, { value: spend, enumerable: false, configurable: true });
  return error;
}

/**
 * The key of {@link RunnableConfig.configurable} under which a run hands its nodes the list every answered LLM call
 * is also appended to. The graph's state holds the calls too, but a run that throws returns no state: this list
 * is what is left to account for the tokens of a failed run.
 */
const CALL_LOG = 'helpdeskLlmCallLog';

function callLogOf(config: RunnableConfig | undefined): LlmCallRecord[] | undefined {
  const log: unknown = config?.configurable?.[CALL_LOG];
  return Array.isArray(log) ? (log as LlmCallRecord[]) : undefined;
}

/** The answer a subtask gets when it ran out of tries (the design's wording). */
export const fallbackSubtaskAnswer = (subtask: string): string => `${subtask}の回答が見つかりませんでした。`;

/**
 * Smallest recursion limit that lets a subtask use all its tries: the subgraph takes four steps per try, plus one.
 * A lower AGENT_RECURSION_LIMIT makes a subtask that needs its last try fail with a GraphRecursionError.
 */
export const MIN_RECURSION_LIMIT = 4 * MAX_CHALLENGE_COUNT + 1;

/**
 * Tool calls of one tool-selection reply that are run. The model has two searches, and a try needs each once or twice
 * (a second wording); every call's hits ride along in the try's answer and reflection requests, so a reply with
 * hundreds of calls (a looping local model) would multiply the prompt size and the searches' CPU without bound. The
 * calls over the cap, and exact repeats of a call, are answered with a tool message saying they were not run.
 */
export const MAX_TOOL_CALLS_PER_TRY = 4;

/**
 * Characters of search hits (text and file name) fed back to the model in one try, over all its calls. Two searches
 * whose every hit is as long as a hit is shown (`MAX_HIT_CHARS` × `MAX_SEARCH_RESULTS` each) fit whole; what goes
 * over is left out, whole hits at a time, so the answer and reflection requests of a try stay bounded.
 */
export const MAX_TOOL_OUTPUT_CHARS_PER_TRY = 24_000;

/**
 * Longest argument string of a tool call that is run. Search words or a question-like sentence are far shorter
 * (a whole question is MAX_QUESTION_CHARS, 1,000 by default); a search over a megabyte of "keywords" costs about a
 * second of CPU and finds nothing better.
 */
export const MAX_TOOL_ARGS_CHARS = 4_000;

/**
 * Characters of a tool call's arguments kept in its {@link ToolResult} (stored on the ticket, shown on the review
 * page). Enough to read any sensible search; a model's runaway argument would otherwise be stored whole.
 */
export const MAX_STORED_TOOL_ARGS_CHARS = 500;

/**
 * Longest planned subtask, in characters. A subtask names one topic to research (the design's examples are a line:
 * 「二段階認証の設定方法を調べる」); each is sent in every prompt of every subtask, so five pages of "subtasks" made 17
 * calls of 2.1 M prompt characters. A plan with a longer one is treated as a plan that could not be read: the question
 * itself becomes the only subtask. Cutting the subtask would research a sentence the planner did not write, and
 * dropping it would lose a topic without a word.
 */
export const MAX_SUBTASK_CHARS = 400;

/**
 * Longest subtask answer passed on to the final writer and stored. Five of them fill the longest reply sent without a
 * person (MAX_AUTO_REPLY_CHARS, 20,000); a summary of one topic's search hits is far shorter. A longer answer is cut
 * and counts as a failed try, as an answer cut by the output limit does: its end is missing.
 */
export const MAX_SUBTASK_ANSWER_CHARS = 4_000;

/** Longest reflection advice kept (read by the retry, stored on the ticket): a hint of what to search next. */
export const MAX_ADVICE_CHARS = 1_000;

/** Options of {@link HelpDeskAgent}. */
export interface HelpDeskAgentOptions {
  /** OpenAI SDK client; it carries the timeout and the retries with backoff. */
  client: OpenAI;
  model: string;
  /** The search tools the model may call (see `createSearchTools`). */
  tools: StructuredToolInterface[];
  /** Overrides of the built-in prompts. */
  prompts?: Partial<PromptSet>;
  /** Product name filled into `{product}`. */
  productName: string;
  /** Language code of the knowledge base (KNOWLEDGE_LANGUAGE): searches are made in it. Default `ja`. */
  knowledgeLanguage?: string;
  /** Longer questions are cut to this many characters. */
  maxQuestionChars: number;
  /** At most this many planned subtasks run. */
  maxSubtasks: number;
  /** LangGraph recursion limit of one run. */
  recursionLimit: number;
  /**
   * Tokens one model call may write (LLM_MAX_OUTPUT_TOKENS): sent as `max_completion_tokens`, or `max_tokens` where the
   * server reads only that. Without it only the model's own output limit bounds a reply, and a local server's may be
   * the whole context: a looping or steered model then writes, and bills, pages that every later prompt of the run
   * carries. A reply cut by it is handled as cut (a failed try, a bad plan, a parked draft), never sent. Unset, no
   * parameter is sent: no fixed value fits every server (vLLM refuses a prompt plus the cap over `--max-model-len`,
   * OpenAI a cap over the model's output limit, so every call would fail), and the character caps
   * ({@link MAX_SUBTASK_ANSWER_CHARS}, {@link MAX_ADVICE_CHARS}) still bound what is passed on.
   */
  maxOutputTokens?: number;
  logger?: Logger;
}

/** Options of one {@link HelpDeskAgent.runAgent} call. */
export interface RunAgentOptions {
  /** The earlier exchange of the mail thread, given to the planner and the final answer as context. */
  conversation?: string;
  /** Aborts the run (LLM requests, tool calls and the graph). */
  signal?: AbortSignal;
}

/** A state object for the main graph, for running its nodes one by one. */
export function initialAgentState(question: string, conversation = ''): AgentState {
  return {
    question,
    conversation,
    plan: [],
    droppedSubtasks: [],
    currentStep: 0,
    subtaskResults: [],
    llmCalls: [],
    lastAnswer: '',
    answerFinishReason: undefined,
  };
}

/** A state object for a subtask's subgraph, for running its nodes one by one. */
export function initialSubGraphState(question: string, plan: string[], subtask: string): AgentSubGraphState {
  return {
    question,
    plan,
    subtask,
    isCompleted: false,
    messages: [],
    challengeCount: 0,
    toolResults: [],
    reflectionResults: [],
    subtaskAnswer: '',
    subtaskAnswerFinishReason: undefined,
    usedFallback: false,
    llmCalls: [],
  };
}

// Subtasks that differ only in spacing, width or case would search the same thing twice.
const subtaskKey = (s: string): string => s.normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase();

// Built once: these never change, and converting a zod schema to JSON schema on every LLM call is not free.
const PLAN_FORMAT = zodResponseFormat(planSchema, 'plan');
const REFLECTION_FORMAT = zodResponseFormat(reflectionResultSchema, 'reflection_result');

/**
 * The text inside a markdown fence that is all of `content` (what `/^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/`
 * captures), or undefined. Read in code, not by that pattern: it took cubic time on a fence and a run of newlines
 * (10 KB: minutes), which a looping model writes, and the model's output has no length cap of ours. Same result: the
 * body starts after the last newline of the whitespace after the opening fence that leaves a newline before the
 * closing one, and ends at the first newline of the whitespace before the closing fence after that start.
 */
function fencedBody(content: string): string | undefined {
  const open = /^\s*```(?:json)?/.exec(content);
  if (!open) return undefined;
  const isSpace = (at: number) => /\s/.test(content.charAt(at));
  let end = content.length;
  while (end > 0 && isSpace(end - 1)) end--;
  const close = end - 3;
  if (close < open[0].length || !content.startsWith('```', close)) return undefined;
  const afterOpen = open[0].length;
  let openRunEnd = afterOpen;
  while (openRunEnd < content.length && isSpace(openRunEnd)) openRunEnd++;
  let closeRunStart = close;
  while (closeRunStart > 0 && isSpace(closeRunStart - 1)) closeRunStart--;
  const lastNewline = content.lastIndexOf('\n', close - 1);
  if (lastNewline < closeRunStart) return undefined;
  for (let newline = content.lastIndexOf('\n', openRunEnd - 1); newline >= afterOpen; newline = content.lastIndexOf('\n', newline - 1)) {
    if (lastNewline < newline + 1) continue;
    return content.slice(newline + 1, content.indexOf('\n', Math.max(newline + 1, closeRunStart)));
  }
  return undefined;
}

/**
 * The structured output of a reply, or undefined when the model did not give one that fits `schema`: a refusal, text
 * that is not JSON, JSON cut off by the output limit, a field of the wrong type. A JSON object in a markdown fence
 * (as some local models write it despite the schema) is read. The SDK's `parse()` throws for each of these, and a
 * throw repeated the whole run with the same temperature-0 request; the callers treat undefined as a failed step.
 */
export function structuredOutput<S extends z.ZodType>(content: string | null | undefined, schema: S): z.infer<S> | undefined {
  if (!content) return undefined;
  const fenced = fencedBody(content);
  let value: unknown;
  try {
    value = JSON.parse(fenced ?? content);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

const hasToolCalls = (m: ChatCompletionMessageParam): boolean => m.role === 'assistant' && 'tool_calls' in m && m.tool_calls !== undefined;

/**
 * The help-desk agent. Each node method takes a state and returns the update it makes, so it can be run alone
 * (as in the design's step-by-step section) or inside the graph from {@link HelpDeskAgent.createGraph}.
 */
export class HelpDeskAgent {
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly tools: StructuredToolInterface[];
  private readonly toolMap: Map<string, { tool: StructuredToolInterface; direct: DirectSearch | undefined }>;
  private readonly openaiTools: ChatCompletionTool[];
  /** The system prompts with `{product}` filled in: constant per agent, so rendered once. */
  private readonly systemPrompts: { planner: string; subtask: string; createLastAnswer: string };
  /** The prompts in use (built-ins with the overrides applied). */
  readonly prompts: PromptSet;
  private readonly productName: string;
  private readonly maxQuestionChars: number;
  private readonly maxSubtasks: number;
  private readonly recursionLimit: number;
  private readonly logger: Logger;
  /**
   * Whether the subtask answer and the reflection send the tool definitions too (with `tool_choice: 'none'`). A
   * provider caches a prompt's prefix only while the tools are the same ("tools must be identical between requests",
   * OpenAI's prompt-caching guide), so all three calls of a subtask, and every ticket's, then start alike. Turned off
   * for good the first time a server calls a tool anyway: Ollama does not enforce `tool_choice`.
   */
  private toolsInAnsweringSteps = true;
  /** {@link HelpDeskAgentOptions.maxOutputTokens}; undefined sends no output cap. */
  private readonly maxOutputTokens: number | undefined;
  /**
   * The parameter that carries {@link HelpDeskAgentOptions.maxOutputTokens}. OpenAI's reasoning models refuse
   * `max_tokens` and every OpenAI model refuses both at once; vLLM reads either; Ollama and LM Studio read only
   * `max_tokens` and ignore the other. So `max_completion_tokens` first, and `max_tokens` for good once a server
   * refuses it or writes past it.
   */
  private outputCapParam: 'max_completion_tokens' | 'max_tokens' = 'max_completion_tokens';
  private graph?: ReturnType<HelpDeskAgent['createGraph']>;
  private subgraph?: ReturnType<HelpDeskAgent['createSubgraph']>;

  constructor(options: HelpDeskAgentOptions) {
    this.client = options.client;
    this.model = options.model;
    this.tools = options.tools;
    this.toolMap = new Map(options.tools.map((t) => [t.name, { tool: t, direct: directSearchOf(t) }]));
    this.openaiTools = options.tools.map((t) => convertToOpenAITool(t) as ChatCompletionTool);
    this.prompts = resolvePrompts(options.prompts ?? {});
    this.productName = options.productName;
    this.systemPrompts = {
      planner: renderSystemPrompt(this.prompts.plannerSystemPrompt, this.productName, options.knowledgeLanguage),
      subtask: renderSystemPrompt(this.prompts.subtaskSystemPrompt, this.productName, options.knowledgeLanguage),
      createLastAnswer: renderSystemPrompt(this.prompts.createLastAnswerSystemPrompt, this.productName, options.knowledgeLanguage),
    };
    this.maxQuestionChars = options.maxQuestionChars;
    this.maxSubtasks = options.maxSubtasks;
    this.recursionLimit = options.recursionLimit;
    this.maxOutputTokens = options.maxOutputTokens;
    this.logger = options.logger ?? createLogger('agent');
    if (this.recursionLimit < MIN_RECURSION_LIMIT) {
      this.logger.warn(
        { recursionLimit: this.recursionLimit, needed: MIN_RECURSION_LIMIT },
        'recursion limit too low for a subtask to use all its tries; such runs will fail',
      );
    }
  }

  /** Names of the tools the model is offered. */
  get toolNames(): string[] {
    return this.tools.map((t) => t.name);
  }

  /**
   * Answers one customer question: plans, runs the subtasks in parallel and writes the final answer.
   * Throws {@link EmptyQuestionError} for an empty question; a question longer than maxQuestionChars is cut. Any
   * other failure is rethrown as it came (same error object), carrying what the run spent until then: read it with
   * {@link agentRunSpendOf}.
   */
  async runAgent(question: string, options: RunAgentOptions = {}): Promise<AgentResult> {
    const started = performance.now();
    const normalized = question.replace(/\r\n?/g, '\n').trim();
    if (normalized === '') throw new EmptyQuestionError();

    // Cut by code points so that a surrogate pair is never split in half.
    const chars = Array.from(normalized);
    const truncated = chars.length > this.maxQuestionChars;
    const used = truncated ? chars.slice(0, this.maxQuestionChars).join('') : normalized;
    if (truncated) {
      this.logger.warn({ length: chars.length, maxQuestionChars: this.maxQuestionChars }, 'question too long; truncated');
    }

    this.graph ??= this.createGraph();
    const callLog: LlmCallRecord[] = [];
    // LangGraph rejects the run as soon as one subtask fails, but the other subtasks' subgraphs take their abort signal
    // from the one the run was started with, not from the failed step, and go on calling the model. Aborting this
    // signal when the run fails ends their in-flight requests and every later step: a failed run spends nothing more
    // than it reports, and never overlaps its own retry.
    const run = new AbortController();
    const stopRun = () => run.abort(options.signal?.reason);
    if (options.signal?.aborted) stopRun();
    else options.signal?.addEventListener('abort', stopRun, { once: true });
    let final: AgentState;
    try {
      final = await this.graph.invoke(
        { question: used, conversation: options.conversation ?? '', currentStep: 0 },
        { recursionLimit: this.recursionLimit, signal: run.signal, configurable: { [CALL_LOG]: callLog } },
      );
    } catch (err) {
      run.abort(new Error('the agent run failed', { cause: err }));
      // A copy: a call answered between the failure and the abort could still be appended to the log.
      const llmCalls = [...callLog];
      throw withSpend(err, { durationMs: Math.round(performance.now() - started), usage: usageOf(llmCalls), llmCalls });
    } finally {
      options.signal?.removeEventListener('abort', stopRun);
    }

    const subtasks = this.inPlanOrder(final.plan, final.subtaskResults);
    const result: AgentResult = {
      question: used,
      plan: { subtasks: final.plan },
      subtasks,
      answer: final.lastAnswer,
      ...(final.answerFinishReason ? { answerFinishReason: final.answerFinishReason } : {}),
      sources: sourcesOf(subtasks),
      usage: usageOf(final.llmCalls),
      llmCalls: final.llmCalls,
      truncated,
      droppedSubtasks: final.droppedSubtasks,
      durationMs: Math.round(performance.now() - started),
    };
    this.logger.info(
      {
        subtasks: subtasks.length,
        completed: subtasks.filter((s) => s.isCompleted).length,
        fallbacks: subtasks.filter((s) => s.usedFallback).length,
        droppedSubtasks: result.droppedSubtasks.length,
        truncated,
        sources: result.sources.length,
        llmCalls: result.usage.calls,
        totalTokens: result.usage.totalTokens,
        durationMs: result.durationMs,
      },
      'agent run finished',
    );
    return result;
  }

  /** Builds the main graph: create_plan → execute_subtasks (one per subtask, in parallel) → create_answer. */
  createGraph() {
    return new StateGraph(AgentStateAnnotation)
      .addNode('create_plan', (state, config) => this.createPlan(state, config))
      .addNode('execute_subtasks', (state, config) => this.executeSubgraph(state, config))
      .addNode('create_answer', (state, config) => this.createAnswer(state, config))
      .addEdge(START, 'create_plan')
      .addConditionalEdges('create_plan', (state) => this.fanOutSubtasks(state))
      .addEdge('execute_subtasks', 'create_answer')
      .addEdge('create_answer', END)
      .compile();
  }

  /** Builds the subgraph of one subtask: select_tools → execute_tools → create_subtask_answer → reflect_subtask ↺. */
  createSubgraph() {
    return new StateGraph(AgentSubGraphStateAnnotation)
      .addNode('select_tools', (state, config) => this.selectTools(state, config))
      .addNode('execute_tools', (state, config) => this.executeTools(state, config))
      .addNode('create_subtask_answer', (state, config) => this.createSubtaskAnswer(state, config))
      .addNode('reflect_subtask', (state, config) => this.reflectSubtask(state, config))
      .addEdge(START, 'select_tools')
      .addEdge('select_tools', 'execute_tools')
      .addEdge('execute_tools', 'create_subtask_answer')
      .addEdge('create_subtask_answer', 'reflect_subtask')
      .addConditionalEdges('reflect_subtask', (state) => this.nextAfterReflection(state), {
        continue: 'select_tools',
        end: END,
      })
      .compile();
  }

  /**
   * Node create_plan: asks the model for the subtasks (structured output), then removes blanks and duplicates, falls
   * back to the question itself when nothing is left, and keeps at most maxSubtasks.
   */
  async createPlan(
    state: AgentState,
    config?: RunnableConfig,
  ): Promise<{ plan: string[]; droppedSubtasks: string[]; llmCalls: LlmCallRecord[] }> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.systemPrompts.planner },
      {
        role: 'user',
        content: renderUserPrompt(this.prompts.plannerUserPrompt, this.productName, {
          question: state.question,
          conversation: state.conversation,
        }),
      },
    ];
    const [response, call] = await this.timed('create_plan', undefined, config, () =>
      this.complete(
        {
          model: this.model,
          messages,
          response_format: PLAN_FORMAT,
          temperature: 0,
          seed: 0,
        },
        config?.signal,
      ),
    );
    const planned = structuredOutput(response.choices[0]?.message.content, planSchema);
    if (!planned) this.logger.warn({ finish: response.choices[0]?.finish_reason }, 'planner gave no plan in the expected format');
    const overlong = (planned?.subtasks ?? []).filter((s) => Array.from(s.trim()).length > MAX_SUBTASK_CHARS).length;
    if (overlong > 0) {
      this.logger.warn({ overlong, maxSubtaskChars: MAX_SUBTASK_CHARS }, 'planner wrote a subtask longer than MAX_SUBTASK_CHARS; the plan is not used');
    }
    const proposed = overlong > 0 ? [] : (planned?.subtasks ?? []);

    const seen = new Set<string>();
    const unique: string[] = [];
    for (const raw of proposed) {
      const subtask = raw.trim();
      const key = subtaskKey(subtask);
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      unique.push(subtask);
    }
    if (unique.length < proposed.length) {
      this.logger.debug({ proposed: proposed.length, kept: unique.length }, 'removed blank or duplicate subtasks');
    }
    if (unique.length === 0) {
      if (overlong === 0) this.logger.warn('planner returned no subtasks; using the question as the only subtask');
      unique.push(state.question);
    }
    const plan = unique.slice(0, this.maxSubtasks);
    const droppedSubtasks = unique.slice(this.maxSubtasks);
    if (droppedSubtasks.length > 0) {
      this.logger.warn(
        { planned: unique.length, maxSubtasks: this.maxSubtasks, dropped: droppedSubtasks.length },
        'plan has more subtasks than MAX_SUBTASKS; dropping the rest',
      );
    }
    this.logger.debug({ step: 'create_plan', subtasks: plan.length, durationMs: call.durationMs }, 'plan created');
    return { plan, droppedSubtasks, llmCalls: [call] };
  }

  /**
   * Node select_tools: lets the model pick tools for the subtask. A retry continues the earlier conversation
   * without its tool traffic (tool messages and the assistant messages that asked for them), which keeps tokens down
   * and leaves no orphaned tool calls, then adds the retry prompt. A reply without tool calls is kept as text.
   */
  async selectTools(
    state: AgentSubGraphState,
    config?: RunnableConfig,
  ): Promise<{ messages: ChatCompletionMessageParam[]; llmCalls: LlmCallRecord[] }> {
    let messages: ChatCompletionMessageParam[];
    if (state.challengeCount === 0) {
      messages = [
        { role: 'system', content: this.systemPrompts.subtask },
        {
          role: 'user',
          content: renderUserPrompt(this.prompts.subtaskToolSelectionUserPrompt, this.productName, {
            question: state.question,
            plan: state.plan,
            subtask: state.subtask,
          }),
        },
      ];
    } else {
      messages = state.messages.filter((m) => m.role !== 'tool' && !hasToolCalls(m));
      messages.push({
        role: 'user',
        content: renderUserPrompt(this.prompts.subtaskRetryAnswerUserPrompt, this.productName, { subtask: state.subtask }),
      });
    }

    const [response, call] = await this.timed('select_tools', state.subtask, config, () =>
      this.complete({ model: this.model, messages, tools: this.openaiTools, temperature: 0, seed: 0 }, config?.signal),
    );
    const message = response.choices[0]?.message;
    const toolCalls = message?.tool_calls ?? [];
    if (toolCalls.length === 0) {
      this.logger.debug({ step: 'select_tools', try: state.challengeCount + 1 }, 'model answered without calling a tool');
      // The subtask answer and the reflection read this text: bounded as a subtask answer is.
      messages.push({ role: 'assistant', content: cutText(message?.content ?? '', MAX_SUBTASK_ANSWER_CHARS) });
    } else {
      this.logger.debug(
        { step: 'select_tools', try: state.challengeCount + 1, tools: toolCalls.map(toolCallName) },
        'tools selected',
      );
      messages.push({ role: 'assistant', content: message?.content ?? null, tool_calls: toolCalls });
    }
    return { messages, llmCalls: [call] };
  }

  /**
   * Node execute_tools: runs the tool calls of the last assistant message and appends one tool message per call.
   * A call of an unknown tool or with unusable arguments gets an empty result and a tool message saying so, rather
   * than failing the run. Only the first {@link MAX_TOOL_CALLS_PER_TRY} distinct calls run; exact repeats and the calls
   * over the cap get a tool message saying they were not run (the API wants one for every call id) and no result.
   * The hits fed back are cut to {@link MAX_TOOL_OUTPUT_CHARS_PER_TRY}. Without tool calls this try records no results.
   */
  async executeTools(
    state: AgentSubGraphState,
    config?: RunnableConfig,
  ): Promise<{ messages: ChatCompletionMessageParam[]; toolResults: ToolResult[][] }> {
    const messages = [...state.messages];
    const last = messages.at(-1);
    const toolCalls: ChatCompletionMessageToolCall[] =
      last?.role === 'assistant' && 'tool_calls' in last && last.tool_calls ? last.tool_calls : [];
    if (toolCalls.length === 0) {
      this.logger.debug({ step: 'execute_tools' }, 'no tool calls to run');
      return { messages, toolResults: [[]] };
    }

    // What each call gets: the index of its run, or the reason it is not run.
    const seen = new Set<string>();
    const toRun: ChatCompletionMessageToolCall[] = [];
    const disposition = toolCalls.map((tc): number | string => {
      const key = tc.type === 'function' ? `f\u0000${tc.function.name}\u0000${tc.function.arguments}` : `c\u0000${tc.custom.name}\u0000${tc.custom.input}`;
      if (seen.has(key)) return NOT_RUN_REPEATED;
      seen.add(key);
      if (toRun.length >= MAX_TOOL_CALLS_PER_TRY) return NOT_RUN_OVER_CAP;
      return toRun.push(tc) - 1;
    });
    if (toRun.length < toolCalls.length) {
      this.logger.warn(
        { step: 'execute_tools', calls: toolCalls.length, run: toRun.length, repeated: toolCalls.length - seen.size, maxToolCallsPerTry: MAX_TOOL_CALLS_PER_TRY },
        'the model asked for repeated or too many tool calls; only the first distinct ones run',
      );
    }

    const outcomes = await Promise.all(toRun.map((tc) => this.runToolCall(tc, config?.signal)));
    const omitted = fitToolOutput(outcomes);
    if (omitted > 0) {
      this.logger.warn({ step: 'execute_tools', omittedHits: omitted, maxChars: MAX_TOOL_OUTPUT_CHARS_PER_TRY }, 'tool output over the budget of a try; hits left out');
    }
    for (const [i, tc] of toolCalls.entries()) {
      const ran = disposition[i]!;
      const outcome = typeof ran === 'number' ? outcomes[ran]! : undefined;
      const content = outcome ? (outcome.message ?? omittedNotice(outcome) ?? JSON.stringify(outcome.result.results)) : (ran as string);
      messages.push({ role: 'tool', tool_call_id: tc.id, content });
    }
    const results = outcomes.map((o) => o.result);
    this.logger.debug(
      { step: 'execute_tools', calls: results.map((r) => ({ tool: r.toolName, hits: r.results.length })) },
      'tools executed',
    );
    return { messages, toolResults: [results] };
  }

  /**
   * Node create_subtask_answer: the model puts what the tools returned into words for the final writer. Records why
   * the model stopped when it was not done, for {@link HelpDeskAgent.reflectSubtask}.
   */
  async createSubtaskAnswer(
    state: AgentSubGraphState,
    config?: RunnableConfig,
  ): Promise<{
    messages: ChatCompletionMessageParam[];
    subtaskAnswer: string;
    subtaskAnswerFinishReason: string | undefined;
    llmCalls: LlmCallRecord[];
  }> {
    const messages = [...state.messages];
    const [response, llmCalls] = await this.withoutToolCalls('create_subtask_answer', state.subtask, config, {
      model: this.model,
      messages,
      temperature: 0,
      seed: 0,
    });
    const written = response.choices[0]?.message.content ?? '';
    // An answer over the cap is cut here, so the retry, the final writer and the ticket see at most the cap, and is a
    // failed try as one the output limit cut: what it left out may be what the customer asked.
    const overCap = written.length > MAX_SUBTASK_ANSWER_CHARS;
    const subtaskAnswer = cutText(written, MAX_SUBTASK_ANSWER_CHARS);
    const finish = overCap ? 'length' : response.choices[0]?.finish_reason;
    messages.push({ role: 'assistant', content: subtaskAnswer });
    this.logger.debug({ step: 'create_subtask_answer', chars: written.length, finish, overCap }, 'subtask answered');
    return { messages, subtaskAnswer, subtaskAnswerFinishReason: stoppedEarly(finish), llmCalls };
  }

  /**
   * Node reflect_subtask: the model judges its subtask answer (structured output). An answer the model was cut off in
   * (output limit, content filter) is a failed try without asking: a self-check may well pass half a sentence, and the
   * final writer would pass it on. After the last failed try the answer becomes the "not found" fallback.
   */
  async reflectSubtask(
    state: AgentSubGraphState,
    config?: RunnableConfig,
  ): Promise<{
    messages: ChatCompletionMessageParam[];
    reflectionResults: ReflectionResult[];
    challengeCount: number;
    isCompleted: boolean;
    usedFallback: boolean;
    subtaskAnswer?: string;
    llmCalls: LlmCallRecord[];
  }> {
    const messages = [...state.messages];
    messages.push({
      role: 'user',
      content: renderUserPrompt(this.prompts.subtaskReflectionUserPrompt, this.productName, { subtask: state.subtask }),
    });
    let reflection: ReflectionResult;
    const llmCalls: LlmCallRecord[] = [];
    if (state.subtaskAnswerFinishReason) {
      this.logger.debug({ step: 'reflect_subtask', finish: state.subtaskAnswerFinishReason }, 'subtask answer cut off; counted as a failed try');
      reflection = { advice: cutOffAdvice(state.subtaskAnswerFinishReason), isCompleted: false };
    } else {
      const [response, calls] = await this.withoutToolCalls('reflect_subtask', state.subtask, config, {
        model: this.model,
        messages,
        response_format: REFLECTION_FORMAT,
        temperature: 0,
        seed: 0,
      });
      llmCalls.push(...calls);
      // A refusal or a malformed result is a failed try: the loop stays bounded and the other subtasks keep theirs.
      const parsed = structuredOutput(response.choices[0]?.message.content, reflectionResultSchema);
      if (!parsed) this.logger.debug({ step: 'reflect_subtask', finish: response.choices[0]?.finish_reason }, 'reflection not in the expected format; counted as a failed try');
      reflection = parsed ? { ...parsed, advice: cutText(parsed.advice, MAX_ADVICE_CHARS) } : { advice: '', isCompleted: false };
    }
    // The same shape either way: a retry continues this conversation, and the model reads the advice from it.
    messages.push({ role: 'assistant', content: JSON.stringify(reflection) });

    const challengeCount = state.challengeCount + 1;
    const usedFallback = !reflection.isCompleted && challengeCount >= MAX_CHALLENGE_COUNT;
    this.logger.debug(
      { step: 'reflect_subtask', try: challengeCount, isCompleted: reflection.isCompleted, usedFallback },
      'subtask reflected',
    );
    return {
      messages,
      reflectionResults: [reflection],
      challengeCount,
      isCompleted: reflection.isCompleted,
      usedFallback,
      ...(usedFallback ? { subtaskAnswer: fallbackSubtaskAnswer(state.subtask) } : {}),
      llmCalls,
    };
  }

  /** Node create_answer: writes the customer-facing answer from the subtask answers. */
  async createAnswer(state: AgentState, config?: RunnableConfig): Promise<{ lastAnswer: string; answerFinishReason: string | undefined; llmCalls: LlmCallRecord[] }> {
    const subtaskResults = this.inPlanOrder(state.plan, state.subtaskResults).map((s) => ({
      subtask: s.taskName,
      answer: s.subtaskAnswer,
    }));
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: this.systemPrompts.createLastAnswer },
      {
        role: 'user',
        content: renderUserPrompt(this.prompts.createLastAnswerUserPrompt, this.productName, {
          question: state.question,
          conversation: state.conversation,
          subtaskResults,
        }),
      },
    ];
    const [response, call] = await this.timed('create_answer', undefined, config, () =>
      this.complete({ model: this.model, messages, temperature: 0, seed: 0 }, config?.signal),
    );
    // Security review 12: what a reader does not see (a zero-width space inside an account number or an address) is
    // removed here, so that the draft the checks read is the text that is stored and sent. Security review 17: so are
    // control characters (a backspace inside an account number; an escape sequence that rewrites the terminal of
    // whoever prints the reply); line breaks and tabs stay.
    const lastAnswer = removeControls(removeInvisible(response.choices[0]?.message.content ?? '').text).text;
    const finish = response.choices[0]?.finish_reason;
    this.logger.debug({ step: 'create_answer', chars: lastAnswer.length, finish, durationMs: call.durationMs }, 'final answer created');
    return { lastAnswer, answerFinishReason: stoppedEarly(finish), llmCalls: [call] };
  }

  /** Node execute_subtasks: runs the subgraph for the subtask at `currentStep` and reports it as a {@link Subtask}. */
  private async executeSubgraph(
    state: AgentState,
    config?: RunnableConfig,
  ): Promise<{ subtaskResults: Subtask[]; llmCalls: LlmCallRecord[] }> {
    this.subgraph ??= this.createSubgraph();
    const subtask = state.plan[state.currentStep] ?? '';
    // Passing the node's config nests the run: it shares the abort signal and the recursion limit.
    const result = await this.subgraph.invoke(initialSubGraphState(state.question, state.plan, subtask), config);
    const subtaskResult: Subtask = {
      taskName: result.subtask,
      toolResults: result.toolResults,
      reflectionResults: result.reflectionResults,
      isCompleted: result.isCompleted,
      subtaskAnswer: result.subtaskAnswer,
      challengeCount: result.challengeCount,
      usedFallback: result.usedFallback,
      usage: usageOf(result.llmCalls),
    };
    return { subtaskResults: [subtaskResult], llmCalls: result.llmCalls };
  }

  private fanOutSubtasks(state: AgentState): Send[] {
    return state.plan.map(
      (_, idx) =>
        new Send('execute_subtasks', {
          question: state.question,
          conversation: state.conversation,
          plan: state.plan,
          currentStep: idx,
        }),
    );
  }

  private nextAfterReflection(state: AgentSubGraphState): 'continue' | 'end' {
    return state.isCompleted || state.challengeCount >= MAX_CHALLENGE_COUNT ? 'end' : 'continue';
  }

  // Parallel subtasks finish in any order; the answer and the result follow the plan.
  private inPlanOrder(plan: string[], subtasks: Subtask[]): Subtask[] {
    const rank = (s: Subtask) => {
      const i = plan.indexOf(s.taskName);
      return i === -1 ? plan.length : i;
    };
    return [...subtasks].sort((a, b) => rank(a) - rank(b));
  }

  private async runToolCall(toolCall: ChatCompletionMessageToolCall, signal: AbortSignal | undefined): Promise<ToolCallOutcome> {
    const invalid = (toolName: string, args: string, reason: string): ToolCallOutcome => {
      this.logger.warn({ tool: clip(toolName, 100), reason }, 'invalid tool call from the model');
      return {
        result: { toolName: clip(toolName, 100), args: storedArgs(args), results: [] },
        message: `無効なツール呼び出しのため実行しませんでした（${reason}）。使えるツール: ${this.toolNames.join(', ')}`,
      };
    };
    if (toolCall.type !== 'function') {
      return invalid(toolCall.custom.name, toolCall.custom.input, 'function 形式ではない呼び出し');
    }
    const { name, arguments: args } = toolCall.function;
    const entry = this.toolMap.get(name);
    if (!entry) return invalid(name, args, `存在しないツール「${clip(name, 100)}」`);
    if (args.length > MAX_TOOL_ARGS_CHARS) return invalid(name, args, `引数が長すぎる（${MAX_TOOL_ARGS_CHARS}文字まで）`);
    let input: unknown;
    try {
      input = JSON.parse(args);
    } catch {
      return invalid(name, args, '引数が JSON として読めない');
    }
    let output: unknown;
    if (entry.direct) {
      signal?.throwIfAborted();
      const searching = entry.direct.run(input);
      if (!searching) return invalid(name, args, '引数がツールの入力形式に合わない');
      // A failing search backend fails the run, so that it can be retried.
      output = await searching;
    } else {
      try {
        output = await entry.tool.invoke(input, { signal });
      } catch (err) {
        // Only the model's mistake is answered here; a failing search backend must fail the run so it can be retried.
        if (err instanceof ToolInputParsingException) return invalid(name, args, '引数がツールの入力形式に合わない');
        throw err;
      }
    }
    const results = Array.isArray(output) ? (output as SearchOutput[]) : [];
    // `args` is at most MAX_TOOL_ARGS_CHARS here, but may still be longer than what is stored.
    return { result: { toolName: name, args: storedArgs(args), results } };
  }

  /**
   * A call of a subtask's conversation in which the model must not call a tool. It carries the tools all the same,
   * with `tool_choice: 'none'` (see {@link HelpDeskAgent.toolsInAnsweringSteps}). A reply that calls one anyway is
   * asked again without tools; both calls are recorded, since both are billed.
   */
  private async withoutToolCalls(
    step: 'create_subtask_answer' | 'reflect_subtask',
    subtask: string,
    config: RunnableConfig | undefined,
    body: ChatCompletionCreateParamsNonStreaming,
  ): Promise<[ChatCompletion, LlmCallRecord[]]> {
    const create = (params: ChatCompletionCreateParamsNonStreaming) => this.timed(step, subtask, config, () => this.complete(params, config?.signal));
    const llmCalls: LlmCallRecord[] = [];
    if (!this.toolsInAnsweringSteps || this.openaiTools.length === 0) {
      const [response, call] = await create(body);
      return [response, [call]];
    }
    let why: string;
    try {
      const [response, call] = await create({ ...body, tools: this.openaiTools, tool_choice: 'none' });
      llmCalls.push(call);
      if (!response.choices[0]?.message.tool_calls?.length) return [response, llmCalls];
      why = 'called a tool although tool_choice was none';
    } catch (err) {
      // A server may refuse the parameter (400). Whether that was the reason shows when the same call without tools
      // passes; a 400 it gets too (a prompt over the context, say) is the call's own error, and the tools stay.
      if (!(err instanceof BadRequestError)) throw err;
      why = `refused the tools with tool_choice none (${err.message})`;
    }
    const [response, call] = await create(body);
    llmCalls.push(call);
    if (this.toolsInAnsweringSteps) {
      this.toolsInAnsweringSteps = false;
      this.logger.warn(
        { step },
        `the model server ${why}; asked again without tools, and later subtask answers and reflections are sent without tool definitions (their prompts can then not share a cached prefix with the tool selection)`,
      );
    }
    return [response, llmCalls];
  }

  /**
   * One chat completion with the output cap ({@link HelpDeskAgentOptions.maxOutputTokens}), when one is configured, in
   * the parameter this server reads (see {@link HelpDeskAgent.outputCapParam}). A refusal of `max_completion_tokens` is
   * asked again with `max_tokens`, once: a 400 is not billed.
   */
  private async complete(params: ChatCompletionCreateParamsNonStreaming, signal: AbortSignal | undefined): Promise<ChatCompletion> {
    const cap = this.maxOutputTokens;
    if (cap === undefined) return this.client.chat.completions.create(params, { signal });
    const capped = (): ChatCompletionCreateParamsNonStreaming =>
      this.outputCapParam === 'max_tokens' ? { ...params, max_tokens: cap } : { ...params, max_completion_tokens: cap };
    let response: ChatCompletion;
    try {
      response = await this.client.chat.completions.create(capped(), { signal });
    } catch (err) {
      if (!(err instanceof BadRequestError) || this.outputCapParam !== 'max_completion_tokens' || !err.message.includes('max_completion_tokens')) throw err;
      this.useMaxTokens(`refused max_completion_tokens (${err.message})`);
      response = await this.client.chat.completions.create(capped(), { signal });
    }
    // A server that ignores the parameter (Ollama, LM Studio) shows it by writing past the cap.
    if (this.outputCapParam === 'max_completion_tokens' && (response.usage?.completion_tokens ?? 0) > cap) {
      this.useMaxTokens(`wrote ${response.usage?.completion_tokens} tokens, over max_completion_tokens ${cap}`);
    }
    return response;
  }

  private useMaxTokens(why: string): void {
    if (this.outputCapParam === 'max_tokens') return;
    this.outputCapParam = 'max_tokens';
    this.logger.warn({ maxOutputTokens: this.maxOutputTokens }, `the model server ${why}; later calls cap the reply with max_tokens`);
  }

  private async timed<R extends { usage?: CompletionUsage | null }>(
    step: LlmCallRecord['step'],
    subtask: string | undefined,
    config: RunnableConfig | undefined,
    run: () => Promise<R>,
  ): Promise<[R, LlmCallRecord]> {
    const started = performance.now();
    const response = await run();
    const record: LlmCallRecord = {
      step,
      ...(subtask !== undefined ? { subtask } : {}),
      durationMs: Math.round(performance.now() - started),
      ...modelCallUsage(this.model, response.usage),
    };
    callLogOf(config)?.push(record);
    return [response, record];
  }
}

/**
 * Why the model stopped writing a text when it was not done (`length`: the output limit, `content_filter`, …); undefined
 * for `stop`, and for a server that gives no reason.
 */
const stoppedEarly = (finish: string | null | undefined): string | undefined => (finish && finish !== 'stop' ? finish : undefined);

/** The advice of a try whose subtask answer was cut off: what the retry should do differently. */
const cutOffAdvice = (finish: string): string =>
  finish === 'length'
    ? '回答が出力の上限で途中で切れたため、不十分とみなしました。要点だけを短くまとめて回答し直してください。'
    : `回答が途中で打ち切られたため（finish_reason: ${finish}）、不十分とみなしました。`;

const toolCallName = (tc: ChatCompletionMessageToolCall): string => (tc.type === 'function' ? tc.function.name : tc.custom.name);

/**
 * One run tool call: its result, and the tool message when it is not the result's hits (an invalid call). `omitted`
 * counts the hits left out of `result` by {@link fitToolOutput}.
 */
interface ToolCallOutcome {
  result: ToolResult;
  message?: string;
  omitted?: number;
}

// Tool messages of calls that were not run: short, since a runaway reply may have hundreds of them.
const NOT_RUN_REPEATED = '実行しませんでした（同じ呼び出しの繰り返し。結果は最初の呼び出しへの返答にあります）。';
const NOT_RUN_OVER_CAP = `実行しませんでした（1回の応答で呼び出せるツールは${MAX_TOOL_CALLS_PER_TRY}件まで）。`;

// Only the strings are counted: the JSON around a hit is a few dozen characters, and the budget is not exact anyway.
const hitChars = (hit: SearchOutput): number =>
  (typeof hit.content === 'string' ? hit.content.length : 0) + (typeof hit.fileName === 'string' ? hit.fileName.length : 0);

/**
 * Cuts the hits of `outcomes` (in call order, whole hits, each call's best first) to {@link MAX_TOOL_OUTPUT_CHARS_PER_TRY}
 * characters in all, in place; returns how many hits were left out. The results keep only what the model was shown, so
 * no source is claimed for a hit it never saw. In the usual try this only adds up a few lengths.
 */
function fitToolOutput(outcomes: ToolCallOutcome[]): number {
  let budget = MAX_TOOL_OUTPUT_CHARS_PER_TRY;
  let omitted = 0;
  for (const outcome of outcomes) {
    const hits = outcome.result.results;
    let kept = 0;
    while (kept < hits.length && hitChars(hits[kept]!) <= budget) budget -= hitChars(hits[kept++]!);
    if (kept === hits.length) continue;
    outcome.omitted = hits.length - kept;
    omitted += outcome.omitted;
    outcome.result = { ...outcome.result, results: hits.slice(0, kept) };
    // Later calls may still fit smaller hits; this one is done.
  }
  return omitted;
}

/** The tool message of a call whose hits were all left out by {@link fitToolOutput}; undefined otherwise. */
function omittedNotice(outcome: ToolCallOutcome): string | undefined {
  if (!outcome.omitted || outcome.result.results.length > 0) return undefined;
  return `この検索は${outcome.omitted}件見つかりましたが、1回で渡せる結果の文字数の上限（${MAX_TOOL_OUTPUT_CHARS_PER_TRY}文字）を超えるため省きました。`;
}

/** `text` cut to `max` UTF-16 units, never inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max;
  return text.slice(0, end);
}

/** `text` cut to `max` UTF-16 units with an ellipsis after the cut (so at most `max + 1`), or `text` when it fits. */
function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${clip(text, max)}…`;
}

/** A tool call's arguments as stored in its {@link ToolResult}: cut to {@link MAX_STORED_TOOL_ARGS_CHARS}, saying so. */
function storedArgs(args: string): string {
  if (args.length <= MAX_STORED_TOOL_ARGS_CHARS) return args;
  const kept = clip(args, MAX_STORED_TOOL_ARGS_CHARS);
  return `${kept}… [${(args.length - kept.length).toLocaleString('en-US')} more characters]`;
}

/** Distinct sources behind the completed subtasks' tool results, in first-seen order. */
export function sourcesOf(subtasks: Subtask[]): AnswerSource[] {
  const seen = new Set<string>();
  const sources: AnswerSource[] = [];
  for (const subtask of subtasks) {
    // A subtask that ran out of tries answers "not found"; its search hits did not inform the answer.
    if (!subtask.isCompleted) continue;
    for (const attempt of subtask.toolResults) {
      for (const call of attempt) {
        const kind = TOOL_SOURCE_KIND[call.toolName];
        if (!kind) continue;
        for (const r of call.results) {
          const key = `${kind}\u0000${r.fileName}`;
          if (seen.has(key)) continue;
          seen.add(key);
          sources.push({ kind, fileName: r.fileName });
        }
      }
    }
  }
  return sources;
}
