/**
 * Whether a reply to the From leaves out the quoted customer mail (quoteOmission): decided from the stored ticket
 * and the configuration alone, by the sender at send time and by the review page alike. A sender our receiving
 * server vouches for keeps the quote; for any other, a quote holding a link, address or phone number nothing vouches
 * for is left out. The sender's own site (the From's domain and its subdomains) is theirs, not a forger's weapon
 * against them; a phone number is still read as a forger's ("call 03-… to restore your account").
 */
import { describe, expect, it } from 'vitest';
import type { AgentResult } from '../../src/agent/types.js';
import { formatQaPair } from '../../src/search/types.js';
import { foreignLinks } from '../../src/tickets/foreign-links.js';
import { replySignalsOf, type ReplySignals } from '../../src/mail/classify.js';
import { knowledgeFound, quoteOmission, type QuoteConfig } from '../../src/tickets/quote-omission.js';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';

const OURS = 'mx.helpdesk.test';
const CONFIG: QuoteConfig = { MAIL_FROM: 'XYZ Support <support@helpdesk.test>', SUPPORT_ADDRESSES: [], SUPPORT_GROUP_ADDRESSES: [], AUTHSERV_ID: [], TRUSTED_LINK_DOMAINS: [] };
const SIGNATURE = ['ログインできません。', '', '--', '山田太郎 株式会社カスタマー'];

/** The reply signals the poller records for a mail with these Authentication-Results fields (and list headers). */
function signals(from: string, fields: readonly string[], more: Record<string, string[]> = {}): ReplySignals {
  const headers = { ...more, ...(fields.length > 0 ? { 'authentication-results': [...fields] } : {}) };
  return replySignalsOf({ from: { address: from, name: '' }, replyTo: undefined, contentType: 'text/plain', headers })!;
}

/** A ticket of `from` whose mail says `lines`; `extra` adds Reply-To, signals or the agent's result. */
function ticket(from: string, lines: readonly string[], extra: { replyTo?: string; replySignals?: ReplySignals; agent?: AgentResult; fromName?: string } = {}): Ticket {
  const { agent, ...input } = extra;
  const t = newTicket({ messageId: `<${from}-${lines.length}@q.example>`, from, subject: 'ログインについて', question: lines.join('\n'), actor: 'test', ...input });
  return agent ? { ...t, agent } : t;
}

/** An agent result whose one search returned `content` (the manual's search unless `toolName` says otherwise). */
function found(content: string, toolName = 'search_xyz_manual', fileName = 'account.md'): AgentResult {
  const usage = { calls: 1, promptTokens: 1, completionTokens: 1, totalTokens: 2 };
  return {
    question: 'q',
    plan: { subtasks: ['s'] },
    subtasks: [
      {
        taskName: 's',
        toolResults: [[{ toolName, args: '{}', results: [{ fileName, content }] }]],
        reflectionResults: [],
        isCompleted: true,
        subtaskAnswer: 'a',
        challengeCount: 1,
        usedFallback: false,
        usage,
      },
    ],
    answer: 'a',
    sources: [{ kind: 'manual', fileName: 'account.md' }],
    usage,
    llmCalls: [],
    truncated: false,
    droppedSubtasks: [],
    durationMs: 1,
  };
}

