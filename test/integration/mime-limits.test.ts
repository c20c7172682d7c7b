/**
 * Mail the parser reads only in part or not at all (hostile-MIME stress review), through ingest and the agent worker
 * against real Redis, the SMTP receiver and the scripted model:
 * - F1: a question past the 500-part cut or the 2,000,000-character HTML cut is parked before the agent (no model
 *   call, nothing sent) with a reason an operator understands, which the review page shows;
 * - F2: a mail whose header section is over mailparser's limit is parked with From, Reply-To and Subject from the
 *   IMAP envelope, its raw copy charged to that sender, and `forget` finds it by that address;
 * - F3: two From fields, or a From of many addresses (whatever a Sender says): the draft waits for a person.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { ingestMessage, type EnvelopeInfo } from '../../src/mail/ingest.js';
import { TEXT_NOT_READ_WHOLE } from '../../src/mail/parse.js';
import { rawBudgetSenderKey, rawKey } from '../../src/mail/raw-store.js';
import { renderTicketDetail } from '../../src/server/views.js';
import { whyNoNewDraft } from '../../src/tickets/review.js';
import { forgetCustomer } from '../../src/tickets/retention.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import {
  FAST_TUNING,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
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
  servers.llm.setHandler(scriptedModel());
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

async function run(overrides: Record<string, string> = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, overrides));
  const running = await startRoles(config);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

const CRLF = '\r\n';
const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';
// A subject the model can answer: what the customer's mail would have been answered from.
const SUBJECT = 'パスワードのリセット方法を教えてください';
const FINAL = ['sent', 'parked', 'ignored', 'failed'] as const;

function nested(depth: number, text: string): string {
  let inner = `Content-Type: text/plain; charset=utf-8${CRLF}${CRLF}${text}${CRLF}`;
  for (let i = depth; i >= 1; i--) inner = `Content-Type: multipart/mixed; boundary="b${i}"${CRLF}${CRLF}--b${i}${CRLF}${inner}--b${i}--${CRLF}`;
  return inner;
}

describe('F1: text past a parser limit', () => {
  it('parks the mail before the agent, names the cut, and the review page shows it', async () => {
    const running = await run({ REVIEW_MODE: 'auto' });
    const cases = [
      {
        raw: buildMail({ messageId: customerMessageId(), from: 'a@customer.example', subject: SUBJECT, body: '', rawBody: { contentType: 'multipart/mixed; boundary="top"', body: `--top${CRLF}${nested(5000, '請求書の宛名を変更できますか？')}--top--${CRLF}` } }),
        reason: `${TEXT_NOT_READ_WHOLE} (only its first 500 MIME parts were read)`,
      },
      {
        raw: buildMail({
          messageId: customerMessageId(),
          from: 'b@customer.example',
          subject: SUBJECT,
          body: '',
          rawBody: { contentType: 'text/html; charset=utf-8', body: `<html><head><style>${'.a{color:red}'.repeat(400_000)}</style></head><body><p>請求書の宛名を変更できますか？ 至急ご連絡ください。</p></body></html>` },
        }),
        reason: `${TEXT_NOT_READ_WHOLE} (only the first 2,000,000 characters of its HTML were read)`,
      },
    ];
    for (const { raw, reason } of cases) {
      const { ticketId } = await ingest(running, raw);
      const ticket = await waitForState(running.store, ticketId, [...FINAL]);
      expect(ticket.state, ticket.reason).toBe('parked');
      expect(ticket.reason).toBe(reason);
      expect(ticket.unreadable).toBe(reason);
      expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
      // A new draft would answer the subject alone again.
      expect(whyNoNewDraft(ticket)).toContain(reason);
      const page = String(renderTicketDetail({ ticket, mailText: undefined, now: new Date(), csrfToken: 't', user: 'anna' })).replaceAll('&#39;', "'");
      expect(page).toContain(reason);
    }
    expect(servers.llm.chatRequests()).toHaveLength(0);
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});

describe('F2: a header section over the parser limit', () => {
  it('is parked as its envelope names it, charged to that sender, and forget finds it', async () => {
    const running = await run();
    const { services } = running;
    const redis = await services.producer();
    const prefix = services.config.QUEUE_PREFIX;
    const deps = { redis, store: running.store, ticketsQueue: (await services.queues()).tickets, prefix, config: services.config, tuning: FAST_TUNING };
    const many = Array.from({ length: 100_000 }, (_, i) => `X-H${i}: v${i}`);
    const raw = buildMail({ messageId: customerMessageId(), from: 'Hanako <hanako@customer.example>', subject: SUBJECT, body: QUESTION, headers: Object.fromEntries(many.map((h) => h.split(': ') as [string, string])) });
    const envelope: EnvelopeInfo = {
      messageId: '<envelope-only@customer.example>',
      subject: SUBJECT,
      from: [{ name: 'Hanako', address: 'hanako@customer.example' }],
      replyTo: [{ name: 'Hanako', address: 'hanako@customer.example' }],
    };
    const result = await ingestMessage(raw, deps, { envelope, place: 'INBOX/7' });
    expect(result.outcome).toBe('parked');
    const ticket = await running.store.require(result.ticketId);
    expect(ticket).toMatchObject({
      state: 'parked',
      from: 'hanako@customer.example',
      fromName: 'Hanako',
      replyTo: 'hanako@customer.example',
      subject: SUBJECT,
      reason: "unreadable mail: its header section is over the parser's limit of 1 MB per MIME part (Max header size for a MIME node exceeded)",
    });
    expect(await redis.exists(rawKey(prefix, ticket.id))).toBe(1);
    expect(await redis.exists(rawBudgetSenderKey(prefix, 'hanako@customer.example'))).toBe(1);
    expect(await redis.exists(rawBudgetSenderKey(prefix, ''))).toBe(0);

    const archiveDir = await mkdtemp(path.join(tmpdir(), 'mime-limits-forget-'));
    cleanups.push(() => rm(archiveDir, { recursive: true, force: true }));
    const forget = { redis: new Redis(servers.redis.url, { maxRetriesPerRequest: 1 }), store: running.store, prefix, archiveDir };
    cleanups.push(async () => void forget.redis.disconnect());
    const dryRun = await forgetCustomer(forget, 'hanako@customer.example', { confirm: false });
    expect(dryRun.tickets.map((t) => t.id)).toEqual([ticket.id]);
    await forgetCustomer(forget, 'hanako@customer.example', { confirm: true });
    expect(await running.store.get(ticket.id)).toBeUndefined();
    expect(await redis.exists(rawKey(prefix, ticket.id))).toBe(0);
  });
});

describe('F3: the sender cannot be told', () => {
  it('holds the draft of a mail with two From fields or a From of many addresses', async () => {
    const running = await run({ REVIEW_MODE: 'auto' });
    const twoFields = buildMail({ messageId: customerMessageId(), from: 'Bank <notice@bank.example>', subject: '二段階認証について', body: QUESTION, headers: { from: 'Attacker <x@attacker.example>' } });
    const many = buildMail({ messageId: customerMessageId(), from: Array.from({ length: 1000 }, (_, i) => `u${i} <u${i}@customer.example>`).join(`,${CRLF} `), subject: '二段階認証について', body: QUESTION });
    const reasons = [];
    for (const raw of [twoFields, many]) {
      const { ticketId } = await ingest(running, raw);
      const ticket = await waitForState(running.store, ticketId, [...FINAL]);
      expect(ticket.state, ticket.reason).toBe('parked');
      expect(ticket.draft).toBeTruthy();
      reasons.push(ticket.reason);
    }
    expect(reasons).toEqual([
      'the sender cannot be told: 2 From fields (notice@bank.example, x@attacker.example); RFC 5322 allows one, and a reply would go to the first',
      'the sender cannot be told: a From of 1,000 addresses (u0@customer.example, u1@customer.example, …); a reply would go to the first, and a Sender field does not choose it',
    ]);
    // One From of one address is answered as ever.
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from: 'Taro <taro@customer.example>', subject: '二段階認証について', body: QUESTION }));
    expect((await waitForState(running.store, ticketId, [...FINAL])).state).toBe('sent');
    expect(servers.smtp.messages).toHaveLength(1);
  });
});
