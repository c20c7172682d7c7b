/**
 * Replies to the legacy Japanese carrier addresses docomo and au issued until 2009 (`hanako.@ezweb.ne.jp`,
 * `taro..yamada@docomo.ne.jp`): RFC 5322 wants their local part quoted, their owners write them bare or quoted, and
 * the carriers' servers take them. Through ingest, the agent worker and the sender (nodemailer) to a real SMTP server:
 * the mail is answered, not ignored, and the reply goes to the customer's mailbox, its local part quoted.
 *
 * Case from real-world mail audit 5 (finding 1: a bare and a quoted `hanako.@ezweb.ne.jp` were ignored as `no-sender`).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { normaliseAddress } from '../../src/mail/addresses.js';
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
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
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

/** The header section of a raw message, folded lines joined. */
function headOf(raw: Buffer): string {
  return (raw.toString('utf8').split('\r\n\r\n')[0] ?? '').replace(/\r\n[ \t]+/g, ' ');
}

describe('a customer writing from a legacy carrier address with a dot before the @', () => {
  it.each([
    ['bare, as the carrier writes it', 'hanako.@ezweb.ne.jp', 'To: <"hanako."@ezweb.ne.jp>'],
    ['quoted in angle brackets with a name', 'Hanako <"hanako."@ezweb.ne.jp>', 'To: Hanako <"hanako."@ezweb.ne.jp>'],
  ])('gets a reply, its local part quoted in the envelope and the To header (From %s)', async (_how, from, toHeader) => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('ezweb'), from, subject: 'パスワード', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(ticket.replyTo).toBe('hanako.@ezweb.ne.jp');

    const [reply] = await servers.smtp.waitFor(1);
    expect(servers.smtp.messages).toHaveLength(1);
    // smtp-server hands on the RCPT TO address as the command wrote it, quotes and all.
    expect(reply!.envelope.to).toEqual(['"hanako."@ezweb.ne.jp']);
    expect(headOf(reply!.raw).split('\r\n').filter((line) => /^To:/i.test(line))).toEqual([toHeader]);
    // The To header names the ticket's mailbox as our own address parsing reads it (the customer's reply quotes it).
    expect(normaliseAddress(toHeader.slice('To:'.length))).toBe(ticket.replyTo);
  });
});

describe('a customer writing from a legacy carrier address with two dots in a row', () => {
  // smtp-server's strict parsing refuses `..` even inside a quoted local part (RFC 5321 allows it there, and Postfix
  // takes it); the dev receiver parses leniently, as a carrier-facing MTA does.
  it('gets a reply with the local part quoted', async () => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('docomo'), from: 'taro..yamada@docomo.ne.jp', subject: 'パスワード', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('sent');
    const [reply] = await servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['"taro..yamada"@docomo.ne.jp']);
    expect(headOf(reply!.raw).split('\r\n').filter((line) => /^To:/i.test(line))).toEqual(['To: <"taro..yamada"@docomo.ne.jp>']);
  });
});
