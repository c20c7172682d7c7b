import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { agentFailureReason } from '../../jobs/answer-ticket.js';
import { noQuestionReason, parkBeforeAgentReason, type ParkConfig } from '../../src/mail/classify.js';
import { unreadableReason, type UnreadableCheckInput } from '../../src/mail/unreadable.js';
import { repeatedQuestionReason } from '../../src/tickets/repeated-question.js';
import { inboundMail } from '../support/inbound-mail.js';
import { PARK_NOTE } from '../../src/tickets/park-notes.js';
import { parkedForTheMailItself, whyNoNewDraft } from '../../src/tickets/review.js';
import type { HistoryEntry } from '../../src/tickets/ticket.js';

// Why a ticket without a question gets no new draft, as the review page and `review rerun` say it: the operator
// must see what the mail held, not "empty subject and body" for a web form that named its sender (review 7 #9).
describe('whyNoNewDraft: a mail without a question', () => {
  it.each([
    ['nothing at all', '', 'The mail has no question for the agent (empty subject and body)'],
    ['empty form labels', 'お名前:\nお問い合わせ内容:', "(only form labels with nothing after them or the sender's own details (an empty web form))"],
    ['only the sender’s own details', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名:\nメッセージ本文:', "(only form labels with nothing after them or the sender's own details (an empty web form))"],
  ])('%s', (_what, question, said) => {
    expect(whyNoNewDraft({ history: [], question })).toContain(said);
  });

  it('a mail with a question gets a new draft', () => {
    expect(whyNoNewDraft({ history: [], question: '請求書を再発行できますか？' })).toBeUndefined();
  });
});

const COLLEAGUE = 'internal mail from k.suzuki@support.example on our own domain support.example (a colleague, or a system of ours): an answer would go to them; a person answers';

describe('parkedForTheMailItself: rejecting it says the mail needed no reply', () => {
  const at = '2026-11-20T10:00:00.000Z';
  const created: HistoryEntry = { from: null, to: 'received', actor: 'poller', at };
  const byChecks = (note: string): HistoryEntry[] => [created, { from: 'received', to: 'parked', actor: 'agent-worker', at, note }];
  const held = 'held: the poller\'s first start found this mail unread for 3 days';
  it.each<[string, HistoryEntry[], string | undefined, boolean]>([
    ['no question', byChecks('no question: the mail has no text'), undefined, true],
    ["a colleague's mail", byChecks(COLLEAGUE), undefined, true],
    ['a circular', byChecks('a circular: sent to 40 recipients; a person decides whether it asks us anything'), undefined, true],
    ["a list member's copy", byChecks('list mail that copies our address: a member of list x@y wrote to it and asked support@z directly'), undefined, true],
    ['spam parked for a look', byChecks('spam: X-Spam-Flag YES'), undefined, true],
    ['a repeated question, whose customer has its reply', byChecks('repeated question: the same sender asked the same under the same subject 5 min ago'), undefined, true],
    ['a hold and a check on the mail', byChecks(`${held}; ${COLLEAGUE}`), held, true],
    ['a hold and an unreadable mail: its customer asked something', byChecks(`${held}; encrypted mail (S/MIME): its text cannot be read here`), held, false],
    ['a person reopened mail the checks ignored', [created, { from: 'received', to: 'ignored', actor: 'agent-worker', at, note: 'auto-reply' }, { from: 'ignored', to: 'parked', actor: 'operator:anna', at, note: 'reopened' }], undefined, true],
    ['a hold alone: a person decides, the mail may well need an answer', byChecks(held), held, false],
    ['the auto-reply limit', byChecks('auto-reply limit reached: 5 automatic replies to a@b in the last hour (AUTO_REPLY_LIMIT_PER_HOUR=5)'), undefined, false],
    ['the agent-run limit', byChecks('agent-run limit reached: 20 agent runs in the last hour (AGENT_RUN_LIMIT_TOTAL_PER_HOUR=20)'), undefined, false],
    ['a failure before the agent ran', byChecks('agent failed permanently: the stored raw mail of ticket x is missing'), undefined, false],
    ['a job that failed for good', byChecks('agent job failed for good: job stalled more than allowable limit'), undefined, false],
    ['a model failure during the run', [created, { from: 'received', to: 'processing', actor: 'agent-worker', at }, { from: 'processing', to: 'parked', actor: 'agent-worker', at, note: 'agent failed 3 time(s): the model server could not be reached' }], undefined, false],
    ['too large: created parked by the poller', [{ from: null, to: 'parked', actor: 'poller', at, note: 'too large to download: 40 MB over MAX_EMAIL_BYTES' }], undefined, false],
    ['parked by the poller, not by the checks', [created, { from: 'received', to: 'parked', actor: 'poller', at, note: 'could not be queued after 3 attempts' }], undefined, false],
    ['a new draft asked for after the checks, whose run failed', [...byChecks(COLLEAGUE), { from: 'parked', to: 'processing', actor: 'operator:anna', at }, { from: 'processing', to: 'parked', actor: 'agent-worker', at, note: 'agent failed 3 time(s): Connection error.' }], undefined, false],
  ])('%s', (_case, history, heldReason, want) => {
    expect(parkedForTheMailItself({ history, ...(heldReason ? { heldReason } : {}) })).toBe(want);
  });
});

