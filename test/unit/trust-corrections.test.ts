/**
 * Reviewers' corrections in the trust records (learning audit of session 49): the values a correction is matched with
 * ({@link factValues}), a corrected source judged untrusted whatever its reviews, how `knowledge trust` shows it and
 * what `--drop-review` prints; and the Q&A tool marking a learned pair's hit as a reviewer-approved answer without
 * changing the text the trust records hash.
 */
import { describe, expect, it } from 'vitest';
import { LEARNED_HIT_NOTE, QA_TOOL_NAME, createSearchTools, directSearchOf } from '../../src/agent/tools.js';
import type { AgentResult } from '../../src/agent/types.js';
import { formatDroppedReview, formatTrust } from '../../src/cli/knowledge-trust.js';
import type { ManualSearch, QaSearch, SearchHit } from '../../src/search/types.js';
import { changedFacts } from '../../src/tickets/outcome.js';
import { citedSources, describeStanding, factShape, factValues, judgeTrust, sourceKey, type Review, type SourceCorrection, type TrustSettings } from '../../src/tickets/trust.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 3, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };

describe('factValues', () => {
  it.each([
    ['ログは30日間保存されます。', ['30日']],
    ['ログは３０日間保存されます。', ['30日']],
    ['保存期間は130日です', ['130日']],
    ['30分後に再試行', ['30分']],
    ['Logs are kept for 30 days.', ['30days']],
    ['料金は1,000円です', ['1000円']],
    ['詳細は https://example.com/help/logs. をご覧ください', ['https://example.com/help/logs']],
    ['support@example.com までご連絡ください', ['support@example.com']],
    ['エラー E-4290 が出た場合', ['E-4290']],
    ['エラー E-4290 発生時', ['E-4290']],
    ['契約終了日から 30 日間保持したのち', ['30日']],
    ['30 が上限です', ['30']],
    ['手順どおりに設定してください', []],
  ])('%s → %j', (text, values) => {
    expect([...factValues(text)]).toEqual(values);
  });
});

describe('numbers with and without thousands separators (bug review B2, HIGH 1c)', () => {
  it('are the same value to factValues and no changed fact to changedFacts', () => {
    expect([...factValues('料金は1,000円、上限は1,000,000件です')]).toEqual(['1000円', '1000000件']);
    expect(changedFacts('月額1,000円（税込）です。', '月額1000円（税込）です。')).toEqual([]);
    expect(changedFacts('月額1,000円です。', '月額1,500円です。')).toEqual(['number']);
  });
});

describe('factShape', () => {
  it.each([
    ['30日', '#日'],
    ['1,000円', '#円'],
    ['2.5GB', '#GB'],
    ['E-4290', 'E-#'],
    ['https://example.com/a', 'url'],
    ['a@example.com', 'email'],
  ])('%s → %s', (value, shape) => {
    expect(factShape(value)).toBe(shape);
  });
});

const asIs = (n: number): Review => ({ kind: 'approved_as_is', editRatio: 0, ticketId: `t${n}`, sender: `s${n}` });
const held: SourceCorrection = { ticketId: 'tc', at: '2026-01-01T00:00:00.000Z', held: true, values: ['30日'], label: 'faq.csv#51 › 保存期間' };

describe('a corrected source', () => {
  it('is not trusted, however many approvals as is follow, while the correction held a value of its text', () => {
    const reviews = Array.from({ length: 19 }, (_, i) => asIs(i));
    expect(judgeTrust('qa:faq.csv#51#aaaaaaaaaaaa', reviews, SETTINGS).trusted).toBe(true);
    const record = judgeTrust('qa:faq.csv#51#aaaaaaaaaaaa', reviews, SETTINGS, [held]);
    expect(record).toMatchObject({ trusted: false, missing: 'a correction on ticket tc not fixed in its text (30日)', corrections: [held] });
    expect(describeStanding({ record, toGo: 0 })).toBe(
      'not trusted: a correction on ticket tc not fixed in its text (30日) — fix the source, or withdraw that review (knowledge trust --drop-review)',
    );
    // One no cited source said blocks nothing: it is there to be looked at.
    expect(judgeTrust('x', reviews, SETTINGS, [{ ...held, held: false, values: [] }]).trusted).toBe(true);
  });

  it('is listed under the trust table with its ticket', () => {
    const record = judgeTrust('qa:faq.csv#51#aaaaaaaaaaaa', [asIs(1)], SETTINGS, [held]);
    const text = formatTrust([record], SETTINGS);
    expect(text).toContain('Corrected by reviewers (withdraw a mistaken one with --drop-review <ticket id>):');
    expect(text).toContain('  faq.csv#51 › 保存期間 (qa:faq.csv#51#aaaaaaaaaaaa): corrected on ticket tc at 2026-01-01T00:00:00.000Z; its text says 30日: fix it and reindex');
    expect(formatTrust([judgeTrust('m', [asIs(1)], SETTINGS)], SETTINGS)).not.toContain('Corrected');
  });

  it('--drop-review prints each source changed, before and after', () => {
    const before = judgeTrust('m', [asIs(1), asIs(2), asIs(3)], SETTINGS);
    const after = judgeTrust('m', [asIs(1), asIs(2)], SETTINGS);
    expect(formatDroppedReview('t3', [{ sourceId: 'm', reviews: 1, corrections: 0, before, after }])).toBe("Withdrew ticket t3's review from 1 source:\n  m: 1 review removed; trusted 3/3 → not yet 2/2");
    expect(formatDroppedReview('t9', [])).toBe('No source holds a review or correction of ticket t9; nothing changed.');
  });
});

describe('the Q&A tool’s learned hits', () => {
  const hit = (fileName: string, content: string): SearchHit => ({ id: fileName, fileName, content, score: 1 });
  const qa: QaSearch = {
    kind: 'fake',
    search: async () => [hit('learned#7', 'Q: ログの保存期間は？\nA: 90日間です。'), hit('faq.csv#51', 'Q: ログの保存期間は？\nA: 30日間です。')],
    replaceAll: async () => {},
    count: async () => 2,
    ping: async () => {},
  };
  const manual: ManualSearch = { kind: 'fake', search: async () => [hit('learned#7.md', '90日')], replaceAll: async () => {}, count: async () => 1, ping: async () => {} };

  it('say the pair is a reviewer-approved answer, in a field of its own, so its text and trust key stay as they were', async () => {
    const [manualTool, qaTool] = createSearchTools({ manual, qa });
    const out = await directSearchOf(qaTool!)!.run({ query: 'ログの保存期間' });
    expect(out).toEqual([
      { fileName: 'learned#7', note: LEARNED_HIT_NOTE, content: 'Q: ログの保存期間は？\nA: 90日間です。' },
      { fileName: 'faq.csv#51', content: 'Q: ログの保存期間は？\nA: 30日間です。' },
    ]);
    // The manual tool marks nothing, whatever a file is called.
    expect(await directSearchOf(manualTool!)!.run({ keywords: 'ログ' })).toEqual([{ fileName: 'learned#7.md', content: '90日' }]);
    const usage = { calls: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    const agent: Pick<AgentResult, 'subtasks'> = {
      subtasks: [{ taskName: 'q', toolResults: [[{ toolName: QA_TOOL_NAME, args: '{}', results: out! }]], reflectionResults: [], isCompleted: true, subtaskAnswer: '', challengeCount: 1, usedFallback: false, usage }],
    };
    expect(citedSources(agent)[0]!.key).toBe(sourceKey('qa', 'learned#7', 'Q: ログの保存期間は？\nA: 90日間です。'));
  });
});