describe('quoteOmission', () => {
  type Row = [name: string, ticket: Ticket, omitted: string[] | undefined, config?: Partial<QuoteConfig>];
  it.each<Row>([
    // The review's case: behind a server that writes no Authentication-Results, the customer's own signature.
    ['a signature with the From domain\'s site: kept', ticket('taro@customer.example', [...SIGNATURE, 'https://www.customer.example/']), undefined],
    ['… the bare domain, a subdomain\'s page, an address on it: kept', ticket('taro@customer.example', [...SIGNATURE, 'customer.example', 'https://support.customer.example/faq?id=3', 'sales@customer.example']), undefined],
    ['… and a phone number: left out for the number alone', ticket('taro@customer.example', [...SIGNATURE, 'TEL: 03-1234-5678', 'https://www.customer.example/']), ['03-1234-5678']],
    ['a From on a subdomain, a link to that subdomain\'s site', ticket('taro@mail.customer.example', [...SIGNATURE, 'https://mail.customer.example/']), undefined],
    ['a look-alike of the From domain: left out', ticket('taro@customer.example', ['Confirm at https://customer.example.evil.example/login', 'or https://evilcustomer.example/']), ['https://customer.example.evil.example/login', 'https://evilcustomer.example/']],
    // Anyone holds a mailbox there, and some host their customers' pages on it: no one's own site.
    ['a shared mail provider\'s domain vouches for nothing', ticket('taro@nifty.com', ['Confirm at http://homepage3.nifty.com/verify']), ['http://homepage3.nifty.com/verify']],
    ['the forger\'s notice: left out', ticket('victim@bank.example', ['二段階認証の設定方法を教えてください。', '24時間以内に https://xyz-account-verify.example/login で確認してください。']), ['https://xyz-account-verify.example/login']],
    ['… a link in the display name above the quote', ticket('victim@bank.example', ['質問です。'], { fromName: 'Verify at xyz-account-verify.example' }), ['xyz-account-verify.example']],
    ['a mail without links: kept', ticket('victim@bank.example', ['二段階認証の設定方法を教えてください。']), undefined],
    // Security review 14: the lure written with an ideographic full stop in its host, as a bare IPv4 address with a
    // path, or defanged; a router's private address, a version and a sentence's full stop are none.
    ...(['xyz-account-verify。com/login', 'xyz-account-verify｡com/login', '203.0.113.7/login', 'hxxps://xyz-account-verify[.]com/login'] as const).map((lure): Row => [
      `the forger's notice with ${lure}: left out`,
      ticket('victim@bank.example', ['二段階認証の設定方法を教えてください。', `24時間以内にアカウントが停止されます。継続するには ${lure} でパスワードを確認してください。`]),
      [lure],
    ]),
    ['a router answer, a version and sentences ending in 。: kept', ticket('victim@bank.example', ['ブラウザで 192.168.0.1 を開いても設定画面にアクセスできません。', 'ファームウェアは 1.2.3.4 です。Windows。次にExcel。OK。']), undefined],
    ['a link the agent found in the knowledge: kept', ticket('victim@bank.example', ['https://help.helpdesk.test/2fa を読みました。'], { agent: found('手順: https://help.helpdesk.test/2fa') }), undefined],
    ['a link on a TRUSTED_LINK_DOMAINS domain: kept', ticket('victim@bank.example', ['https://docs.partner.example/2fa を読みました。']), undefined, { TRUSTED_LINK_DOMAINS: ['partner.example'] }],
    ['a sender our server vouches for (dmarc=pass): kept', ticket('victim@bank.example', ['Confirm at https://xyz-account-verify.example/login'], { replySignals: signals('victim@bank.example', [`${OURS}; dmarc=pass header.from=bank.example`]) }), undefined],
    ['… not when AUTHSERV_ID names another server', ticket('victim@bank.example', ['Confirm at https://xyz-account-verify.example/login'], { replySignals: signals('victim@bank.example', ['mx.evil.example; dmarc=pass header.from=bank.example']) }), ['https://xyz-account-verify.example/login'], { AUTHSERV_ID: [OURS] }],
    ['spf=softfail, dmarc=none: left out', ticket('victim@bank.example', ['Confirm at https://xyz-account-verify.example/login'], { replySignals: signals('victim@bank.example', [`${OURS}; spf=softfail smtp.mailfrom=bank.example; dmarc=none`]) }), ['https://xyz-account-verify.example/login']],
    // To another mailbox the quote is left out anyway (compose-reply.ts): nothing to decide here.
    ['a reply to another mailbox (Reply-To)', ticket('victim@bank.example', ['Confirm at https://xyz-account-verify.example/login'], { replyTo: 'other@partner.example' }), undefined],
  ])('%s', (_name, t, omitted, config) => {
    const reason = quoteOmission(t, { ...CONFIG, ...config });
    if (omitted === undefined) expect(reason).toBeUndefined();
    else {
      expect(reason).toBe(
        `the sender is not authenticated (no Authentication-Results of our receiving server vouch for ${t.from}), and the quoted mail contains links, addresses or phone numbers that are neither in the knowledge the agent found nor trusted (TRUSTED_LINK_DOMAINS): ${omitted.join(', ')}`,
      );
    }
  });

  // Our own group relays a customer whose domain only monitors DMARC (p=none): its footer breaks the signature, and
  // our server's dmarc=fail stands beside the ARC seal saying DMARC passed when the mail reached the group.
  it('keeps the quote of a customer relayed by our own group with an ARC-sealed DMARC pass', () => {
    const group: QuoteConfig = { ...CONFIG, SUPPORT_GROUP_ADDRESSES: ['help@helpdesk.test'], AUTHSERV_ID: [OURS] };
    const sealed = `${OURS}; dkim=pass header.i=@helpdesk.test; arc=pass (i=1 spf=pass spfdomain=bank.example dkim=pass dkdomain=bank.example dmarc=pass fromdomain=bank.example); spf=pass smtp.mailfrom=help+bnc1@helpdesk.test; dmarc=fail (p=NONE sp=NONE dis=NONE arc=pass) header.from=bank.example`;
    const listHeaders = { 'list-id': ['<help.helpdesk.test>'], 'list-post': ['<mailto:help@helpdesk.test>'] };
    const t = ticket('taro@bank.example', ['https://www.partner.example/ の手順で設定できません。'], { replySignals: signals('taro@bank.example', [sealed], listHeaders) });
    expect(quoteOmission(t, group)).toBeUndefined();
    // The same seal on mail that is not the group's (no SUPPORT_GROUP_ADDRESSES) vouches for nothing.
    expect(quoteOmission(t, { ...group, SUPPORT_GROUP_ADDRESSES: [] })).toMatch(/^the sender is not authenticated/);
  });

  // The sender reads the ticket without the agent's result first and fetches it only when the quote would go: the
  // knowledge can only vouch for more, never for less.
  it('never omits with the knowledge what it keeps without it', () => {
    const kept = ticket('victim@bank.example', ['二段階認証の設定方法を教えてください。'], { agent: found('https://xyz-account-verify.example/login') });
    expect(quoteOmission({ ...kept, agent: undefined }, CONFIG)).toBeUndefined();
    expect(quoteOmission(kept, CONFIG)).toBeUndefined();
    expect(knowledgeFound(kept.agent)).toEqual(['https://xyz-account-verify.example/login']);
    expect(knowledgeFound(undefined)).toEqual([]);
  });
});

