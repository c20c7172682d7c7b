import { describe, expect, it } from 'vitest';
import type { Subtask } from '../../src/agent/types.js';
import { GAP_SIMILARITY_THRESHOLD, closestGroup, questionSimilarity, questionTerms, stem } from '../../src/knowledge/gap-similarity.js';
import { MAX_EXAMPLE_CHARS, answeredQuestions, exampleText, seenInPeriod, unansweredQuestions, type KnowledgeGap } from '../../src/knowledge/gaps.js';
import { formatGaps } from '../../src/cli/knowledge-gaps.js';
import { renderGapsSection } from '../../src/server/views.js';

// [case, question a, question b]: one topic, worded differently; each must reach the threshold.
const SAME_TOPIC: [string, string, string][] = [
  ['ja: request vs wish', '請求書の宛名を変更したい', '請求書の宛名を変更する方法を教えてください'],
  ['ja: customer question vs agent subtask', '請求書の宛名を変更したい', '請求書の宛名変更について調べる'],
  ['ja: full-width digit and 手順', '二段階認証を設定する方法を教えてください', '２段階認証の設定手順'],
  ['ja: subtask phrasing', '二段階認証を設定する方法を教えてください', '二段階認証の設定について調べる'],
  ['ja: katakana with and without long vowel', 'サーバーの移行について', 'サーバ移行の手順'],
  ['ja: dark mode', 'ダークモードはありますか', 'ダークモードに対応していますか'],
  ['ja: price vs fee of one edition', 'オンプレミス版の価格を知りたい', 'オンプレミス版の料金について調べる'],
  ['ja: CSV export, ASCII and katakana', 'データをCSVでエクスポートできますか', 'CSVエクスポートの方法について調べる'],
  ['ja: full-width ASCII', 'ＣＳＶエクスポートはできますか', 'CSVエクスポートについて調べる'],
  ['en: plural and word order', 'How do I change the company name on invoices?', 'Change the company name printed on an invoice'],
  ['en: verb form', 'How do I export my data as CSV?', 'Exporting data to CSV'],
  ['en: question vs statement', 'Is there a dark mode?', 'Does the app support a dark mode?'],
];

// [case, question a, question b]: different questions, some about the same product area; each must stay below.
const DIFFERENT_TOPIC: [string, string, string][] = [
  ['ja: same document, other action', '請求書の宛名を変更したい', '請求書を再発行してください'],
  ['ja: unrelated', '二段階認証を設定する方法を教えてください', 'パスワードを忘れました'],
  ['ja: export vs backup', 'データをCSVでエクスポートできますか', 'データのバックアップについて調べる'],
  ['ja: same feature word, other edition', 'オンプレミス版の価格を知りたい', 'クラウド版の価格を知りたい'],
  ['ja: only the ending in common', 'ダークモードはありますか', 'APIはありますか'],
  ['ja: only できません in common', 'ログインできません', '請求書をダウンロードできません'],
  ['en: only question words in common', 'How do I change the company name on invoices?', 'How do I reset my password?'],
  ['en: export vs backup', 'How do I export my data as CSV?', 'How do I back up my data?'],
  ['en: only "is there" in common', 'Is there a dark mode?', 'Is there an API?'],
  ['ja vs en, no shared terms', '二段階認証の設定について調べる', 'Is there a dark mode?'],
];

describe('questionSimilarity', () => {
  it.each(SAME_TOPIC)('groups %s', (_name, a, b) => {
    expect(questionSimilarity(a, b)).toBeGreaterThanOrEqual(GAP_SIMILARITY_THRESHOLD);
    // Symmetric: the order the questions arrive in does not matter.
    expect(questionSimilarity(b, a)).toBeCloseTo(questionSimilarity(a, b), 10);
  });

  it.each(DIFFERENT_TOPIC)('separates %s', (_name, a, b) => {
    expect(questionSimilarity(a, b)).toBeLessThan(GAP_SIMILARITY_THRESHOLD);
  });

  it('is 1 for the same question and 0 when nothing is left to compare', () => {
    expect(questionSimilarity('二段階認証の設定', '二段階認証の設定')).toBeCloseTo(1, 10);
    expect(questionSimilarity('', '二段階認証の設定')).toBe(0);
    expect(questionSimilarity('教えてください。', 'どうすればいいですか？')).toBe(0);
  });
});

describe('questionTerms', () => {
  it.each([
    ['hiragana separates, request words drop', '二段階認証を設定する方法を教えてください', ['二段', '段階', '階認', '認証', '設定']],
    ['katakana and kanji runs apart, long vowel folded', 'サーバー移行の手順', ['サー', 'ーバ', '移行']],
    ['NFKC: full-width letters and digits', 'ＡＰＩキー２個', ['api', 'キー', '2', '個']],
    ['English stop words drop, words stemmed', 'How do I reset my passwords?', ['reset', 'password']],
  ])('%s', (_name, question, terms) => {
    expect([...questionTerms(question).keys()]).toEqual(terms);
  });

  it.each([
    ['invoices', 'invoic'],
    ['invoice', 'invoic'],
    ['exporting', 'export'],
    ['changed', 'chang'],
    ['copies', 'copy'],
    ['access', 'access'],
    ['data', 'data'],
  ])('stems %s as %s', (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });
});

