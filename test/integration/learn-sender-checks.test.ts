/**
 * `REVIEW_MODE=learn` applies every check `auto` applies before it asks whether the cited sources are trusted: a
 * forged sender or a Reply-To on another domain is parked with the reason `auto` gives, and its review page shows what
 * `auto`'s shows (the forged-sender banner and the "I verified the sender" tick), never "The checks passed". Only a
 * draft that passed them all waits for trust. Real redis-server, SMTP receiver, scripted model, agent worker, sender
 * and dashboard.
 */
import type { Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createDashboardApp } from '../../src/server/app.js';
import { WAITS_FOR_TRUST } from '../../src/server/views.js';
import { SENDER_VERIFIED } from '../../src/tickets/review.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import { parkedForTrust } from '../../src/tickets/trust.js';
import { buildMail, customerMessageId, ingest, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

const QUESTION = '二段階認証を認証アプリで設定する手順を教えてください。';

/** Mail whose sender a person must look at, whatever the sources' standing. */
const SENDER_HELD = [
  {
    name: 'a forged From (dmarc=fail)',
    from: 'ceo@bank.example',
    headers: { 'Authentication-Results': 'mx.desk.example; spf=fail smtp.mailfrom=bank.example; dmarc=fail header.from=bank.example' },
    reason: /^possibly forged sender: /,
    banner: true,
  },
  {
    name: 'a Reply-To on another domain',
    from: 'alice@customer.example',
    headers: { 'Reply-To': 'collector@evil.example' },
    reason: /^Reply-To domain evil\.example differs/,
    banner: false,
  },
] as const;

/** What the review page of a parked ticket tells the operator. */
interface PageSays {
  forgedBanner: boolean;
  senderTick: boolean;
  checksPassed: boolean;
  waitsForTrust: boolean;
}

/** Serves the dashboard of `running` on loopback for one callback. */
async function withDashboard<T>(running: RunningRoles, use: (base: string) => Promise<T>): Promise<T> {
  const { services } = running;
  const app = createDashboardApp({ config: services.config, redis: await services.producer(), store: running.store, queues: await services.queues() });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    return await use(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

async function pageOf(base: string, ticketId: string): Promise<PageSays> {
  const response = await fetch(`${base}/tickets/${ticketId}`);
  expect(response.status).toBe(200);
  const page = await response.text();
  return {
    forgedBanner: page.includes('id="unverified-sender"'),
    senderTick: page.includes(`name="${SENDER_VERIFIED}"`),
    checksPassed: page.includes('The checks passed'),
    waitsForTrust: page.includes(WAITS_FOR_TRUST),
  };
}

/** One mail on the topic: the ticket once the agent worker is done with it. */
async function ask(running: RunningRoles, from: string, headers: Record<string, string> = {}): Promise<Ticket> {
  const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId(), from, subject: '二段階認証', body: QUESTION, headers }));
  return waitForState(running.store, ticketId, ['parked', 'sent', 'failed']);
}

/** The reason and page of each {@link SENDER_HELD} mail under `mode`. */
async function senderHolds(mode: 'auto' | 'learn'): Promise<Array<{ state: string; reason: string | undefined; page: PageSays }>> {
  const running = await suite.run({ REVIEW_MODE: mode });
  const tickets: Ticket[] = [];
  for (const mail of SENDER_HELD) tickets.push(await ask(running, mail.from, mail.headers));
  return withDashboard(running, async (base) => Promise.all(tickets.map(async (t) => ({ state: t.state, reason: t.reason, page: await pageOf(base, t.id) }))));
}

describe('REVIEW_MODE=learn: the sender checks come before trust', () => {
  it('parks a forged sender and a foreign Reply-To as auto does, and its page shows what auto shows', async () => {
    const auto = await senderHolds('auto');
    const learn = await senderHolds('learn');
    SENDER_HELD.forEach((mail, i) => {
      expect(auto[i]!.state, mail.name).toBe('parked');
      expect(auto[i]!.reason, mail.name).toMatch(mail.reason);
      expect(auto[i]!.page, mail.name).toEqual({ forgedBanner: mail.banner, senderTick: mail.banner, checksPassed: false, waitsForTrust: false });
      expect(learn[i], mail.name).toEqual(auto[i]);
      expect(parkedForTrust(learn[i]!.reason), mail.name).toBe(false);
    });
  });

  it('still parks a clean mail for trust alone, and its page says the checks passed', async () => {
    const running = await suite.run({ REVIEW_MODE: 'learn' });
    const clean = await ask(running, 'carol@customer.example');
    expect(clean.state).toBe('parked');
    expect(clean.reason).toMatch(/^not yet trusted: \S+ has 0 of \d+ reviews/);
    expect(parkedForTrust(clean.reason)).toBe(true);
    expect(await withDashboard(running, (base) => pageOf(base, clean.id))).toEqual({ forgedBanner: false, senderTick: false, checksPassed: true, waitsForTrust: true });
  });
});
