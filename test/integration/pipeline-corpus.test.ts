/**
 * Every raw mail of the shared real-world corpus (mikel/mail fixtures, written by nobody on this team) through the
 * real pipeline: ingest, the agent worker against the scripted model, the sender against the SMTP receiver. The
 * unit test `mail-corpus.test.ts` pins how each mail parses and whether it is answered; this one checks what the
 * customer and the operator see: every mail ends as a ticket in a final state with a reason, none stalls or crashes
 * a role, no mail gets more than one reply, and each reply goes to its own sender and threads under its mail.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { MAIL_CORPUS_DIR, mailCorpusFiles } from '../support/mail-corpus.js';
import { ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

/** The states a ticket rests in: nothing more happens without a person. */
const FINAL_STATES = ['sent', 'parked', 'ignored', 'failed'] as const;

let servers: PipelineServers;
let running: RunningRoles;
let prefix: string;

beforeAll(async () => {
  servers = await startPipelineServers();
  // The corpus has many mails from the same few senders: lift the hourly limits so every one gets its full path.
  const config = parseConfig(
    pipelineEnv(servers, { AUTO_REPLY_LIMIT_PER_HOUR: '1000', AUTO_REPLY_LIMIT_TOTAL_PER_HOUR: '1000', AGENT_CONCURRENCY: '4' }),
  );
  prefix = config.QUEUE_PREFIX;
  running = await startRoles(config);
});

afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, prefix);
  await servers?.stop();
});

describe('the real-world mail corpus through the whole pipeline', () => {
  it('ends every mail as a ticket in a final state with a reason, answers none twice, and threads each reply', async () => {
    const files = mailCorpusFiles();
    expect(files.length, `the corpus at ${MAIL_CORPUS_DIR} (CI clones ../shared beside the repository)`).toBeGreaterThan(90);

    const ticketOf = new Map<string, string>();
    for (const file of files) {
      const { ticketId } = await ingest(running, readFileSync(path.join(MAIL_CORPUS_DIR, file)));
      ticketOf.set(file, ticketId);
    }
    const tickets = new Map<string, Ticket>();
    for (const [file, ticketId] of ticketOf) {
      if (tickets.has(ticketId)) continue;
      const ticket = await waitForState(running.store, ticketId, FINAL_STATES, 60_000).catch((err: Error) => {
        throw new Error(`${file}: ${err.message}`);
      });
      tickets.set(ticketId, ticket);
    }

    const byState = (state: string) => [...tickets.values()].filter((t) => t.state === state);
    // Every ticket that did not get a reply says why, for the operator.
    for (const ticket of [...byState('parked'), ...byState('ignored'), ...byState('failed')]) {
      expect(ticket.reason, `ticket ${ticket.id.slice(0, 12)} (${ticket.state})`).toBeTruthy();
    }
    expect(byState('sent').length).toBeGreaterThan(0);
    expect(byState('ignored').length).toBeGreaterThan(0);

    // One reply per sent ticket and none for the others: the SMTP receiver saw exactly the sent tickets' replies.
    const received = servers.smtp.messages;
    const sent = byState('sent');
    expect(received.map((m) => m.parsed.messageId).sort()).toEqual(sent.map((t) => t.outbound?.messageId).sort());
    for (const ticket of sent) {
      const reply = received.find((m) => m.parsed.messageId === ticket.outbound?.messageId)!;
      // The reply goes to this ticket's customer, nobody else, and threads under the customer's mail.
      expect(reply.envelope.to.map((a) => a.toLowerCase()), `reply of ticket ${ticket.id.slice(0, 12)}`).toEqual([ticket.replyTo.toLowerCase()]);
      // A mail without a Message-ID gets a made-up one for its ticket, which no client knows: nothing to thread under.
      // One whose Message-ID another mail already held is keyed by a made-up one too, and threads under its own.
      const madeUp = ticket.messageId.endsWith('@no-message-id.invalid>');
      expect(reply.parsed.inReplyTo, `reply of ticket ${ticket.id.slice(0, 12)}`).toBe(ticket.mailMessageId ?? (madeUp ? undefined : ticket.messageId));
    }
  }, 300_000);
});
