/**
 * The agent worker and the sender against real Redis and a real SMTP receiver, with tickets ingested as the poller
 * would (no IMAP): the happy path, review modes, the pre-agent checks, retries and parking on failure.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { deleteRaw } from '../../src/mail/raw-store.js';
import { metricsKeys } from '../../src/server/metrics.js';
import { readInsights } from '../../src/tickets/insights.js';
import { approveTicket, rejectTicket, rerunAgent, whyNoNewDraft } from '../../src/tickets/review.js';
import { claimQuestion, repeatedQuestionKey } from '../../src/tickets/repeated-question.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newTicket, type Ticket } from '../../src/tickets/ticket.js';
import { httpError, jsonResponse, textResponse } from '../../src/dev/openai-server.js';
import { readRoleStatus } from '../../src/runtime/role-status.js';
import { startRecordingServer } from '../support/recording-http-server.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  servers.smtp.respondWith(undefined);
  servers.llm.setHandler(scriptedModel());
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

async function run(overrides: Record<string, string> = {}, options: Parameters<typeof startRoles>[1] = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, overrides));
  const running = await startRoles(config, options);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';

describe('agent worker and sender', () => {
  it('answers a mail once, threaded, with Auto-Submitted', async () => {
    const running = await run();
    const messageId = customerMessageId();
    const { ticketId } = await ingest(running, buildMail({ messageId, from: 'Taro <taro@customer.example>', subject: '二段階認証について', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'failed', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['taro@customer.example']);
    expect(reply!.subject).toBe('Re: 二段階認証について');
    expect(reply!.parsed.inReplyTo).toBe(messageId);
    expect(reply!.headers.get('auto-submitted')).toBe('auto-replied');
    expect(reply!.parsed.messageId).toBe(ticket.outbound?.messageId);
    expect(reply!.text).toContain('お問い合わせいただきありがとうございます');
  });

  it.each([
    ['always', {}, 'review mode always'],
    // The reason names what is missing, not the mode: learn parks the same draft as auto would.
    ['auto', { forceIncomplete: (): boolean => true }, 'not fully answered: no full answer found in the manual or the past answers for 「'],
    ['never', { forceIncomplete: (): boolean => true }, 'nothing could be answered: every subtask fell back'],
  ] as const)('REVIEW_MODE=%s parks the draft when it must', async (mode, model, reason) => {
    servers.llm.setHandler(scriptedModel(model));
    const running = await run({ REVIEW_MODE: mode });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'hanako@customer.example', subject: '質問', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toContain(reason);
    expect(ticket.draft).toBeTruthy();
    expect(ticket.agent?.subtasks.length).toBeGreaterThan(0);
    if (mode !== 'always') expect(ticket.agent?.subtasks[0]?.reflectionResults).toHaveLength(3);
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  it('parks mail without a question, and mail over the per-sender hourly limit', async () => {
    const running = await run({ AUTO_REPLY_LIMIT_PER_HOUR: '1' });
    const empty = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'a@customer.example', subject: '', body: '' }));
    expect((await waitForState(running.store, empty.ticketId, ['parked', 'sent'])).reason).toBe('no question: empty subject and body');

    const first = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'b@customer.example', subject: '質問1', body: QUESTION }));
    expect((await waitForState(running.store, first.ticketId, ['parked', 'sent'])).state).toBe('sent');
    const second = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'B@customer.example', subject: '質問2', body: QUESTION }));
    const parked = await waitForState(running.store, second.ticketId, ['parked', 'sent']);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toMatch(/^auto-reply limit reached: 1 automatic replies to b@customer.example/);
    expect(servers.smtp.messages).toHaveLength(1);
  });

  // Mail the agent cannot read: it would answer the subject alone, or an invitation's boilerplate as a question.
  it('parks encrypted mail, winmail.dat alone, calendar invitations and recall requests for a person, without a model call', async () => {
    const running = await run();
    const smime = buildMail({
      messageId: customerMessageId(),
      from: 'a@customer.example',
      subject: 'Encrypted question',
      body: '',
      rawBody: { contentType: 'application/pkcs7-mime; smime-type=enveloped-data; name="smime.p7m"', body: 'MIAGCSqGSIb3DQEHA6CAMIACAQAxggFGMIIBQgIBADAqMCUxIzAh' },
    });
    const tnef = buildMail({
      messageId: customerMessageId(),
      from: 'b@customer.example',
      subject: 'Cannot log in',
      body: '',
      rawBody: {
        contentType: 'multipart/mixed; boundary=b',
        body: ['--b', 'Content-Type: application/ms-tnef; name="winmail.dat"', 'Content-Disposition: attachment; filename="winmail.dat"', '', 'eJ8+IhAAAQaQCAAEAAAAAAABAAEAAQeQBgAIAAAA5AQAAAAAAADoAAEIgAcAGAAAAElQTS5NaWNy', '--b--', ''].join('\n'),
      },
    });
    const invitation = buildMail({
      messageId: customerMessageId(),
      from: 'c@customer.example',
      subject: 'Invitation: Onboarding call @ Wed Nov 25, 2026 10am (JST)',
      body: '',
      rawBody: {
        contentType: 'multipart/alternative; boundary=b',
        body: ['--b', 'Content-Type: text/plain; charset=UTF-8', '', 'You have been invited to the following event.', '--b', 'Content-Type: text/calendar; charset=UTF-8; method=REQUEST', '', 'BEGIN:VCALENDAR', 'METHOD:REQUEST', 'END:VCALENDAR', '--b--', ''].join('\n'),
      },
    });
    const recall = buildMail({
      messageId: customerMessageId(),
      from: 'Kenji Sato <d@customer.example>',
      subject: 'Recall: Cannot log in',
      body: 'Kenji Sato would like to recall the message, "Cannot log in".',
      headers: { 'X-MS-TrafficTypeDiagnostic': 'TY0PR01MB1234:EE_MessageRecallEmail' },
    });
    const reasons: Array<string | undefined> = [];
    for (const raw of [smime, tnef, invitation, recall]) {
      const { ticketId } = await ingest(running, raw);
      const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'ignored', 'failed']);
      expect(ticket.state).toBe('parked');
      reasons.push(ticket.reason);
    }
    expect(reasons).toEqual([
      'encrypted mail (S/MIME): its text cannot be read here',
      "the text is only in winmail.dat (Outlook's rich-text format), which is not read here",
      'calendar invitation (text/calendar; method=REQUEST): a person answers it',
      'recall request (Outlook): the sender asks to withdraw their earlier message "Cannot log in"; a person checks what became of it',
    ]);
    expect(servers.llm.chatRequests()).toHaveLength(0);
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  // The support address as a Google Group delivering to the polled mailbox: every mail carries the group's list
  // headers, and for senders with a strict DMARC policy the group rewrites From to itself with the sender in Reply-To.
  // Our receiving server (AUTHSERV_ID) verified the group's DKIM signature: what makes such mail the group's
  // (test/integration/own-group-forgery.test.ts has the forgeries).
  it('answers customers whose mail came through our own Google Group, each as their own sender', async () => {
    const running = await run({ SUPPORT_GROUP_ADDRESSES: 'help@helpdesk.test', AUTHSERV_ID: 'mx.helpdesk.test' });
    const viaGroup = (customer: string, rewritten: boolean) =>
      buildMail({
        messageId: customerMessageId(),
        from: rewritten ? `'${customer}' via Help <help@helpdesk.test>` : `${customer} <${customer}@customer.example>`,
        to: 'help@helpdesk.test',
        subject: '二段階認証について',
        body: QUESTION,
        headers: {
          ...(rewritten ? { 'Reply-To': `${customer} <${customer}@customer.example>` } : {}),
          'Authentication-Results': `mx.helpdesk.test; dkim=pass header.i=@helpdesk.test header.s=google; spf=pass smtp.mailfrom=help+bncBD1@helpdesk.test; dmarc=pass header.from=${rewritten ? 'helpdesk.test' : 'customer.example'}`,
          'List-ID': '<help.helpdesk.test>',
          'Mailing-list': 'list help@helpdesk.test; contact help+owners@helpdesk.test',
          'List-Post': '<https://groups.google.com/a/helpdesk.test/group/help/post>, <mailto:help@helpdesk.test>',
          'List-Unsubscribe': '<mailto:googlegroups-manage+1234+unsubscribe@googlegroups.com>',
          Precedence: 'list',
          'X-Original-Sender': `${customer}@customer.example`,
        },
      });
    for (const [customer, rewritten] of [['taro', false], ['jiro', true], ['hanako', true]] as const) {
      const { ticketId } = await ingest(running, viaGroup(customer, rewritten));
      const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored', 'failed']);
      expect(ticket.state, ticket.reason).toBe('sent');
      expect(ticket.from).toBe(`${customer}@customer.example`);
    }
    // The same question from two rewritten senders is two customers' question, not one sender's repeat.
    const replies = await servers.smtp.waitFor(3);
    expect(replies.map((r) => r.envelope.to).sort()).toEqual([['hanako@customer.example'], ['jiro@customer.example'], ['taro@customer.example']]);
  });

  it('the same question from the same sender again is parked, naming the first, while the first is answered', async () => {
    const running = await run();
    const ask = (from: string, subject: string, body = QUESTION) => ingest(running, buildMail({ messageId: customerMessageId(), from, subject, body }));
    const first = await ask('Taro <taro@customer.example>', '質問');
    expect((await waitForState(running.store, first.ticketId, ['parked', 'sent'])).state).toBe('sent');
    // Sent again with another subject, the address spelled otherwise and the text re-spaced in full-width: the same question.
    const again = await ask('TARO+support@customer.example', 'Fwd: 質問', `  ${QUESTION.replace('。', '．')}\n`.replace('二段階認証', '二段階認証 '));
    const parked = await waitForState(running.store, again.ticketId, ['parked', 'sent']);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toMatch(new RegExp(`^repeated question: the same sender asked the same under the same subject (?:less than a minute|\\d+ min) ago \\(ticket ${first.ticketId}, sent\\)`));
    // Another question of the same sender, the same under another subject, and the same question of another sender, are answered.
    const other = await ask('taro@customer.example', '質問', 'パスワードの条件を教えてください。');
    const otherSubject = await ask('taro@customer.example', '質問 2');
    const otherSender = await ask('hanako@customer.example', '質問');
    for (const { ticketId } of [other, otherSubject, otherSender]) expect((await waitForState(running.store, ticketId, ['parked', 'sent'])).state).toBe('sent');
    expect(servers.smtp.messages).toHaveLength(4);
  });

  it('two copies of one question at once: exactly one is answered', async () => {
    const running = await run();
    const copies = await Promise.all(
      [1, 2].map(() => ingest(running, buildMail({ messageId: customerMessageId(), from: 'twice@customer.example', subject: '質問', body: QUESTION }))),
    );
    const states = await Promise.all(copies.map(({ ticketId }) => waitForState(running.store, ticketId, ['parked', 'sent'])));
    expect(states.map((t) => t.state).sort()).toEqual(['parked', 'sent']);
    await waitFor(() => servers.smtp.messages.length === 1, 'the one reply');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(servers.smtp.messages).toHaveLength(1);
  });

  // A first copy parked for a person is waiting for that person, not ended (operator walkthrough 8 #1): in learn mode
  // nearly every first draft parks, and a later copy with its own draft let an operator approving both send the
  // customer two replies. So a later copy is parked naming the first, with no draft, however the first came to park.
  it.each<{ name: string; env: Record<string, string>; headers?: Record<string, string>; firstRunFails?: boolean; firstReason: RegExp }>([
    { name: 'REVIEW_MODE=learn, the first draft waiting until its sources are trusted', env: { REVIEW_MODE: 'learn' }, firstReason: /^not yet trusted: / },
    // Every draft waits in `always` (operator walkthrough 8 #1, follow-up): a person approving both would send two.
    { name: 'REVIEW_MODE=always, the first draft waiting for review', env: { REVIEW_MODE: 'always' }, firstReason: /^review mode always$/ },
    {
      name: 'REVIEW_MODE=auto, the first draft parked for a Reply-To on another domain',
      env: {},
      headers: { 'Reply-To': 'taro@elsewhere.example' },
      firstReason: /^Reply-To domain elsewhere\.example differs/,
    },
    { name: 'REVIEW_MODE=auto, the first run failed and left no draft', env: {}, firstRunFails: true, firstReason: /^agent failed permanently: / },
  ])('a repeated question whose first copy is parked for a person is parked too, and one reply goes out: $name', async ({ env, headers, firstRunFails, firstReason }) => {
    if (firstRunFails) servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' ? httpError(400, { message: 'unknown model' }) : undefined) }));
    const running = await run(env);
    const ask = () => ingest(running, buildMail({ messageId: customerMessageId(), from: 'taro@customer.example', subject: 'APIキー', body: QUESTION, ...(headers ? { headers } : {}) }));
    const first = await ask();
    expect((await waitForState(running.store, first.ticketId, ['parked', 'sent'])).reason).toMatch(firstReason);
    servers.llm.setHandler(scriptedModel());
    const modelCalls = servers.llm.chatRequests().length;

    const again = await ask();
    const parked = await waitForState(running.store, again.ticketId, ['parked', 'sent']);
    expect(parked.reason).toMatch(new RegExp(`^repeated question: the same sender asked the same under the same subject (?:less than a minute|\\d+ min) ago \\(ticket ${first.ticketId}, parked\\)`));
    expect(parked.draft ?? '').toBe('');
    expect(parked.history.some((h) => h.to === 'processing')).toBe(false);
    expect(servers.llm.chatRequests()).toHaveLength(modelCalls);

    const redis = await running.services.producer();
    const queues = await running.services.queues();
    if (firstRunFails) {
      // The operator asks for a new draft of the first copy: it is still the one that answers.
      expect(await rerunAgent({ store: running.store, redis, tickets: queues.tickets, config: running.services.config }, { ticketId: first.ticketId, operator: 'anna', forReview: true })).toMatchObject({ outcome: 'requeued' });
      await waitFor(async () => {
        const t = await running.store.require(first.ticketId);
        return t.state === 'parked' && t.draft ? t : undefined;
      }, 'the new draft of the first copy');
    }
    const review = { store: running.store, redis, outbound: queues.outbound, config: running.services.config, tuning: running.services.tuning };
    expect((await approveTicket(review, { ticketId: first.ticketId, operator: 'anna' })).outcome).toBe('approved');
    expect((await waitForState(running.store, first.ticketId, ['sent'])).state).toBe('sent');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(servers.smtp.messages).toHaveLength(1);
    expect((await running.store.require(again.ticketId)).state).toBe('parked');
  });

  it('a repeated question whose first copy a person rejected: the parked later copy can get a draft, and a copy after the rejection is answered', async () => {
    const running = await run({ REVIEW_MODE: 'learn' });
    const ask = () => ingest(running, buildMail({ messageId: customerMessageId(), from: 'taro@customer.example', subject: 'APIキー', body: QUESTION }));
    const first = await ask();
    await waitForState(running.store, first.ticketId, ['parked', 'sent']);
    const again = await ask();
    expect((await waitForState(running.store, again.ticketId, ['parked', 'sent'])).reason).toMatch(/^repeated question: /);

    const redis = await running.services.producer();
    const queues = await running.services.queues();
    expect((await rejectTicket({ store: running.store, redis }, { ticketId: first.ticketId, operator: 'anna', reason: 'wrong manual section' })).outcome).toBe('rejected');
    // The later copy still names the first; the page offers it a new draft (nothing refuses one), parked for review.
    const later = await running.store.require(again.ticketId);
    expect(later.state).toBe('parked');
    expect(whyNoNewDraft(later)).toBeUndefined();
    expect(await rerunAgent({ store: running.store, redis, tickets: queues.tickets, config: running.services.config }, { ticketId: again.ticketId, operator: 'anna', forReview: true })).toMatchObject({ outcome: 'requeued' });
    const redrafted = await waitFor(async () => {
      const t = await running.store.require(again.ticketId);
      return t.state === 'parked' && t.draft ? t : undefined;
    }, 'the new draft of the later copy');
    expect(redrafted.reason).toMatch(/^new draft asked for by anna/);

    // The customer writes a third time: the rejected first copy handed the question over, so this copy gets a draft.
    const third = await ask();
    const answered = await waitForState(running.store, third.ticketId, ['parked', 'sent']);
    expect(answered.reason).toMatch(/^not yet trusted: /);
    expect(answered.draft).toBeTruthy();
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  it.each<{ ended: 'rejected' | 'failed'; path: Array<'parked' | 'rejected' | 'failed'> }>([
    { ended: 'rejected', path: ['parked', 'rejected'] },
    { ended: 'failed', path: ['failed'] },
  ])('a repeated question whose first copy ended $ended is answered; REPEATED_QUESTION_HOURS=0 answers every copy', async ({ path: steps }) => {
    const running = await run();
    const first = await running.store.createIfAbsent(
      newTicket({ messageId: customerMessageId(), from: 'again@customer.example', subject: '質問', question: QUESTION, actor: 'test' }),
    );
    const redis = await running.services.producer();
    const prefix = running.services.config.QUEUE_PREFIX;
    expect(await claimQuestion(redis, prefix, first.ticket, 60_000)).toBeUndefined();
    for (const to of steps) await running.store.transition(first.ticket.id, { to, actor: 'test', note: 'ended without an answer' });
    const second = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'again@customer.example', subject: '質問', body: QUESTION }));
    expect((await waitForState(running.store, second.ticketId, ['parked', 'sent'])).state).toBe('sent');
    expect(await redis.get(repeatedQuestionKey(prefix, first.ticket))).toBe(second.ticketId);
    // Erasing the customer takes the mark too (it is a digest of the address and the question).
    const archiveDir = await mkdtemp(path.join(tmpdir(), 'repeat-forget-'));
    cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
    const erased = await forgetCustomer({ redis, store: running.store, prefix, archiveDir }, 'again@customer.example', { confirm: true });
    expect(erased.rateLimitKeys).toContain(repeatedQuestionKey(prefix, first.ticket));
    expect(await redis.exists(repeatedQuestionKey(prefix, first.ticket))).toBe(0);

    const off = await run({ REPEATED_QUESTION_HOURS: '0' });
    const copies = [];
    for (let i = 0; i < 2; i++) {
      const { ticketId } = await ingest(off, buildMail({ messageId: customerMessageId(), from: 'off@customer.example', subject: '質問', body: QUESTION }));
      copies.push((await waitForState(off.store, ticketId, ['parked', 'sent'])).state);
    }
    expect(copies).toEqual(['sent', 'sent']);
  });

  it('relay: replies to one Reply-To address from many made-up senders stop at the per-recipient limit', async () => {
    const running = await run({ AUTO_REPLY_LIMIT_PER_HOUR: '2' });
    const tickets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const mail = buildMail({
        messageId: customerMessageId(),
        from: `sender${i}@victim.example`,
        subject: `質問${i}`,
        body: QUESTION,
        headers: { 'Reply-To': 'Victim <victim@victim.example>' },
      });
      tickets.push((await ingest(running, mail)).ticketId);
      await waitForState(running.store, tickets[i]!, ['parked', 'sent']);
    }
    const states = await Promise.all(tickets.map((id) => running.store.require(id)));
    expect(states.map((t) => t.state)).toEqual(['sent', 'sent', 'parked', 'parked']);
    expect(states[2]!.reason).toMatch(/^auto-reply limit reached: 2 automatic replies to victim@victim.example in the last hour/);
    expect(servers.smtp.messages).toHaveLength(2);
  });

  it('relay: an overall hourly cap on automatic replies (AUTO_REPLY_LIMIT_TOTAL_PER_HOUR)', async () => {
    const running = await run({ AUTO_REPLY_LIMIT_TOTAL_PER_HOUR: '2' });
    const tickets: string[] = [];
    for (let i = 0; i < 3; i++) {
      tickets.push((await ingest(running, buildMail({ messageId: customerMessageId(), from: `c${i}@customer${i}.example`, subject: `質問${i}`, body: QUESTION }))).ticketId);
      await waitForState(running.store, tickets[i]!, ['parked', 'sent']);
    }
    const last = await running.store.require(tickets[2]!);
    expect(last.state).toBe('parked');
    expect(last.reason).toMatch(/^auto-reply limit reached: 2 automatic replies in the last hour \(AUTO_REPLY_LIMIT_TOTAL_PER_HOUR=2\)/);
    expect(servers.smtp.messages).toHaveLength(2);
  });

  it('relay: a Reply-To on another domain than From is parked with its draft; a trusted domain, or an operator, sends', async () => {
    const running = await run({ TRUSTED_REPLY_TO_DOMAINS: 'helpdesk-partner.example' });
    const foreign = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'someone@customer.example', subject: '質問', body: QUESTION, headers: { 'Reply-To': 'victim@elsewhere.example' } }),
    );
    const parked = await waitForState(running.store, foreign.ticketId, ['parked', 'sent']);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toBe(
      "Reply-To domain elsewhere.example differs from the sender's domain customer.example (not in TRUSTED_REPLY_TO_DOMAINS): a relay, or a web form's mail (a web form's Reply-To is typed by the visitor: check the address before approving)",
    );
    expect(parked.draft).toBeTruthy();
    expect(servers.smtp.attempts).toHaveLength(0);

    const trusted = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'someone@customer.example', subject: '質問2', body: QUESTION, headers: { 'Reply-To': 'desk@helpdesk-partner.example' } }),
    );
    expect((await waitForState(running.store, trusted.ticketId, ['parked', 'sent'])).state).toBe('sent');

    const queues = await running.services.queues();
    const approval = await approveTicket(
      { store: running.store, redis: await running.services.producer(), outbound: queues.outbound, config: running.services.config, tuning: running.services.tuning },
      { ticketId: foreign.ticketId, operator: 'test' },
    );
    expect(approval.outcome).toBe('approved');
    expect((await waitForState(running.store, foreign.ticketId, ['sent', 'parked'])).state).toBe('sent');
    const toVictim = servers.smtp.messages.filter((m) => m.envelope.to.includes('victim@elsewhere.example'));
    expect(toVictim).toHaveLength(1);
  });

  it.each([
    { action: 'ignore', state: 'ignored', reason: /^spam: X-Spam-Flag: YES$/ },
    { action: 'park', state: 'parked', reason: /^spam: X-Spam-Flag: YES$/ },
  ])('mail the spam filter flagged is never answered (SPAM_ACTION=$action → $state)', async ({ action, state, reason }) => {
    const running = await run({ SPAM_ACTION: action });
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'winner@lottery.example', subject: '当選のお知らせ', body: QUESTION, headers: { 'X-Spam-Flag': 'YES', 'X-Spam-Status': 'Yes, score=12.3' } }),
    );
    const ticket = await waitForState(running.store, ticketId, ['ignored', 'parked', 'sent']);
    expect(ticket.state).toBe(state);
    expect(ticket.reason).toMatch(reason);
    expect(servers.llm.chatRequests()).toHaveLength(0);
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  it('a configured filter header (SPAM_HEADER, SPAM_HEADER_VALUE) marks spam too', async () => {
    const running = await run({ SPAM_HEADER: 'X-Rspamd-Action', SPAM_HEADER_VALUE: 'reject' });
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'bulk@offers.example', subject: 'offer', body: QUESTION, headers: { 'X-Rspamd-Action': 'reject' } }),
    );
    const ticket = await waitForState(running.store, ticketId, ['ignored', 'parked', 'sent']);
    expect(ticket.state).toBe('ignored');
    expect(ticket.reason).toBe('spam: X-Rspamd-Action: reject');
  });

  it("ignores an out-of-office notice known only by its subject when it answers a mail, and answers the same subject in a new mail", async () => {
    const running = await run();
    // What a client-side rule or a groupware autoresponder sends back to our reply: no Auto-Submitted, no X-Auto-*.
    const notice = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'c@customer.example', subject: '自動応答: Re: 請求書の宛名について', body: '不在にしております。', inReplyTo: '<our-reply@support.example>' }),
    );
    const ignored = await waitForState(running.store, notice.ticketId, ['ignored', 'parked', 'sent']);
    expect(ignored.state).toBe('ignored');
    expect(ignored.reason).toBe('auto-reply: Subject: 自動応答: Re: 請求書の宛名について');
    const question = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'd@customer.example', subject: '自動応答: 設定できますか', body: QUESTION }));
    expect((await waitForState(running.store, question.ticketId, ['ignored', 'parked', 'sent'])).state).toBe('sent');
  });

  it('decides from the reply signals the ticket recorded at ingest, or from the raw mail for a ticket without them', async () => {
    const prefix = { QUEUE_PREFIX: `t${randomUUID().replaceAll('-', '').slice(0, 16)}` };
    const ingesting = await run(prefix, { agent: false, sender: false });
    const redis = await ingesting.services.producer();
    const auto = await ingest(ingesting, buildMail({ messageId: customerMessageId(), from: 'c@customer.example', subject: '不在', body: QUESTION, headers: { 'Auto-Submitted': 'auto-replied' } }));
    const plain = await ingest(ingesting, buildMail({ messageId: customerMessageId(), from: 'd@customer.example', subject: '質問', body: QUESTION }));
    const stored = await ingesting.store.get(auto.ticketId);
    expect(stored?.replySignals?.headers['auto-submitted']).toEqual(['auto-replied']);
    expect(stored?.replySignals?.from).toEqual({ address: 'c@customer.example', name: '' });
    // The first is decided without its raw mail; the second looks like a ticket stored before signals existed.
    await deleteRaw(redis, prefix.QUEUE_PREFIX, auto.ticketId);
    const key = ingesting.store.keys().ticket(plain.ticketId);
    const { replySignals: _dropped, ...withoutSignals } = JSON.parse((await redis.hget(key, 'doc'))!) as Ticket;
    await redis.hset(key, 'doc', JSON.stringify(withoutSignals));

    const answering = await run(prefix);
    const ignored = await waitForState(answering.store, auto.ticketId, ['ignored', 'parked', 'sent', 'failed']);
    expect(ignored.state).toBe('ignored');
    expect(ignored.reason).toBe('auto-reply: Auto-Submitted: auto-replied');
    expect((await waitForState(answering.store, plain.ticketId, ['sent', 'parked', 'failed'])).state).toBe('sent');
  });

  // A wrong key or a stopped Ollama showed on /readyz only after the first customer's mail had failed and parked.
  it('reports at start, before any ticket, whether the model server can be used', async () => {
    const reportOf = async (running: RunningRoles) => {
      const redis = await running.services.producer();
      return waitFor(async () => (await readRoleStatus(redis, running.services.config.QUEUE_PREFIX, 'agent')).find((r) => r.reachedAt || r.lastFailure), 'the agent worker to report');
    };
    const reached = await reportOf(await run({}, { sender: false }));
    expect(reached.reachedAt).toBeDefined();
    expect(reached.lastFailure).toBeUndefined();
    expect(servers.llm.chatRequests()).toHaveLength(0);

    const refusing = await startRecordingServer();
    cleanups.push(() => refusing.close());
    refusing.on('GET', '/v1/models', () => ({ status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } }));
    const refused = await reportOf(await run({ OPENAI_BASE_URL: `${refusing.url}/v1`, LLM_MAX_RETRIES: '0' }, { sender: false }));
    expect(refused.lastFailure?.message).toMatch(/answered 401: .*Incorrect API key/);

    // A server without a model list (a 404 there) or a key not allowed to list models says nothing about chat.
    const unlisted = await startRecordingServer();
    cleanups.push(() => unlisted.close());
    const silent = await run({ OPENAI_BASE_URL: `${unlisted.url}/v1`, LLM_MAX_RETRIES: '0' }, { sender: false });
    await waitFor(() => unlisted.requests.some((r) => r.path === '/v1/models'), 'the model list asked for');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const reports = await readRoleStatus(await silent.services.producer(), silent.services.config.QUEUE_PREFIX, 'agent');
    expect(reports.filter((r) => r.reachedAt || r.lastFailure)).toEqual([]);
  });

  it('retries temporary LLM failures and answers once', async () => {
    let plans = 0;
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' && ++plans <= 2 ? httpError(503) : undefined) }));
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'c@customer.example', subject: '質問', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state).toBe('sent');
    expect(plans).toBe(3);
    // Attempt 1 claimed the ticket; attempts 2 and 3 re-entered it.
    expect(ticket.history.filter((h) => h.to === 'processing').map((h) => h.from)).toEqual(['received', 'processing', 'processing']);
    expect(servers.smtp.messages).toHaveLength(1);
    // /readyz learned that the model server failed, and that it answered again.
    const redis = await running.services.producer();
    const [report] = await waitFor(async () => {
      const reports = await readRoleStatus(redis, running.services.config.QUEUE_PREFIX, 'agent');
      return reports[0]?.reachedAt && reports[0].lastFailure ? reports : undefined;
    }, "the agent worker's report");
    expect(report!.lastFailure!.message).toBe(`${servers.llm.url} answered 503: 503 scripted HTTP 503`);
    expect(report!.reachedAt!.getTime()).toBeGreaterThanOrEqual(report!.lastFailure!.at.getTime());
  });

  it('parks the ticket with the error when the attempts are used up, or at once for a permanent error', async () => {
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' ? httpError(500, { message: 'model overloaded' }) : undefined) }));
    const running = await run({ AGENT_ATTEMPTS: '2' });
    const temporary = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'd@customer.example', subject: '質問', body: QUESTION }));
    const exhausted = await waitForState(running.store, temporary.ticketId, ['parked', 'sent']);
    expect(exhausted.reason).toBe(
      `agent failed 2 time(s): the model server at ${servers.llm.url} (OPENAI_BASE_URL) failed (500 model overloaded); once it answers, rerun: npm run review -- rerun ${temporary.ticketId.slice(0, 12)}`,
    );

    servers.llm.reset();
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' ? httpError(400, { message: 'unknown model' }) : undefined) }));
    const permanent = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'e@customer.example', subject: '質問', body: QUESTION }));
    const parked = await waitForState(running.store, permanent.ticketId, ['parked', 'sent']);
    expect(parked.reason).toMatch(/^agent failed permanently: .*unknown model/);
    expect(servers.llm.chatRequests()).toHaveLength(1);
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  it('parks with the URL, the variable and the rerun command when the model server cannot be reached', async () => {
    // Nothing listens on the discard port: what a stopped Ollama looks like (newcomer walkthrough 7).
    const running = await run({ AGENT_ATTEMPTS: '2', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'l@customer.example', subject: '質問', body: QUESTION }));
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(parked.reason).toMatch(
      new RegExp(
        `^agent failed 2 time\\(s\\): the model server at http://127\\.0\\.0\\.1:9/v1 \\(OPENAI_BASE_URL\\) could not be reached \\(Connection error\\.[^)]*\\); once it answers, rerun: npm run review -- rerun ${ticketId.slice(0, 12)}$`,
      ),
    );
  });

  it('counts the LLM calls and tokens of attempts that failed after the model had answered some of their steps', async () => {
    // Plan, tool selection, subtask answer and reflection are answered (and billed); the final answer fails.
    const scripted = scriptedModel({ override: (call) => (call.kind === 'final_answer' ? httpError(500, { message: 'model crashed' }) : undefined) });
    servers.llm.setHandler(async (request) => {
      const reply = await scripted(request);
      return reply.type === 'chat' ? { ...reply, usage: { prompt_tokens: 300, completion_tokens: 20 } } : reply;
    });
    const running = await run({ AGENT_ATTEMPTS: '2' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'k@customer.example', subject: '二段階認証', body: QUESTION }));
    expect((await waitForState(running.store, ticketId, ['parked', 'sent'])).reason).toMatch(/^agent failed 2 time\(s\): the model server at .* failed \(500 model crashed\); once it answers, rerun: /);

    const answered = servers.llm.chatRequests().filter((r) => r.status === 200).length;
    expect(answered).toBe(8);
    const redis = await running.services.producer();
    const keys = metricsKeys(running.services.config.QUEUE_PREFIX);
    const counters = await waitFor(async () => {
      const hash = await redis.hgetall(keys.counters);
      return Number(hash.llm_calls ?? 0) >= answered && hash;
    }, 'the failed attempts\' LLM calls to be recorded');
    expect(counters).toMatchObject({ llm_calls: '8', llm_prompt_tokens: '2400', llm_completion_tokens: '160', agent_runs_failed: '2' });
    // No run produced a result: the duration histogram stays empty.
    expect(await redis.hgetall(keys.agentRun)).toEqual({});

    const insights = await readInsights(redis, running.services.config.QUEUE_PREFIX, { days: 1, prices: {} });
    expect(insights.llm).toMatchObject({ agentRuns: 0, calls: 8, promptTokens: 2400, completionTokens: 160 });
    expect(insights.llm.models.map((m) => m.model)).toEqual(['scripted-model']);
  });

  it('parks a drafted ticket whose send job could not be queued on the last attempt, instead of leaving it drafted with no job', async () => {
    const running = await run({ AGENT_ATTEMPTS: '1' }, { sender: false });
    const queues = await running.services.queues();
    // Redis refuses the send job (a key of the wrong type): the draft is stored, its job is not.
    const redis = new Redis(servers.redis.url);
    cleanups.push(async () => void redis.disconnect());
    const meta = `${running.services.config.QUEUE_PREFIX}:outbound:meta`;
    await redis.del(meta);
    await redis.set(meta, 'not-a-hash');
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'g@customer.example', subject: '質問', body: QUESTION }));
    const parked = await waitForState(running.store, ticketId, ['parked']);
    expect(parked.history.map((h) => h.to)).toContain('drafted');
    expect(parked.reason).toMatch(/^agent failed 1 time\(s\); last error: .*WRONGTYPE/);
    expect(parked.draft).toBeTruthy();
    await redis.del(meta);
    expect(await queues.outbound.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0 });

    // The run finished and its result is on the ticket: the model billed its calls, which the counters hold as a run
    // that produced a result (the insights count them from the ticket, once, at its outcome).
    const calls = parked.agent!.llmCalls.length;
    const keys = metricsKeys(running.services.config.QUEUE_PREFIX);
    const counters = await waitFor(async () => ((hash) => (Number(hash.llm_calls ?? 0) >= calls ? hash : undefined))(await redis.hgetall(keys.counters)), "the run's calls in the counters");
    expect(counters.llm_calls).toBe(String(calls));
    expect(counters.agent_runs_failed).toBeUndefined();
    expect(await redis.hget(keys.agentRun, 'count')).toBe('1');
  });

  it.each([
    ['cut off by the token limit', { type: 'chat' as const, content: '二段階認証の設定は、「設定」→「セ', finishReason: 'length' as const }, /cut off/],
    ['with the model\'s reasoning in it', textResponse('<think>お客様は認証アプリについて聞いている。</think>\n二段階認証は「設定」→「セキュリティ」から設定できます。'), /reasoning/],
    ['only a greeting and a closing', textResponse('お世話になっております。\n\nよろしくお願いいたします。'), /no answer/],
    ['in another language than the question', textResponse("I'm sorry, but I can't assist with that request."), /language/],
    ['longer than any reply', textResponse(`二段階認証の設定方法です。${'詳しくはマニュアルをご覧ください。'.repeat(2_000)}`), /longer than/],
    // What a prompt injection in the customer's mail, or a model's invention, would send our customers to.
    ['with a link the knowledge it found does not have', textResponse('二段階認証の設定はこちらで本人確認のうえ行えます: https://xyz-login.evil.example/verify'), /links, addresses or phone numbers .*https:\/\/xyz-login\.evil\.example\/verify/],
    ['with an address the knowledge it found does not have', textResponse('認証コードを security@evil.example までご返信ください。'), /links, addresses or phone numbers .*security@evil\.example/],
    ['with a phone number the knowledge it found does not have', textResponse('本人確認のため 03-1234-5678 までお電話ください。'), /links, addresses or phone numbers .*03-1234-5678/],
    ['asking the customer to send a secret by mail', textResponse('本人確認のため、現在のパスワードを返信でお知らせください。'), /password, PIN or code by mail/],
  ])('parks a final answer %s instead of sending it', async (_name, finalAnswer, reason) => {
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'final_answer' ? finalAnswer : undefined) }));
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'h@customer.example', subject: '二段階認証', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toMatch(reason);
    expect(ticket.draft).toBeTruthy();
    expect(servers.smtp.attempts).toHaveLength(0);
  });

  it("sends a follow-up's answer that repeats a link of our earlier reply in the thread", async () => {
    const HELP = 'https://help.xyz-system.example.jp';
    const answer = textResponse(`ヘルプセンター（${HELP}）をご覧ください。`);
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'final_answer' ? answer : undefined) }));
    const running = await run();
    const first = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'h@customer.example', subject: 'ヘルプセンター', body: 'ヘルプセンターではどのようなサービスを提供していますか？' }));
    const answered = await waitForState(running.store, first.ticketId, ['parked', 'sent']);
    expect(answered.state, answered.reason).toBe('sent');
    // The follow-up's searches find the password rules, not the help centre: the link is vouched for by our reply.
    const followUp = await ingest(
      running,
      buildMail({ messageId: customerMessageId(), from: 'h@customer.example', subject: 'Re: ヘルプセンター', body: 'パスワードの条件を教えてください。', inReplyTo: answered.outbound!.messageId }),
    );
    const ticket = await waitForState(running.store, followUp.ticketId, ['parked', 'sent']);
    expect(JSON.stringify(ticket.agent?.subtasks.map((s) => s.toolResults))).not.toContain(HELP);
    expect(ticket.state, ticket.reason).toBe('sent');
  });

  it('sends a final answer whose link is on a trusted domain (TRUSTED_LINK_DOMAINS)', async () => {
    const answer = textResponse('二段階認証の設定方法は https://help.xyz-system.example.jp/2fa にも掲載しています。');
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'final_answer' ? answer : undefined) }));
    const running = await run({ TRUSTED_LINK_DOMAINS: 'xyz-system.example.jp' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'h@customer.example', subject: '二段階認証', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(ticket.state, ticket.reason).toBe('sent');
  });

  it.each([
    ['a plan that is not JSON', 'plan', textResponse('サブタスク: 二段階認証の設定')],
    ['a plan cut off by the token limit', 'plan', { type: 'chat' as const, content: '{"subtasks": ["二段階認', finishReason: 'length' as const }],
    ['a reflection with a field of the wrong type', 'reflection', jsonResponse({ advice: '', isCompleted: 'true' })],
    ['a reflection in a markdown fence', 'reflection', textResponse('```json\n{"advice": "", "isCompleted": true}\n```')],
  ])('goes on after %s instead of repeating the whole run', async (_name, step, bad) => {
    let served = 0;
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === step && served++ === 0 ? bad : undefined) }));
    const running = await run({ AGENT_ATTEMPTS: '1' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'i@customer.example', subject: '二段階認証', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(ticket.reason ?? '').not.toMatch(/agent failed/);
    expect(ticket.agent?.answer).toBeTruthy();
  });

  it('does not wait out a long Retry-After of a rate-limited server in the job: it fails the attempt for a later retry', async () => {
    // A quota-exhausted gateway asks for an hour: the SDK would sleep through it, holding the ticket and a worker slot.
    servers.llm.setHandler(scriptedModel({ override: (call) => (call.kind === 'plan' ? httpError(429, { message: 'quota exceeded', retryAfterSeconds: 3600 }) : undefined) }));
    // The SDK's retries on, as in production (the tests turn them off elsewhere).
    const running = await run({ AGENT_ATTEMPTS: '1', LLM_MAX_RETRIES: '2' });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'j@customer.example', subject: '質問', body: QUESTION }));
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(parked.reason).toBe(
      `agent failed 1 time(s): the model server at ${servers.llm.url} (OPENAI_BASE_URL) refused more requests: rate limit or quota (429 quota exceeded); once the account's quota or rate limit allows, rerun: npm run review -- rerun ${ticketId.slice(0, 12)}`,
    );
    expect(servers.llm.chatRequests()).toHaveLength(1);
  });

  it('does nothing for a duplicate job of a ticket already answered', async () => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'f@customer.example', subject: '質問', body: QUESTION }));
    await waitForState(running.store, ticketId, ['sent']);
    const requests = servers.llm.chatRequests().length;
    const queues = await running.services.queues();
    const job = await queues.tickets.add('answer-ticket', { ticketId }, { jobId: `answer-${ticketId}-dup` });
    await waitFor(async () => (await job.isCompleted()) && true, 'the duplicate job to complete');
    expect((await queues.tickets.getJob(job.id!))?.returnvalue).toMatchObject({ outcome: 'skipped', state: 'sent' });
    expect(servers.llm.chatRequests()).toHaveLength(requests);
    expect(servers.smtp.messages).toHaveLength(1);
  });
});
