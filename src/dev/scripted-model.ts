/**
 * A deterministic, rule-based "model" for the OpenAI test server, good enough to drive the whole help-desk agent
 * over HTTP: it recognises each agent step from the request's shape (not from prompt wording, so prompt overrides
 * keep working) and answers as a sensible model would.
 *
 * - plan: one subtask per numbered topic of the customer's question (else its first line past the greeting)
 * - tool selection: `search_xyz_manual` with keywords cut from the subtask (and/or `search_xyz_qa`)
 * - subtask answer: the contents the tools returned, summarised
 * - reflection: completed when this try's tool results were non-empty
 * - final answer: the subtask answers combined, in English when the question has no Japanese in it
 * - learned answers (format `learned_answers`): the approved reply split as the candidate rules split it
 * - personal data (format `personal_data`): nothing left to remove (the rules found it all)
 *
 * Also here: small in-memory {@link ManualSearch} / {@link QaSearch} implementations over a few Japanese chunks, the
 * knowledge the scripted model is meant to find.
 */
import { LEARNED_ANSWERS_FORMAT_NAME, ruleCandidates } from '../knowledge/learned-candidates.js';
import { PERSONAL_DATA_FORMAT_NAME } from '../knowledge/personal-data-model.js';
import type { ManualChunk, ManualSearch, QaPair, QaSearch, SearchHit } from '../search/types.js';
import { formatQaPair } from '../search/types.js';
import {
  type ChatMessage,
  type ChatRequest,
  type ChatRequestBody,
  type ScriptedResponse,
  type ScriptedToolCall,
  jsonResponse,
  textResponse,
  toolCallsResponse,
} from './openai-server.js';

/** The agent step a chat request belongs to. */
export type StepKind = 'plan' | 'select_tools' | 'subtask_answer' | 'reflection' | 'final_answer' | 'learned_answers' | 'personal_data';

/** A chat request as the scripted model understands it. */
export interface ScriptedCall {
  kind: StepKind;
  /** The subtask, for the subgraph's steps. */
  subtask?: string;
  /** 1-based try of the subtask (subgraph steps); 1 otherwise. */
  attempt: number;
  /** The customer's question as found in its block (plan and final answer). */
  question?: string;
  request: ChatRequest;
}

/** Options of {@link scriptedModel}. */
export interface ScriptedModelOptions {
  /** Delay of every reply, or per call. */
  delayMs?: number | ((call: ScriptedCall) => number);
  /** Which search tools the tool-selection step calls. Default `manual`. */
  tools?: 'manual' | 'qa' | 'both';
  /** Replaces the plan derived from the question. */
  plan?: (question: string) => string[];
  /** Keywords for `search_xyz_manual`; default: the subtask cut at particles. */
  keywords?: (subtask: string, attempt: number) => string;
  /** Replaces the tool calls of a tool-selection step. */
  toolCalls?: (call: ScriptedCall) => ScriptedToolCall[];
  /** When true for a tool-selection step, the model answers in text without calling a tool. */
  noToolCall?: (call: ScriptedCall) => boolean;
  /** When true for a reflection step, the reflection fails whatever the tools found. */
  forceIncomplete?: (call: ScriptedCall) => boolean;
  /** Replaces the reply to a call (e.g. an HTTP error); return undefined to answer normally. */
  override?: (call: ScriptedCall) => ScriptedResponse | undefined;
  /**
   * Judge results as a careful model would: only hits that contain one of the subtask's keywords count, so a question
   * the knowledge base does not cover ends with the fallback (and is parked) instead of being answered from whatever
   * the search returned. Off by default: the tests script relevance themselves. The demo and the sandbox turn it on.
   */
  judgeRelevance?: boolean;
}

/** Text of a message whether its content is a string or parts. */
export function messageText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((p) => p.text ?? '').join('');
  return '';
}

/** The content of the first `<tag>…</tag>` block in `text`, or undefined. */
export function extractBlock(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(text);
  return m?.[1];
}