// The notes as their writers make them, not as copied here: a change of wording on either side fails this.
describe('parkedForTheMailItself reads the notes the agent worker writes', () => {
  const at = '2026-11-20T10:00:00.000Z';
  const byChecks = (note: string): HistoryEntry[] => [
    { from: null, to: 'received', actor: 'poller', at },
    { from: 'received', to: 'parked', actor: 'agent-worker', at, note },
  ];
  const settings = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_MODEL: 'gpt-4o', OPENAI_API_KEY: 'sk-test-123456' };
  it.each([
    ['a failure for good', agentFailureReason(new UnrecoverableError('the stored raw mail is missing'), 3, 'abc', settings)],
    ['a failure after retries', agentFailureReason(new Error('Connection error.'), 3, 'abc', settings)],
    ["the worker's failed listener", `${PARK_NOTE.agentJobFailed}: job stalled more than allowable limit`],
    ['the auto-reply limit', `${PARK_NOTE.autoReplyLimit}: 5 automatic replies to a@b in the last hour`],
    ['the agent-run limit', `${PARK_NOTE.agentRunLimit}: 20 agent runs in the last hour`],
  ])('%s: not about the mail', (_case, note) => {
    expect(parkedForTheMailItself({ history: byChecks(note) })).toBe(false);
  });
});

// Only a park for mail that asks nothing of us says "no reply needed"; a customer whose question the desk could not
// read (a screenshot, encrypted mail, text only in an attachment) or whose reply a person holds needed one (review 9 #4).
describe('parkedForTheMailItself: which checks park mail that needs no reply, by their writers', () => {
  const at = '2026-11-20T10:00:00.000Z';
  const byChecks = (note: string): HistoryEntry[] => [
    { from: null, to: 'received', actor: 'poller', at },
    { from: 'received', to: 'parked', actor: 'agent-worker', at, note },
  ];
  const config: ParkConfig = { MAIL_FROM: 'XYZ Support <support@support.example>', SUPPORT_ADDRESSES: ['help@support.example'], SUPPORT_GROUP_ADDRESSES: [], AUTHSERV_ID: [], PRODUCT_NAME: 'XYZ' };
  const parked = (mail: Parameters<typeof inboundMail>[0]) => parkBeforeAgentReason(inboundMail(mail), config) ?? 'not parked';
  const plain: UnreadableCheckInput = { top: { contentType: 'text/plain' }, text: 'How do I reset my password?', parts: [] };
  const mixed = (parts: UnreadableCheckInput['parts'], text = plain.text): UnreadableCheckInput => ({ top: { contentType: 'multipart/mixed' }, text, parts });
  const unreadable = (mail: UnreadableCheckInput) => unreadableReason(mail) ?? 'readable';
  const calendar = (method: string) => unreadable(mixed([{ contentType: 'text/calendar', params: { method } }]));
  const person = (address: string, name = '') => ({ address, name });
  it.each<[string, string, boolean]>([
    ['an empty mail', noQuestionReason(''), true],
    ['an empty web form', noQuestionReason('お名前:\nお問い合わせ内容:'), true],
    ["a colleague's forward", parked({ from: person('k.suzuki@support.example', '鈴木'), question: '先方へ直接ご返信ください。' }), true],
    ['a circular', parked({ cc: Array.from({ length: 21 }, (_, i) => person(`p${i}@vendor${i}.example`)) }), true],
    ['an Outlook recall', unreadable({ ...plain, text: 'Sender would like to recall the message', subject: 'Recall: 見積書', exchangeRecall: true }), true],
    ['a calendar invitation', calendar('REQUEST'), true],
    ['an answer to our invitation', calendar('REPLY'), true],
    ['a cancelled meeting', calendar('CANCEL'), true],
    ['a repeated question', repeatedQuestionReason({ id: 'first', state: 'sent', createdAt: at }, new Date(at)), true],
    ['spam parked for a look', 'spam: X-Spam-Flag YES', true],
    ['encrypted mail (OpenPGP/MIME)', unreadable({ top: { contentType: 'multipart/encrypted' }, text: '', parts: [] }), false],
    ['encrypted mail (S/MIME)', unreadable({ top: { contentType: 'application/pkcs7-mime' }, text: '', parts: [] }), false],
    ['a question about a screenshot the agent cannot see', unreadable(mixed([{ contentType: 'image/png', filename: 'image001.png' }], 'この画面から先に進めません。')), false],
    ['text only in an attachment', unreadable(mixed([{ contentType: 'application/pdf', filename: 'inquiry.pdf' }], '')), false],
    ['a reply of only the quote', unreadable({ ...plain, text: '> 前回のご質問への回答です', ownWords: '', quoted: true }), false],
    ['a person\'s From with a no-reply Reply-To', parked({ replyTo: person('noreply@customer.example') }), false],
    ['a stranger named as our support', parked({ from: person('support@xyz-help.example', 'XYZ サポート') }), false],
    ["a reply held by the customer's spam guard", "sender verification: the customer's spam guard holds our reply of ticket t1 until someone confirms; a person decides whether to (x)", false],
    ['our own group without its setting', 'mail through a group on our own domain (help@support.example) that SUPPORT_GROUP_ADDRESSES does not list: a person decides whom to answer', false],
  ])('%s', (_case, note, want) => {
    expect(note).not.toMatch(/^(?:not parked|readable)$/);
    expect(parkedForTheMailItself({ history: byChecks(note) })).toBe(want);
  });
});
