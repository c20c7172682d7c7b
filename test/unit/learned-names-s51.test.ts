/**
 * Security review 19 (findings 1 in part and 2): a learned pair kept one customer's name and numbers and served them to
 * others. The proposal's scrub now gets every name the mail gave for its writer (the Reply-To's display name, the
 * names the From and Reply-To addresses spell); the Knowledge page names reference numbers and links to one record
 * the knowledge does not write; the Q&A tool scrubs a learned hit again by the rules when it serves it, and its note
 * says the pair was written to one customer.
 */
import { describe, expect, it } from 'vitest';
import { proposeLearnedAnswer } from '../../jobs/propose-learned-answer.js';
import { createSearchTools, directSearchOf, LEARNED_HIT_NOTE, servedLearnedContent } from '../../src/agent/tools.js';
import { addressNameOf, oneCustomerDetails, type CustomerDetail } from '../../src/knowledge/learned-candidates.js';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';
import type { ManualSearch, QaSearch, SearchHit } from '../../src/search/types.js';

// [address, the name its local part spells]
const ADDRESS_NAMES: [string, string | undefined][] = [
  ['priya.raman@customer-c.example', 'Priya Raman'],
  ['yamada_taro@example.jp', 'Yamada Taro'],
  ['mary.ann.smith@example.com', 'Mary Ann Smith'],
  // Bug review R1 of session 51: one word of a local part is as often a place, a product or a handle as a name.
  ['taro1985@docomo.ne.jp', undefined],
  ['k.suzuki@example.jp', undefined],
  ['minsu@customer-a.example', undefined],
  ['htanaka92@example.jp', undefined],
  ['priya@customer-c.example', undefined],
  ['outlook.user@customer-f.example', undefined],
  ['form@forms.shop.example', undefined],
  ['info@shop.example', undefined],
  ['no-reply@shop.example', undefined],
  ['do-not-reply@shop.example', undefined],
  ['support+orders@shop.example', undefined],
  ['12345678@example.jp', undefined],
  ['', undefined],
];

describe('the name an address spells', () => {
  it.each(ADDRESS_NAMES)('%s → %s', (address, name) => {
    expect(addressNameOf(address)).toBe(name);
  });
});

// [case, the ticket's sender fields, the approved reply, what must leave the candidate, what must stay]
const SENDERS: [string, Record<string, string>, string, string[], string[]][] = [
  [
    "a web form's mail: the customer's Reply-To display name",
    { from: 'form@forms.shop.example', fromName: 'Contact form', replyTo: 'p.raman@customer-c.example', replyToName: 'Priya Raman' },
    'Hello Priya — yes: open Billing, then Receipts, then Edit addressee. The receipt is reissued for Priya Raman at once.',
    ['Priya', 'Raman'],
    ['open Billing, then Receipts, then Edit addressee'],
  ],
  [
    'the name the Reply-To address spells, with no display name',
    { from: 'form@forms.shop.example', replyTo: 'kenji.watanabe@customer-d.example' },
    'Hello Kenji — yes: open Billing, then Receipts, then Edit addressee. The receipt is reissued for Kenji Watanabe at once.',
    ['Kenji', 'Watanabe'],
    ['open Billing, then Receipts, then Edit addressee'],
  ],
  [
    'the name the From address spells, with no display name',
    { from: 'minsu.kim@customer-a.example', replyTo: 'minsu.kim@customer-a.example' },
    'Yes — Minsu can change the addressee under Billing > Receipts, and the receipt shows Minsu Kim again.',
    ['Minsu'],
    ['can change the addressee under Billing > Receipts'],
  ],
  [
    'a role address gives no name: its words stay',
    { from: 'support@customer-e.example', replyTo: 'info@customer-e.example' },
    'Contact support or send the form again: the info page lists every step.',
    [],
    ['Contact support or send the form again: the info page lists every step.'],
  ],
  // Bug review R1 of session 51: an address's name counts only whole, never one of its words alone.
  [
    'the name the address spells, written surname first',
    { from: 'priya.raman@customer-c.example' },
    'Yes — the receipt for RAMAN Priya is reissued at once; Raman Priya can also open Billing > Receipts.',
    ['Priya', 'RAMAN', 'Raman'],
    ['can also open Billing > Receipts'],
  ],
  [
    "one word of a branch's address stays",
    { from: 'tokyo.branch@customer-g.example' },
    'Our Tokyo office reissues receipts: open Billing > Receipts and choose Tokyo as the issuing office.',
    [],
    ['Our Tokyo office reissues receipts', 'choose Tokyo as the issuing office'],
  ],
  [
    'the product word of a one-word address stays',
    { from: 'outlook.user@customer-f.example' },
    'Open Outlook, go to Settings, then Receipts: Outlook keeps the addressee you type.',
    [],
    ['Open Outlook, go to Settings', 'Outlook keeps the addressee'],
  ],
  [
    "a word of an address's name elsewhere than the whole name stays",
    { from: 'windows.setup@customer-h.example' },
    'Open Settings > Windows Update, then Billing > Receipts, to change the addressee.',
    [],
    ['Settings > Windows Update, then Billing > Receipts'],
  ],
  [
    'a single-word address gives no name: its word stays',
    { from: 'lotus@customer-i.example' },
    'Switch to the Lotus theme under Settings, then open Billing > Receipts.',
    [],
    ['Switch to the Lotus theme under Settings'],
  ],
];