const isReflectionJson = (m: ChatMessage): boolean => {
  if (m.role !== 'assistant') return false;
  try {
    const v = JSON.parse(messageText(m)) as unknown;
    return typeof v === 'object' && v !== null && 'isCompleted' in v;
  } catch {
    return false;
  }
};

/** Works out which agent step a chat request is, from its shape. */
export function classify(request: ChatRequest): ScriptedCall {
  const body: ChatRequestBody = request.body;
  const messages = body.messages ?? [];
  const firstUser = messages.find((m) => m.role === 'user');
  const firstUserText = firstUser ? messageText(firstUser) : '';
  const schemaName = body.response_format?.type === 'json_schema' ? body.response_format.json_schema?.name : undefined;
  const attempt = 1 + messages.filter(isReflectionJson).length;
  const subtask = extractBlock(firstUserText, 'subtask');
  const question = extractBlock(firstUserText, 'customer_question');
  let kind: StepKind;
  if (schemaName === 'plan') kind = 'plan';
  else if (schemaName === 'reflection_result') kind = 'reflection';
  else if (schemaName === LEARNED_ANSWERS_FORMAT_NAME) kind = 'learned_answers';
  else if (schemaName === PERSONAL_DATA_FORMAT_NAME) kind = 'personal_data';
  // The subtask answer carries the tools too, with tool_choice none (the agent keeps a subtask's prompts alike for caching).
  else if (body.tools && body.tools.length > 0 && body.tool_choice !== 'none') kind = 'select_tools';
  else if (messages.length > 2) kind = 'subtask_answer';
  else kind = 'final_answer';
  return {
    kind,
    attempt,
    request,
    ...(subtask !== undefined ? { subtask } : {}),
    ...(question !== undefined ? { question } : {}),
  };
}

// How a Japanese mail opens before it asks anything: the addressee (`XYZ サポートご担当者様`, `株式会社XYZ 御中`), a
// greeting (`いつもお世話になっております。`, `はじめまして。`) and who writes (`株式会社サンプルの山田です。`, a name
// being no phrase with a particle in it, unlike `設定画面の表示が英語です。`).
const ADDRESSEE_LINE = /(?:様|御中|各位)\s*[:：、,]?$/;
const OPENING_SENTENCE = [
  /^(?:お世話に|はじめまして|初めまして|平素は|平素より)/,
  /^いつも.*(?:お世話|ありがとう|ご利用|お引き立て)/,
  /^[^。！？!?]*の[^のがはをにでもへと、。！？!?\s]{1,12}(?:です|と申します)[。．.!！]?$/,
];

/** `line` without the opening sentences it starts with (all of it when it is an addressee's line). */
function withoutOpening(line: string): string {
  if (ADDRESSEE_LINE.test(line)) return '';
  const sentences = line.match(/[^。！？!?]+[。！？!?]*/g) ?? [];
  let start = 0;
  while (start < sentences.length && OPENING_SENTENCE.some((opening) => opening.test(sentences[start]!.trim()))) start += 1;
  return start === 0 ? line : sentences.slice(start).join('').trim();
}

/**
 * One subtask per numbered topic (`1. …`, `２．…`, also several on one line as a one-line CLI question has them),
 * each cut at its first sentence end; else the question's first line that asks something, past the addressee, the
 * greeting and who writes (a plan of `お世話になっております。` finds nothing); else its first line.
 */
export function planFromQuestion(question: string): string[] {
  const topics: string[] = [];
  const numbered = /(?:^|\s)\d+\s*[.)、]\s*(.+?)(?=\s\d+\s*[.)、]|$)/gm;
  for (const m of question.normalize('NFKC').matchAll(numbered)) {
    const topic = m[1]?.trim().split(/\s/)[0]?.trim();
    if (topic) topics.push(`${topic.replace(/について$/, '')}について調べる`);
  }
  if (topics.length > 0) return topics;
  const lines = question
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const asking = lines.map(withoutOpening).find(Boolean);
  return [asking ?? lines[0] ?? question];
}

