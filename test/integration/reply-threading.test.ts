/**
 * Threading headers of real replies, through ingest, the agent worker and the sender to a real SMTP server: a mail
 * whose Message-ID another mail already holds, ids without `@` or with several, an empty subject, and customer
 * addresses outside ASCII (a server without SMTPUTF8 refusing one; a Unicode domain as punycode).
 *
 * Cases from the mikel-mail corpus audit (tmp/audit-corpus/run-C.json): rfc2822/example12 and
 * plain_emails/raw_email_simple (a Message-ID already taken), error_emails/content_transfer_encoding_empty and
 * plain_emails/raw_email_double_at_in_header (odd ids), rfc6532/utf8_headers (a UTF-8 address).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { LOOPBACK } from '../../src/dev/ports.js';
import type { ReceivedMessage } from '../../src/dev/smtp-receiver.js';
import { refusedThreadNote } from '../../src/mail/ingest.js';
import {
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

// A question the scripted model answers (in Japanese), so the reply goes out without review.
const QUESTION = 'パスワードの条件を教えてください。';

let servers: PipelineServers;
let strict: StrictSmtpServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  [servers, strict] = await Promise.all([startPipelineServers(), startStrictSmtpServer()]);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  strict.clear();
});
afterAll(async () => {
  await Promise.allSettled([servers?.stop(), strict?.stop()]);
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

/** The reply the SMTP receiver took for `address`. */
function replyTo(address: string): ReceivedMessage {
  const found = servers.smtp.messages.filter((m) => m.envelope.to.includes(address));
  expect(found, `replies to ${address}`).toHaveLength(1);
  return found[0]!;
}

/** The References of a received reply, as a list. */
function referencesOf(message: ReceivedMessage): string[] {
  const refs = message.parsed.references;
  return refs === undefined ? [] : Array.isArray(refs) ? refs : [refs];
}

