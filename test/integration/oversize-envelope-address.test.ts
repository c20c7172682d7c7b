/**
 * A mail too large to download is parked from its IMAP envelope (Dovecot, the real poller): its From and Reply-To get
 * the check a parsed mail's get (isUsableAddress), so a Reply-To that reads as two recipients (a quoted local part
 * with a comma), a domain literal or a percent-hack route is no address to reply to, and an operator's approval sends
 * to the From alone, or, with no usable From either, is parked instead of sent. The sender refuses such an address on
 * a ticket stored before the check too: a reply goes to the ticket's one recipient or nowhere.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { approveTicket } from '../../src/tickets/review.js';
import { newTicket, ticketIdFor, type Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitFor, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let prefix: string;

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
  const config = parseConfig(pipelineEnv(servers, { MAX_EMAIL_BYTES: '4096' }));
  prefix = config.QUEUE_PREFIX;
  running = await startRoles(config, { poller: true });
});
afterEach(() => {
  servers.smtp.clear();
});
afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, prefix);
  await servers?.stop();
});

/** Delivers a mail over MAX_EMAIL_BYTES to the mailbox and waits for the ticket the poller parks from its envelope. */
async function parkedOversize(from: string, headers: Record<string, string>): Promise<Ticket> {
  const messageId = customerMessageId('big');
  await servers.imap!.deliver(buildMail({ messageId, from, subject: '見積書の件', headers, body: 'x '.repeat(5_000) }));
  const ticket = await waitFor(() => running.store.get(ticketIdFor(messageId)), 'the oversize mail parked', 20_000);
  expect(ticket.state).toBe('parked');
  expect(ticket.reason).toMatch(/over MAX_EMAIL_BYTES/);
  return ticket;
}

async function approve(ticketId: string): Promise<void> {
  const queues = await running.services.queues();
  const deps = { store: running.store, redis: await running.services.producer(), outbound: queues.outbound, config: running.services.config, tuning: running.services.tuning };
  const approval = await approveTicket(deps, { ticketId, operator: 'test', reply: 'ファイルはリンクでお送りください。' });
  expect(approval.outcome).toBe('approved');
}

describe('an oversize mail parked from its envelope', () => {
  it.each([
    ['a quoted local part with a comma', '"victim1@bank.example,victim2"@customer.example'],
    ['a domain literal', 'victim@[127.0.0.1]'],
    ['a percent-hack route', 'victim%bank.example@customer.example'],
  ])('a Reply-To with %s is no address to reply to: the approved reply goes to the From alone', async (_case, replyTo) => {
    const ticket = await parkedOversize('Taro <taro@customer.example>', { 'Reply-To': replyTo });
    expect(ticket.from).toBe('taro@customer.example');
    expect(ticket.replyTo).toBe('taro@customer.example');
    await approve(ticket.id);
    expect((await waitForState(running.store, ticket.id, ['sent', 'parked'], 20_000)).state).toBe('sent');
    const [reply] = await servers.smtp.waitFor(1);
    expect(reply!.envelope.to).toEqual(['taro@customer.example']);
    expect(servers.smtp.attempts).toHaveLength(1);
  });

  it('a From with no usable address and no Reply-To makes a ticket without a sender: its approved reply is parked, nothing sent', async () => {
    const ticket = await parkedOversize('Victim <victim%bank.example@customer.example>', {});
    expect(ticket.from).toBe('');
    expect(ticket.replyTo).toBe('');
    await approve(ticket.id);
    const parked = await waitFor(async () => {
      const t = await running.store.get(ticket.id);
      return t?.state === 'parked' && t.history.some((h) => h.to === 'approved') ? t : undefined;
    }, 'the approved reply parked by the sender', 20_000);
    expect(parked.reason).toBe('the reply would not go to exactly one address a reply may go to: the ticket has no address to reply to');
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});

// Tickets parked from an envelope before the check still hold the address as imapflow decoded it.
describe('the sender', () => {
  it.each([
    ['a quoted local part with a comma, as imapflow decodes it', 'victim1@bank.example,victim2@customer.example'],
    ['a domain literal', 'victim@[127.0.0.1]'],
    ['a percent-hack route', 'victim%bank.example@customer.example'],
  ])('parks an approved reply to a Reply-To with %s stored before the check, sending nothing', async (_case, replyTo) => {
    const ticket = newTicket({
      messageId: customerMessageId('old'),
      from: 'taro@customer.example',
      replyTo,
      subject: '見積書の件',
      question: '',
      state: 'parked',
      reason: 'message is 13.7 KB, over MAX_EMAIL_BYTES (4 KB); not downloaded',
      actor: 'poller',
    });
    await running.store.createIfAbsent(ticket);
    await approve(ticket.id);
    const parked = await waitFor(async () => {
      const t = await running.store.get(ticket.id);
      return t?.state === 'parked' && t.history.some((h) => h.to === 'approved') ? t : undefined;
    }, 'the approved reply parked by the sender', 20_000);
    expect(parked.reason).toBe(`the reply would not go to exactly one address a reply may go to: ${JSON.stringify(replyTo)} is not a plain local@domain address`);
    expect(parked.outbound?.sentAt).toBeUndefined();
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});