describe('the names a proposal scrubs', () => {
  it.each(SENDERS)('%s', async (_case, sender, reply, gone, kept) => {
    const question = 'How do I change the addressee on a receipt?';
    const stored: { question: string; answer: string }[] = [];
    const ticket = { id: 't1', state: 'sent', approval: { by: 'op', at: new Date().toISOString() }, draft: reply, question, mailText: question, ...sender };
    await proposeLearnedAnswer({ ticketId: 't1' } as never, {
      store: { get: async () => ticket as never },
      learned: {
        proposeOnce: async (_id: string, drafts: never[]) => {
          stored.push(...drafts);
          return { outcome: 'stored', candidates: drafts } as never;
        },
      },
      mailFrom: 'XYZ Support <support@xyz.example>',
    });
    expect(stored).toHaveLength(1);
    const text = `${stored[0]!.question}\n${stored[0]!.answer}`;
    for (const piece of gone) expect(text).not.toContain(piece);
    for (const piece of kept) expect(text).toContain(piece);
  });
});

const reference = (text: string): CustomerDetail => ({ kind: 'reference', text });

// [case, the candidate's answer, the references named]
const REFERENCES: [string, string, CustomerDetail[]][] = [
  ['an order number after a Korean label', '주문번호 202611030042의 영수증도 받는 사람 이름을 변경할 수 있습니다.', [reference('202611030042')]],
  ['a tracking number of letters and digits', 'Your parcel 1Z999AA10123456784 left the depot.', [reference('1Z999AA10123456784')]],
  ['a case id with a hyphen', 'We reopened BOB-7731 for you.', [reference('BOB-7731')]],
  ['full-width digits', 'お問い合わせ番号１２３４５６７８で承りました。', [reference('１２３４５６７８')]],
  ['an id in a link’s path', 'Open https://shop.example/orders/88412 to see it.', [reference('https://shop.example/orders/88412')]],
  ['an id in a link’s query', 'Track it at https://shop.example/track?id=A1B2C3D4E5F6 today.', [reference('https://shop.example/track?id=A1B2C3D4E5F6')]],
  ['a link to a page holds none', 'See https://help.example/ja/articles/receipts for the steps.', []],
  ['an error code, a version, a phone number', 'エラーコード E-1001 はバージョン2.3.1 で直りました。0120-123-456 にお電話ください。', []],
  ['a year, a model name, a short number', 'Since 2026 the H264 export on Windows11 takes 30 seconds.', []],
  ['an amount is named as one, not again as a reference', '返金額は1000000円です。', [{ kind: 'amount', text: '1000000円' }]],
];