/** A raw mail written in UTF-8 as RFC 6532 allows (addresses and all), as rfc6532/utf8_headers is. */
function utf8Mail(from: string, messageId: string): Buffer {
  return Buffer.from(
    [
      `From: ${from}`,
      'To: support@helpdesk.test',
      'Subject: パスワード',
      `Date: ${new Date().toUTCString()}`,
      `Message-ID: ${messageId}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      QUESTION,
      '',
    ].join('\r\n'),
    'utf8',
  );
}

describe('a mail whose Message-ID another mail already holds', () => {
  it("is answered threaded under its own Message-ID, and a later mail naming that id joins only its sender's conversation", async () => {
    const running = await run();
    const shared = customerMessageId('shared');
    const first = await ingest(running, buildMail({ messageId: shared, from: 'Ann <ann@customer.example>', subject: 'パスワード', body: QUESTION, date: 'Mon, 2 Mar 2026 10:00:00 +0900' }));
    const second = await ingest(running, buildMail({ messageId: shared, from: 'Bob <bob@other.example>', subject: 'パスワード', body: QUESTION, date: 'Mon, 2 Mar 2026 11:00:00 +0900' }));
    expect(second.ticketId).not.toBe(first.ticketId);
    const [ann, bob] = await Promise.all([waitForState(running.store, first.ticketId, ['sent', 'parked']), waitForState(running.store, second.ticketId, ['sent', 'parked'])]);
    expect([ann.state, bob.state], `${ann.reason} / ${bob.reason}`).toEqual(['sent', 'sent']);

    // The second ticket is keyed apart, and keeps the mail's own id for the reply.
    expect(bob.messageId).toMatch(/@no-message-id\.invalid>$/);
    expect(bob.mailMessageId).toBe(shared);
    expect(ann).not.toHaveProperty('mailMessageId');
    for (const address of ['ann@customer.example', 'bob@other.example']) {
      const reply = replyTo(address);
      expect(reply.headers.get('in-reply-to')).toBe(shared);
      expect(referencesOf(reply)).toEqual([shared]);
    }

    // Bob answers our reply: it names our reply first, so it joins his conversation.
    const bobAgain = await ingest(
      running,
      buildMail({ messageId: customerMessageId('bob2'), from: 'Bob <bob@other.example>', subject: 'Re: パスワード', body: 'ありがとうございます。', inReplyTo: bob.outbound!.messageId, references: [shared, bob.outbound!.messageId] }),
    );
    expect((await running.store.require(bobAgain.ticketId)).conversationId).toBe(bob.conversationId);
    // A mail naming only the shared id is Ann's thread by the index; Bob took no part in it, so he does not join it.
    const bobShared = await ingest(running, buildMail({ messageId: customerMessageId('bob3'), from: 'Bob <bob@other.example>', subject: 'Re: パスワード', body: 'もう一つ質問があります。', inReplyTo: shared }));
    const refused = await running.store.require(bobShared.ticketId);
    expect(refused.conversationId).toBe(refused.id);
    expect(refused.history[0]!.note).toContain(refusedThreadNote(ann.id));
    const annShared = await ingest(running, buildMail({ messageId: customerMessageId('ann2'), from: 'Ann <ann@customer.example>', subject: 'Re: パスワード', body: 'もう一つ質問があります。', inReplyTo: shared }));
    expect((await running.store.require(annShared.ticketId)).conversationId).toBe(ann.conversationId);
  });
});

describe('Message-IDs that are not <local@domain>', () => {
  it.each([
    ['without @', '<11107978796724623>', 'numeric@customer.example'],
    ['with several @', '<d3b8cf8e49f0448085@0c28713a1@f473e@37signals.com>', 'jamis@customer.example'],
  ])('a reply threads to an id %s', async (_case, messageId, from) => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId, from, subject: 'パスワード', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    const reply = replyTo(from);
    expect(reply.headers.get('in-reply-to')).toBe(messageId);
    expect(referencesOf(reply)).toEqual([messageId]);
  });
});

describe('a mail without a subject', () => {
  it("gets a reply under `Re: ` and a placeholder in the reply's language", async () => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('nosubject'), from: 'nosubject@customer.example', subject: '', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(replyTo('nosubject@customer.example').subject).toBe('Re: (件名なし)');
  });
});

describe('a customer address outside ASCII', () => {
  it('parks the reply with the reason at once when a server without SMTPUTF8 refuses the address', async () => {
    const running = await run({ SMTP_PORT: String(strict.port) });
    const { ticketId } = await ingest(running, utf8Mail('"Jöhn Doe" <jdöe@mächine.example>', customerMessageId('utf8')));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toBe(
      "the customer's address needs SMTPUTF8, which the SMTP server does not offer (SMTP server answered 553 5.6.7 Must declare SMTPUTF8 to send unicode address)",
    );
    // Refused once, not retried until SENDER_ATTEMPTS ran out.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(strict.commands.filter((c) => /^RCPT TO:/i.test(c))).toEqual(['RCPT TO:<jdöe@mächine.example>']);
    expect(strict.received).toBe(0);
    expect((await running.store.require(ticketId)).state).toBe('parked');
  });

  it('sends a Unicode domain as punycode, so a server without SMTPUTF8 takes the reply', async () => {
    const running = await run({ SMTP_PORT: String(strict.port) });
    const { ticketId } = await ingest(running, utf8Mail('John Doe <jdoe@mächine.example>', customerMessageId('idn')));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(strict.commands.filter((c) => /^(MAIL FROM|RCPT TO):/i.test(c))).toEqual(['MAIL FROM:<support@helpdesk.test>', 'RCPT TO:<jdoe@xn--mchine-bua.example>']);
    expect(strict.received).toBe(1);
    // The customer's name beside the address, the address still punycode.
    expect(strict.lastHead).toMatch(/^To: John Doe <jdoe@xn--mchine-bua\.example>$/m);
  });
});

/**
 * An SMTP server that does not offer SMTPUTF8 and refuses an address outside ASCII given without it, with Postfix's
 * words. `src/dev/smtp-receiver.ts` always offers SMTPUTF8, and the `smtp-server` library started with
 * `hideSMTPUTF8` takes such an address anyway (nodemailer sends it without the keyword): a strict server is what
 * the sender meets in the field.
 */
interface StrictSmtpServer {
  port: number;
  /** Client command lines, in order. */
  commands: string[];
  /** Messages taken. */
  received: number;
  /** The header section of the last message taken. */
  lastHead: string;
  clear(): void;
  stop(): Promise<void>;
}

async function startStrictSmtpServer(): Promise<StrictSmtpServer> {
  const state = { commands: [] as string[], received: 0, lastHead: '' };
  const record = (...args: unknown[]) => {
    const [meta, , line] = args as [{ tnx?: string } | undefined, string, string];
    if (meta?.tnx === 'command' && typeof line === 'string') state.commands.push(line);
  };
  const quiet = () => undefined;
  const server = new SMTPServer({
    hideSMTPUTF8: true,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    closeTimeout: 100,
    logger: { debug: record, info: quiet, warn: quiet, error: quiet, trace: quiet, fatal: quiet } as never,
    onRcptTo(_address, session, callback) {
      const args = session.envelope.mailFrom ? session.envelope.mailFrom.args : false;
      const declared = args !== false && (args as Record<string, unknown>)['SMTPUTF8'] === true;
      // The command as it came over the wire: the library hands the handler a punycode domain decoded to Unicode.
      const line = state.commands.at(-1) ?? '';
      if (/[^\x00-\x7f]/.test(line) && !declared) {
        callback(Object.assign(new Error('5.6.7 Must declare SMTPUTF8 to send unicode address'), { responseCode: 553 }));
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.received += 1;
        state.lastHead = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n')[0] ?? '';
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve((server.server.address() as AddressInfo).port));
  });
  return {
    port,
    get commands() {
      return state.commands;
    },
    get received() {
      return state.received;
    },
    get lastHead() {
      return state.lastHead;
    },
    clear() {
      state.commands = [];
      state.received = 0;
      state.lastHead = '';
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
