/**
 * An approved reply says things of the one customer it went to: their refund, the month it was for, their company
 * (audit s49 H4, MED 6: 「ご返金 12,800円」 and 「10月分」 of A1's reply reached A2's and A3's drafts). The scrub removes
 * people's data, not these — a plan's price or a partner company is knowledge too — so the Knowledge page names them
 * for the reviewer, from the answer as well as the question.
 */
import { describe, expect, it } from 'vitest';
import type { LearnedCandidate } from '../../src/knowledge/learned-answers.js';
import { oneCustomerDetails, type CustomerDetail } from '../../src/knowledge/learned-candidates.js';
import { renderKnowledgePage, searchedKnowledgeOf } from '../../src/server/knowledge-page.js';

// [text, what is found]
const FOUND: [string, CustomerDetail[]][] = [
  [
    '株式会社サンプル商事様の10月分（ご返金 12,800円）の領収書も宛名を変更できます。ABC商事株式会社 経理部の[氏名]様にもお送りしました。',
    [
      { kind: 'amount', text: '12,800円' },
      { kind: 'date', text: '10月分' },
      { kind: 'company', text: '株式会社サンプル商事' },
      { kind: 'company', text: 'ABC商事株式会社' },
    ],
  ],
  [
    '2026年10月15日にご請求した¥12,800は、2026/10/20に１．５万円分を返金済みです。',
    [
      { kind: 'amount', text: '¥12,800' },
      { kind: 'amount', text: '１．５万円' },
      { kind: 'date', text: '2026年10月15日' },
      { kind: 'date', text: '2026/10/20' },
    ],
  ],
  ['We refunded USD 20 on 15 October 2026 and 1st Nov.', [{ kind: 'amount', text: 'USD 20' }, { kind: 'date', text: '15 October 2026' }, { kind: 'date', text: '1st Nov' }]],
  ['令和8年10月分の請求書を（株）サンプル御中で再発行しました。', [{ kind: 'date', text: '令和8年10月分' }, { kind: 'company', text: '（株）サンプル' }]],
  [
    'Your refund of $49.99 (€45, 20 USD) for October 2026 went to Sample Trading Ltd. on Oct 15, 2026; XYZ GmbH was copied.',
    [
      { kind: 'amount', text: '$49.99' },
      { kind: 'amount', text: '€45' },
      { kind: 'amount', text: '20 USD' },
      { kind: 'date', text: 'October 2026' },
      { kind: 'date', text: 'Oct 15, 2026' },
      { kind: 'company', text: 'Sample Trading Ltd.' },
      { kind: 'company', text: 'XYZ GmbH' },
    ],
  ],
];

// Durations, a day of every month, phone numbers, versions and ids: nothing of one occasion or one customer.
const NOTHING = [
  '削除したデータは30日間保持されます。3か月ごとに更新され、毎月10日に締めます。',
  '0120-123-456 にお電話ください。バージョン2.3.1 で直りました。エラーコード E-1001 です。',
  'Backups run every 24 hours and are kept for 90 days. Call 1-800-555-0100.',
  'The Mayor of Marchfield met Janet in May; 20 USDT is no currency we take.',
];

describe('the details of one customer in a candidate', () => {
  it.each(FOUND)('%s', (answer, found) => {
    expect(oneCustomerDetails('領収書の宛名を変更できますか？', answer)).toEqual(found);
  });

  it.each(NOTHING)('%s names none', (answer) => {
    expect(oneCustomerDetails('データはいつまで残りますか？', answer)).toEqual([]);
  });

  it('reads the question too, each detail once', () => {
    expect(oneCustomerDetails('株式会社サンプル商事です。10月分の返金はいつですか？', '10月分は株式会社サンプル商事様へ返金済みです。')).toEqual([
      { kind: 'date', text: '10月分' },
      { kind: 'company', text: '株式会社サンプル商事' },
    ]);
  });

  it('the Knowledge page warns of them, naming each', () => {
    const candidate: LearnedCandidate = {
      id: 7,
      ticketId: 'a'.repeat(64),
      question: '領収書の宛名を会社名に変更することはできますか？',
      answer: '株式会社サンプル商事様の10月分（ご返金 12,800円）の領収書も宛名を変更できます。',
      origin: 'rules',
      proposedAt: '2026-11-28T21:45:39.701Z',
      scrub: { replaced: 0, modelPass: 'off' },
    } as LearnedCandidate;
    const page = String(renderKnowledgePage({ candidates: [{ candidate, target: undefined }], pairs: [], gaps: null, csrfToken: 't', user: 'op' }));
    expect(page).toContain('Amounts, dates, companies or reference numbers that may be this one customer’s: <bdi>12,800円, 10月分, 株式会社サンプル商事</bdi>');
    const plain = { ...candidate, answer: '「請求」→「領収書」→「宛名を編集」で変更できます。' };
    expect(String(renderKnowledgePage({ candidates: [{ candidate: plain, target: undefined }], pairs: [], gaps: null, csrfToken: 't', user: 'op' }))).not.toContain(
      'Amounts, dates, companies or reference numbers',
    );
  });

  // Bug review R1 of session 51: the page named help-centre links and error codes as one customer's.
  it('names a reference the searches of the ticket did not find, and not one they did', () => {
    const candidate = {
      id: 8,
      ticketId: 'b'.repeat(64),
      question: 'エラーが出ます',
      answer: 'ERR-4021 は https://help.example/articles/360001234567 の手順で直ります。ご注文 ORD-2026-0042 も対象です。',
      origin: 'rules',
      proposedAt: '2026-11-28T21:45:39.701Z',
      scrub: { replaced: 0, modelPass: 'off' },
    } as LearnedCandidate;
    const hits = (results: { fileName: string; content: string }[]) => ({ toolName: 'search_manual', args: '{}', results });
    const agent = {
      subtasks: [
        {
          toolResults: [
            [hits([{ fileName: 'errors.md', content: 'エラー ERR-4021: 詳しくは https://help.example/articles/360001234567 を参照' }])],
            [hits([{ fileName: 'learned#3', content: 'Q: 注文の件\nA: ご注文 ORD-2026-0042 は発送済みです。' }])],
          ],
        },
      ],
    } as never;
    const knowledge = searchedKnowledgeOf(agent);
    expect(knowledge).toEqual(['エラー ERR-4021: 詳しくは https://help.example/articles/360001234567 を参照']);
    const note = (view: { knowledge?: string[] }) => String(renderKnowledgePage({ candidates: [{ candidate, target: undefined, ...view }], pairs: [], gaps: null, csrfToken: 't', user: 'op' }));
    expect(note({ knowledge })).toContain('reference numbers that may be this one customer’s: <bdi>ORD-2026-0042</bdi>');
    expect(note({})).toContain('reference numbers that may be this one customer’s: <bdi>https://help.example/articles/360001234567, ERR-4021, ORD-2026-0042</bdi>');
  });
});