describe('closestGroup', () => {
  const groups = [
    { id: 'invoice-name', examples: ['請求書の宛名を変更したい'] },
    { id: 'dark-mode', examples: ['Is there a dark mode?', 'ダークモードはありますか'] },
  ];

  it.each([
    ['the group of the closest example', 'ダークモードに対応していますか', 'dark-mode'],
    ['an English example of a mixed group', 'Does the app support a dark mode?', 'dark-mode'],
    ['a paraphrase', '請求書の宛名変更について調べる', 'invoice-name'],
    ['no group under the threshold', 'パスワードを忘れました', undefined],
  ])('finds %s', (_name, question, id) => {
    expect(closestGroup(question, groups)?.id).toBe(id);
  });

  it('prefers the more similar of two groups above the threshold', () => {
    const two = [
      { id: 'loose', examples: ['請求書の宛名と住所を変更'] },
      { id: 'close', examples: ['請求書の宛名を変更したい'] },
    ];
    expect(closestGroup('請求書の宛名変更', two)?.id).toBe('close');
  });
});

function subtask(taskName: string, state: 'answered' | 'fallback' | 'incomplete'): Subtask {
  const usage = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  return { taskName, toolResults: [], reflectionResults: [], isCompleted: state === 'answered', subtaskAnswer: '', challengeCount: 1, usedFallback: state === 'fallback', usage };
}

describe('questions of a ticket', () => {
  it.each([
    ['all answered: the subtasks and the customer question', ['answered', 'answered'], ['A', 'B', 'the question'], []],
    ['one fallback: only the answered subtask', ['answered', 'fallback'], ['A'], ['B']],
    ['incomplete counts as unanswered', ['incomplete', 'answered'], ['B'], ['A']],
    ['nothing answered', ['fallback', 'fallback'], [], ['A', 'B']],
  ] as const)('%s', (_name, states, answered, unanswered) => {
    const agent = { subtasks: states.map((s, i) => subtask(i === 0 ? 'A' : 'B', s)) };
    expect(answeredQuestions({ question: 'the question' }, agent)).toEqual(answered);
    expect(unansweredQuestions(agent)).toEqual(unanswered);
  });
});

describe('exampleText', () => {
  it('removes personal data before a question is stored', () => {
    expect(exampleText('注文番号A-20240115-001の返品方法を教えてください。連絡先 yamada@example.jp')).toBe('注文番号[番号]の返品方法を教えてください。連絡先 [メールアドレス]');
  });

  it(`cuts a long question to ${MAX_EXAMPLE_CHARS} characters and folds white space`, () => {
    const text = exampleText(`${'請求書'.repeat(200)}\n\n  end`);
    expect(Array.from(text)).toHaveLength(MAX_EXAMPLE_CHARS + 1);
    expect(text.endsWith('…')).toBe(true);
    expect(exampleText('  a\n\n b  ')).toBe('a b');
  });
});