/** Keywords of a subtask: its text cut at common particles, e.g. `二段階認証の設定について調べる` → `二段階認証 設定`. */
export function keywordsOf(subtask: string): string {
  return subtask
    .replace(/について(調べる)?|を調べる|の方法|する$/g, ' ')
    .split(/[のをにがはでとや、。\s]+/)
    .map((s) => s.trim())
    .filter((s) => Array.from(s).length >= 2)
    .join(' ');
}

/** The knowledge base's language as the system prompt states it ("Search in Japanese, …"), if it does. */
function knowledgeLanguageOf(messages: ChatMessage[]): string | undefined {
  const system = messages.find((m) => m.role === 'system');
  return system ? /Search in ([A-Za-z]+), the language of the knowledge base/.exec(messageText(system))?.[1] : undefined;
}

/** The sample domain's terms, English → Japanese: the scripted model's whole command of translation. */
const GLOSSARY: ReadonlyArray<[RegExp, string]> = [
  [/two[- ]factor|2fa|two[- ]step/i, '二段階認証'],
  [/authenticator app|authentication app/i, '認証アプリ'],
  [/backup/i, 'バックアップ'],
  [/notification|notify|alert/i, '通知'],
  [/password/i, 'パスワード'],
  [/log ?in|sign ?in/i, 'ログイン'],
  [/invoice|billing/i, '請求書'],
];

/** A subtask put into the knowledge base's language (only Japanese is known, through {@link GLOSSARY}). */
function inKnowledgeLanguage(subtask: string, language: string | undefined): string {
  if (language !== 'Japanese' || hasJapanese(subtask)) return subtask;
  const terms = GLOSSARY.filter(([english]) => english.test(subtask)).map(([, japanese]) => japanese);
  return terms.length > 0 ? terms.join(' ') : subtask;
}

/** With {@link ScriptedModelOptions.judgeRelevance}, the hits that mention one of the subtask's keywords. */
function relevantHits<T extends { content: string }>(hits: T[], subtask: string | undefined, options: ScriptedModelOptions): T[] {
  if (!options.judgeRelevance || !subtask) return hits;
  const keywords = keywordsOf(subtask).split(' ').filter(Boolean);
  return hits.filter((h) => keywords.some((k) => h.content.includes(k)));
}

/** Tool messages of the current try: those after the last user message before `end`. */
function currentToolHits(messages: ChatMessage[], end: number): { fileName: string; content: string }[] {
  let start = end - 1;
  while (start >= 0 && messages[start]?.role !== 'user') start -= 1;
  const hits: { fileName: string; content: string }[] = [];
  for (const m of messages.slice(start + 1, end)) {
    if (m.role !== 'tool') continue;
    try {
      const parsed = JSON.parse(messageText(m)) as unknown;
      if (Array.isArray(parsed)) hits.push(...(parsed as { fileName: string; content: string }[]));
    } catch {
      // An "invalid call" notice is plain text: no hits.
    }
  }
  return hits;
}

const hasJapanese = (text: string): boolean => /[\u3040-\u30ff\u3400-\u9fff]/.test(text);

/** A chat handler answering every agent step by the rules above. */
export function scriptedModel(options: ScriptedModelOptions = {}): (request: ChatRequest) => ScriptedResponse {
  return (request) => {
    const call = classify(request);
    const reply = options.override?.(call) ?? answer(call, options);
    const delay = typeof options.delayMs === 'function' ? options.delayMs(call) : options.delayMs;
    return delay ? { ...reply, delayMs: delay } : reply;
  };
}