describe('the references of one customer in a candidate', () => {
  it.each(REFERENCES)('%s', (_case, answer, found) => {
    expect(oneCustomerDetails('領収書の宛名を変更できますか？', answer)).toEqual(found);
  });

  it('names none the knowledge writes (an error code, a help-centre link)', () => {
    const answer = 'ERR-4021 は https://help.example/articles/360001234567 の手順で直ります。ご注文 ORD-2026-0042 も対象です。';
    expect(oneCustomerDetails('エラーが出ます', answer)).toEqual([reference('https://help.example/articles/360001234567'), reference('ERR-4021'), reference('ORD-2026-0042')]);
    const knowledge = ['エラー ERR-4021: 詳しくは https://help.example/articles/360001234567 を参照'];
    expect(oneCustomerDetails('エラーが出ます', answer, { knowledge })).toEqual([reference('ORD-2026-0042')]);
  });
});

const hit = (fileName: string, content: string): SearchHit => ({ id: fileName, fileName, content, score: 1 });
const EMPTY_MANUAL: ManualSearch = { kind: 'fake', search: async () => [], replaceAll: async () => {}, count: async () => 0, ping: async () => {} };

/** The Q&A tool's outputs for `hits`, as the agent reads them. */
async function servedHits(hits: SearchHit[]) {
  const qa: QaSearch = { kind: 'fake', search: async () => hits, replaceAll: async () => {}, count: async () => hits.length, ping: async () => {} };
  const [, qaTool] = createSearchTools({ manual: EMPTY_MANUAL, qa });
  return directSearchOf(qaTool!)!.run({ query: '領収書の宛名' });
}

// [case, a learned pair's text as stored before a rule existed, what the agent must not read]
const STORED_BEFORE: [string, string, string[]][] = [
  ['an address and a phone number in the answer', 'Q: 領収書の宛名を変えたい\nA: taro.yamada@example.jp 宛に再発行しました。090-1234-5678 にもご連絡します。', ['taro.yamada@example.jp', '090-1234-5678']],
  ['a name with its honorific in the question', 'Q: 山田太郎様の領収書の宛名を変えたい\nA: 「請求」→「領収書」から変更できます。', ['山田太郎']],
];

describe('a learned hit as the Q&A tool serves it', () => {
  it.each(STORED_BEFORE)('is scrubbed again by the rules: %s', async (_case, content, gone) => {
    const [served] = (await servedHits([hit('learned#3', content)]))!;
    for (const piece of gone) expect(served!.content).not.toContain(piece);
    expect(served!.content).toMatch(/^Q: .+\nA: .+/su);
  });

  it('is served as stored when the rules find nothing, and a Q&A row as it is', async () => {
    const clean = 'Q: 領収書の宛名を変えたい\nA: 「請求」→「領収書」→「宛名を編集」で変更できます。';
    const row = 'Q: 連絡先は？\nA: taro.yamada@example.jp までどうぞ。';
    expect(await servedHits([hit('learned#3', clean), hit('faq.csv#2', row)])).toEqual([
      { fileName: 'learned#3', note: LEARNED_HIT_NOTE, content: clean },
      { fileName: 'faq.csv#2', content: row },
    ]);
  });

  it('scrubs the question and the answer each as the proposal did, and again changes nothing', () => {
    const content = 'Q: 注文の件です。山田太郎様の領収書\nA: 山田様、taro.yamada@example.jp 宛に送りました。';
    const served = servedLearnedContent(content);
    const [question, answer] = [content.slice(3, content.indexOf('\nA: ')), content.slice(content.indexOf('\nA: ') + 4)];
    expect(served).toBe(`Q: ${scrubPersonalData(question).text}\nA: ${scrubPersonalData(answer).text}`);
    expect(servedLearnedContent(served)).toBe(served);
  });

  it('carries the note that the pair was written to one customer', () => {
    expect(LEARNED_HIT_NOTE).toContain('こちらを優先する');
    expect(LEARNED_HIT_NOTE).toContain('一人のお客様への返信');
    expect(LEARNED_HIT_NOTE).toContain('今回のお客様が自分で書いたもの以外は決して繰り返さない');
  });
});