describe('showing gaps', () => {
  const ticket = (n: number) => String(n).repeat(64).slice(0, 64);
  const open: KnowledgeGap = {
    id: '0mwuaaaaa1a2b3c',
    count: 7,
    examples: ['<script>alert(1)</script>の設定', 'ダークモード & "テーマ"'],
    exampleTickets: [ticket(1), ticket(2)],
    firstSeen: '2026-11-02T08:15:00.000Z',
    lastSeen: '2026-11-24T10:05:00.000Z',
    tickets: [1, 2, 3, 4, 5, 6].map(ticket),
  };
  const closed: KnowledgeGap = { ...open, id: '0mwubbbbb1a2b3c', count: 1, examples: ['請求書の宛名'], exampleTickets: [ticket(8)], tickets: [ticket(8)], closedAt: '2026-11-24T11:00:00.000Z', closedBy: ticket(9), closedByQuestion: '請求書の宛名の変更' };

  it('escapes every question on the page and links the tickets', () => {
    const page = renderGapsSection({ open: [open], closed: [closed], openTotal: 1, closedTotal: 1 }).toString();
    expect(page).not.toContain('<script>');
    expect(page).toContain('<li>&lt;script&gt;alert(1)&lt;/script&gt;の設定</li>');
    expect(page).toContain('<li>ダークモード &amp; &quot;テーマ&quot;</li>');
    expect(page).toContain(`<a href="/tickets/${ticket(6)}"><code>${ticket(6).slice(0, 12)}</code></a>`);
    expect(page).toContain('(latest 6 of 7)');
    expect(page).toContain(`by <a href="/tickets/${ticket(9)}">`);
    expect(page).toContain(': 請求書の宛名の変更</div>');
  });

  it("shows the gaps' times in the deployment's time zone, the exact time kept", () => {
    const page = renderGapsSection({ open: [open], closed: [closed], openTotal: 1, closedTotal: 1 }, 'Asia/Tokyo').toString();
    expect(page).toContain('<time datetime="2026-11-02T08:15:00.000Z" title="2026-11-02T08:15:00.000Z">2026-11-02 17:15 GMT+9</time>');
    expect(page).toContain('closed <time datetime="2026-11-24T11:00:00.000Z" title="2026-11-24T11:00:00.000Z">2026-11-24 20:00 GMT+9</time> by');
    expect(page).not.toContain('(UTC)');
    expect(renderGapsSection({ open: [open], closed: [], openTotal: 1, closedTotal: 0 }).toString()).toContain('>2026-11-02 08:15 UTC</time>');
  });

  it('says so when there is nothing to write', () => {
    expect(renderGapsSection({ open: [], closed: [], openTotal: 0, closedTotal: 0 }).toString()).toContain('No open gaps');
    expect(formatGaps({ open: [], closed: [], openTotal: 0, closedTotal: 0 })).toBe('No open knowledge gaps: every recent question was answered.');
  });

  it('prints a gap for the terminal: count, dates, examples, short ticket ids', () => {
    expect(formatGaps({ open: [open], closed: [closed], openTotal: 1, closedTotal: 1 }, { all: true, timeZone: 'UTC' }).split('\n')).toEqual([
      '1 open knowledge gap, largest first:',
      '',
      '● 7 tickets · first 2026-11-02 08:15 UTC · last 2026-11-24 10:05 UTC · gap 0mwuaaaaa1a2b3c',
      '  「<script>alert(1)</script>の設定」',
      '  「ダークモード & "テーマ"」',
      `  tickets: ${[1, 2, 3, 4, 5].map((n) => ticket(n).slice(0, 12)).join(', ')}, … (7 in all)`,
      '',
      '1 closed knowledge gap, most recently closed first:',
      '',
      '● 1 ticket · first 2026-11-02 08:15 UTC · last 2026-11-24 10:05 UTC · gap 0mwubbbbb1a2b3c',
      '  「請求書の宛名」',
      `  tickets: ${ticket(8).slice(0, 12)}`,
      `  closed 2026-11-24 11:00 UTC by ticket ${ticket(9).slice(0, 12)}: 「請求書の宛名の変更」`,
    ]);
  });

  it("shows a gap's times in the desk's zone, named, as review list does", () => {
    const lines = formatGaps({ open: [open], closed: [closed], openTotal: 1, closedTotal: 1 }, { all: true, timeZone: 'Asia/Tokyo' }).split('\n');
    expect(lines).toContain('● 7 tickets · first 2026-11-02 17:15 GMT+9 · last 2026-11-24 19:05 GMT+9 · gap 0mwuaaaaa1a2b3c');
    expect(lines).toContain(`  closed 2026-11-24 20:00 GMT+9 by ticket ${ticket(9).slice(0, 12)}: 「請求書の宛名の変更」`);
  });
});

describe('seenInPeriod', () => {
  // [zone, last seen, period from, period to, in it]: the insights' period is calendar days in the desk's zone.
  it.each([
    ['UTC', '2026-11-01T15:30:00.000Z', '2026-11-02', '2026-11-02', false],
    ['UTC', '2026-11-02T15:00:00.000Z', '2026-11-02', '2026-11-02', true],
    ['Asia/Tokyo', '2026-11-01T15:30:00.000Z', '2026-11-02', '2026-11-02', true],
    ['Asia/Tokyo', '2026-11-02T15:00:00.000Z', '2026-11-02', '2026-11-02', false],
    ['Asia/Tokyo', '2026-11-02T14:59:59.999Z', '2026-10-27', '2026-11-02', true],
    // The 25-hour day New York falls back on: its last hour is still 1 November.
    ['America/New_York', '2026-11-02T04:30:00.000Z', '2026-11-01', '2026-11-01', true],
    ['America/New_York', '2026-11-01T03:30:00.000Z', '2026-11-01', '2026-11-01', false],
    ['Asia/Kolkata', '2026-11-01T18:30:00.000Z', '2026-10-26', '2026-11-01', false],
    ['UTC', 'not a date', '2026-10-26', '2026-11-01', false],
  ] as const)('in %s, a gap last seen %s is in %s – %s: %s', (zone, lastSeen, from, to, inPeriod) => {
    expect(seenInPeriod({ lastSeen }, { from, to }, zone)).toBe(inPeriod);
  });
});