function answer(call: ScriptedCall, options: ScriptedModelOptions): ScriptedResponse {
  const messages = call.request.body.messages;
  const subtask = call.subtask ?? '';
  switch (call.kind) {
    case 'plan': {
      const question = call.question ?? '';
      return jsonResponse({ subtasks: (options.plan ?? planFromQuestion)(question) });
    }
    case 'select_tools': {
      if (options.noToolCall?.(call)) return textResponse(`ツールを使わずに回答します: ${subtask}`);
      if (options.toolCalls) return toolCallsResponse(options.toolCalls(call));
      const calls: ScriptedToolCall[] = [];
      const which = options.tools ?? 'manual';
      // As a model following the system prompt: search in the knowledge base's language, whatever the mail's.
      const searchText = inKnowledgeLanguage(subtask, knowledgeLanguageOf(messages));
      if (which !== 'qa') {
        calls.push({ name: 'search_xyz_manual', arguments: { keywords: (options.keywords ?? ((s) => keywordsOf(s)))(searchText, call.attempt) } });
      }
      if (which !== 'manual') calls.push({ name: 'search_xyz_qa', arguments: { query: searchText } });
      return toolCallsResponse(calls);
    }
    case 'subtask_answer': {
      const hits = relevantHits(currentToolHits(messages, messages.length), subtask, options);
      if (hits.length === 0) return textResponse(`「${subtask}」について、情報が見つかりませんでした。`);
      return textResponse(`「${subtask}」の調査結果: ${hits.map((h) => h.content).join(' / ')}`);
    }
    case 'reflection': {
      // The last message is the reflection request; this try's tool messages come before the one before it.
      const hits = relevantHits(currentToolHits(messages, messages.length - 1), subtask, options);
      const completed = hits.length > 0 && !options.forceIncomplete?.(call);
      return jsonResponse({
        advice: completed ? 'サブタスクに答えられています。' : `別の語句で検索し直してください（${call.attempt}回目の助言）。`,
        isCompleted: completed,
      });
    }
    case 'learned_answers': {
      const userText = messageText(messages.find((m) => m.role === 'user') ?? { role: 'user', content: '' });
      const pairs = ruleCandidates({ question: call.question ?? '', reply: extractBlock(userText, 'sent_reply') ?? '' });
      return jsonResponse({ pairs });
    }
    case 'personal_data':
      return jsonResponse({ items: [] });
    case 'final_answer': {
      const userText = messageText(messages.find((m) => m.role === 'user') ?? { role: 'user', content: '' });
      const question = call.question ?? '';
      let results: { subtask: string; answer: string }[] = [];
      try {
        results = JSON.parse(extractBlock(userText, 'subtask_results') ?? '[]') as typeof results;
      } catch {
        results = [];
      }
      const body = results.map((r) => `■ ${r.subtask}\n${r.answer}`).join('\n\n');
      return hasJapanese(question)
        ? textResponse(`お問い合わせいただきありがとうございます。\n\n${body}\n\n以上、よろしくお願いいたします。`)
        : textResponse(`Thank you for contacting us.\n\n${body}\n\nBest regards.`);
    }
  }
}

/** The design's two-topic question (two-factor authentication with an app, backup failure notifications). */
export const TWO_TOPIC_QUESTION = `お世話になっております。

XYZシステムを利用しておりますが、次の点を教えていただけますでしょうか。

1. 二段階認証の設定について
SMS認証が使えないため、認証アプリで二段階認証を設定する手順を知りたいです。

2. バックアップ失敗時の通知について
バックアップ監視で通知を設定しているのに、バックアップ失敗時に通知が届きません。どこを確認すればよいでしょうか。

よろしくお願いいたします。`;