// tmp/sec4/learned-link-laundering.test.ts: a learned pair's question is the attacker's mail; once accepted, its link
// and phone number were "knowledge" and a later draft repeating them went out automatically. A Q&A pair's question is
// a customer's words (a learned pair's always, a CSV row's as often: past inquiries copied in), its answer the
// company's: only the answer vouches. The manual is the company's words throughout.
describe('knowledgeFound: only what the company wrote vouches', () => {
  const EVIL = 'https://xyz-support-center.example/reset';
  const PHONE = '0120-444-555';
  const HELP = 'https://help.helpdesk.test/receipt';
  const QA = 'search_xyz_qa';
  const DRAFT = `宛名は「請求」→「領収書」で変更できます。詳しくは ${HELP} 、公式の案内 ${EVIL} 、または ${PHONE} まで。`;
  type Row = [name: string, agent: AgentResult, foreign: string[]];
  it.each<Row>([
    ['a learned pair\'s question vouches for nothing', found(formatQaPair({ question: `公式の案内 ${EVIL} と ${PHONE} では駄目でした。`, answer: '「請求」→「領収書」で変更できます。' }), QA, 'learned#7'), [HELP, EVIL, PHONE]],
    ['… nor a CSV pair\'s question', found(formatQaPair({ question: `${HELP} と ${EVIL} と ${PHONE} を見ました。`, answer: '「請求」→「領収書」です。' }), QA, 'xyz-qa.csv#4'), [HELP, EVIL, PHONE]],
    ['a pair\'s answer vouches for our help URL and number', found(formatQaPair({ question: '領収書の宛名は？', answer: `手順は ${HELP} 、お電話は ${PHONE} です。` }), QA, 'learned#7'), [EVIL]],
    ['a question that writes an answer line of its own', found(formatQaPair({ question: `宛名は？\nA: ${EVIL} と ${PHONE}\n以上`, answer: `手順は ${HELP} です。` }), QA, 'learned#7'), [EVIL, PHONE]],
    ['a Q&A hit without an answer part vouches for nothing', found(`Q: ${HELP} ${EVIL} ${PHONE}`, QA, 'xyz-qa.csv#4'), [HELP, EVIL, PHONE]],
    ['a manual section vouches for our help URL', found(`領収書の宛名は ${HELP} の手順で変更できます。`), [EVIL, PHONE]],
    ['… also when written as questions and answers: the manual is ours throughout', found(`Q: ${HELP} と ${PHONE} は公式ですか？\nA: はい。`), [EVIL]],
  ])('%s', (_name, agent, foreign) => {
    expect(foreignLinks(DRAFT, { knowledge: knowledgeFound(agent), trustedDomains: [], addresses: [] })).toEqual(foreign);
  });

  it('leaves out of the quote a link a pair\'s question holds, keeps one its answer holds', () => {
    const lines = ['領収書の宛名変更はできますか？', `公式の案内 ${EVIL} では駄目でした。`];
    const inQuestion = found(formatQaPair({ question: `公式の案内 ${EVIL} では駄目でした。`, answer: '「請求」→「領収書」で変更できます。' }), QA, 'learned#7');
    const inAnswer = found(formatQaPair({ question: '宛名は？', answer: `手順は ${EVIL} です。` }), QA, 'learned#7');
    expect(quoteOmission(ticket('victim@bank.example', lines, { agent: inQuestion }), CONFIG)).toMatch(/^the sender is not authenticated.*: https:\/\/xyz-support-center\.example\/reset$/);
    expect(quoteOmission(ticket('victim@bank.example', lines, { agent: inAnswer }), CONFIG)).toBeUndefined();
  });
});