/** A few manual chunks in Japanese. */
export const MANUAL_CHUNKS: ManualChunk[] = [
  {
    id: 'xyz-manual.md#0',
    fileName: 'xyz-manual.md',
    heading: 'セキュリティ > 二段階認証',
    content: '二段階認証の設定: 「設定」→「セキュリティ」→「二段階認証」を開き、認証方式で「認証アプリ」を選びます。表示されたQRコードを認証アプリで読み取り、6桁のコードを入力すると設定が完了します。',
  },
  {
    id: 'xyz-manual.md#1',
    fileName: 'xyz-manual.md',
    heading: 'バックアップ > 監視',
    content: 'バックアップ失敗時の通知: 「設定」→「通知」→「バックアップ監視」で通知が有効か、通知先メールアドレスが正しいかを確認してください。迷惑メールフォルダも確認してください。',
  },
  {
    id: 'xyz-ops.md#0',
    fileName: 'xyz-ops.md',
    heading: 'アカウント > パスワード',
    content: 'パスワードの設定: パスワードは8文字以上で、英字・数字・記号を含める必要があります。',
  },
  {
    id: 'xyz-ops.md#1',
    fileName: 'xyz-ops.md',
    heading: 'リリース',
    content: '最新リリースの確認: リリースノートは管理画面の「お知らせ」に掲載されます。アップデートは「設定」→「更新」から取得します。',
  },
];

/** A few past Q&A pairs in Japanese. */
export const QA_PAIRS: QaPair[] = [
  {
    id: 'xyz-qa.csv#1',
    fileName: 'xyz-qa.csv',
    row: 1,
    question: '認証アプリを変更したい',
    answer: '二段階認証を一度無効にしてから、新しい認証アプリで設定し直してください。',
  },
  {
    id: 'xyz-qa.csv#2',
    fileName: 'xyz-qa.csv',
    row: 2,
    question: 'バックアップの通知メールが届かない',
    answer: '通知先メールアドレスと迷惑メールフォルダを確認してください。',
  },
];

/** In-memory manual search: chunks containing any of the keywords, most matching keywords first. */
export class MemoryManualSearch implements ManualSearch {
  readonly kind = 'memory';
  /** Every keyword string searched, in order. */
  readonly queries: string[] = [];
  private chunks: ManualChunk[];

  constructor(chunks: ManualChunk[] = MANUAL_CHUNKS) {
    this.chunks = [...chunks];
  }

  async search(keywords: string, k = 3): Promise<SearchHit[]> {
    this.queries.push(keywords);
    const terms = keywords.split(/\s+/).filter(Boolean);
    return this.chunks
      .map((c) => ({ c, score: terms.filter((t) => c.content.includes(t)).length }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map(({ c, score }) => ({ id: c.id, fileName: c.fileName, heading: c.heading, content: c.content, score }));
  }

  async replaceAll(chunks: ManualChunk[]): Promise<void> {
    this.chunks = [...chunks];
  }

  async count(): Promise<number> {
    return this.chunks.length;
  }

  async ping(): Promise<void> {}
}

const bigrams = (s: string): Set<string> => {
  const chars = Array.from(s.normalize('NFKC'));
  return new Set(chars.slice(0, -1).map((c, i) => c + chars[i + 1]));
};

/** In-memory Q&A search: pairs sharing at least two character bigrams with the query, most shared first. */
export class MemoryQaSearch implements QaSearch {
  readonly kind = 'memory';
  readonly queries: string[] = [];
  private pairs: QaPair[];

  constructor(pairs: QaPair[] = QA_PAIRS) {
    this.pairs = [...pairs];
  }

  async search(query: string, k = 3): Promise<SearchHit[]> {
    this.queries.push(query);
    const q = bigrams(query);
    return this.pairs
      .map((p) => {
        const text = formatQaPair(p);
        const score = [...bigrams(text)].filter((g) => q.has(g)).length;
        return { p, text, score };
      })
      .filter((x) => x.score >= 2)
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map(({ p, text, score }) => ({ id: p.id, fileName: p.id, content: text, score }));
  }

  async replaceAll(pairs: QaPair[]): Promise<void> {
    this.pairs = [...pairs];
  }

  async count(): Promise<number> {
    return this.pairs.length;
  }

  async ping(): Promise<void> {}
}

/** Both in-memory searches over the fixture knowledge. */
export function fixtureSearch(): { manual: MemoryManualSearch; qa: MemoryQaSearch } {
  return { manual: new MemoryManualSearch(), qa: new MemoryQaSearch() };
}
