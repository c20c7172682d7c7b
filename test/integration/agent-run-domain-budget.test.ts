/**
 * Agent runs per organisation domain (AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR), security review 11: made-up or catch-all
 * addresses at one domain each stay within the per-sender limit, so without a window per domain a flood from one
 * domain spent AGENT_RUN_LIMIT_TOTAL_PER_HOUR, after which every genuine customer's mail was parked without a draft for
 * the rest of the hour. Real Redis and BullMQ, the agent worker against the scripted model server, whose requests are
 * the model calls counted.
 */
import { describe, expect, it } from 'vitest';
import type { Ticket } from '../../src/tickets/ticket.js';
import { buildMail, customerMessageId, ingest, waitForState, type RunningRoles } from '../support/pipeline.js';
import { pipelineSuite } from '../support/pipeline-suite.js';

const suite = pipelineSuite();

/** One mail ingested and handled to its end, with the model calls its handling made. */
interface Handled {
  ticket: Ticket;
  modelCalls: number;
}

let numbered = 0;

/** A question from `from` under a subject of its own (the same one twice would be parked as a repeated question). */
function mail(from: string, headers: Record<string, string> = {}): Buffer {
  const n = ++numbered;
  return buildMail({ messageId: customerMessageId(`domain-${n}`), from, subject: `パスワード ${n}`, body: `パスワードの条件を教えてください。${n}`, headers });
}

/** Ingests `raw` and waits for its ticket to settle. */
async function handle(running: RunningRoles, raw: Buffer): Promise<Handled> {
  const before = suite.servers.llm.chatRequests().length;
  const { ticketId } = await ingest(running, raw);
  const ticket = await waitForState(running.store, ticketId, ['parked', 'sent', 'ignored', 'failed'], 60_000);
  return { ticket, modelCalls: suite.servers.llm.chatRequests().length - before };
}

function expectRun({ ticket, modelCalls }: Handled): void {
  expect(ticket.agent, ticket.reason).toBeDefined();
  expect(modelCalls).toBeGreaterThan(0);
}

/** Parked before the agent, no draft, no model call. */
function expectLimited({ ticket, modelCalls }: Handled, reason: string): void {
  expect(ticket.state).toBe('parked');
  expect(ticket.reason).toBe(reason);
  expect(ticket.draft ?? '').toBe('');
  expect(ticket.history.some((h) => h.to === 'processing')).toBe(false);
  expect(modelCalls).toBe(0);
}

const UNAUTHENTICATED_REASON = (count: number, domain: string, limit: number) =>
  `agent-run limit reached: ${count} agent run${count === 1 ? '' : 's'} on mail from ${domain} that no receiving server authenticated in the last hour ` +
  `(AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR=${limit}, shared by every such address of the domain, which anyone can write: its authenticated mail counts apart and still runs)`;

const AUTHENTICATED_REASON = (count: number, domain: string, limit: number) =>
  `agent-run limit reached: ${count} agent run${count === 1 ? '' : 's'} on mail from ${domain} that the receiving server authenticated in the last hour ` +
  `(AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR=${limit}, shared by every authenticated address of the domain: raise it if this organisation really writes this much)`;

const TOTAL_REASON = (count: number, limit: number, authenticated = false) =>
  `agent-run limit reached: ${count} agent run${count === 1 ? '' : 's'} ` +
  (authenticated
    ? `on mail the receiving server authenticated in the last hour (AGENT_RUN_LIMIT_TOTAL_PER_HOUR=${limit}, shared by all authenticated mail)`
    : `on mail no receiving server authenticated in the last hour (AGENT_RUN_LIMIT_TOTAL_PER_HOUR=${limit}, shared by all such mail, which anyone can write: authenticated mail counts apart and still runs)`);

describe('agent runs per organisation domain', () => {
  it("strangers at one domain spend that domain's window, not the total: a customer elsewhere still gets a draft", async () => {
    const running = await run({ AGENT_RUN_LIMIT_TOTAL_PER_HOUR: '5', AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: '3' });
    // Three made-up addresses at flood.example, one on a subdomain of it: each within the per-sender limit.
    for (const from of ['x0@flood.example', 'x1@mail.flood.example', 'x2@flood.example']) expectRun(await handle(running, mail(from)));

    const genuine = await handle(running, mail('taro@customer.example', { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' }));
    expectRun(genuine);
    expect(genuine.ticket.draft).toBeTruthy();

    // The fourth and fifth at flood.example (a subdomain of it too) are parked naming the domain and the limit...
    expectLimited(await handle(running, mail('x3@flood.example')), UNAUTHENTICATED_REASON(3, 'flood.example', 3));
    expectLimited(await handle(running, mail('x4@eu.flood.example')), UNAUTHENTICATED_REASON(3, 'flood.example', 3));
    // ...and took no slot of the total: the fifth run of the hour is still a customer's.
    expectRun(await handle(running, mail('hanako@other.example')));
  }, 120_000);

  // Review 42a, F4: the From can be forged, so the flood above could as well be under a real customer's domain.
  it("a forged flood under a customer's domain parks only that domain's unauthenticated mail: its authenticated mail still gets a draft", async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: '3', AUTHSERV_ID: 'mx.helpdesk.test' });
    // Made-up addresses at bigcustomer.co.jp: no access to the domain needed, so nothing authenticated them.
    for (const from of ['x0@bigcustomer.co.jp', 'x1@bigcustomer.co.jp', 'x2@mail.bigcustomer.co.jp']) expectRun(await handle(running, mail(from)));
    expectLimited(await handle(running, mail('x3@bigcustomer.co.jp')), UNAUTHENTICATED_REASON(3, 'bigcustomer.co.jp', 3));

    // The company's own mail, which the receiving server authenticated (DKIM aligned with the From, or DMARC), runs.
    const genuine = await handle(running, mail('tanaka@bigcustomer.co.jp', { 'Authentication-Results': 'mx.helpdesk.test; dkim=pass header.d=bigcustomer.co.jp; spf=pass smtp.mailfrom=bigcustomer.co.jp' }));
    expectRun(genuine);
    expect(genuine.ticket.draft).toBeTruthy();
    for (const from of ['suzuki@bigcustomer.co.jp', 'sato@tokyo.bigcustomer.co.jp']) {
      expectRun(await handle(running, mail(from, { 'Authentication-Results': `mx.helpdesk.test; dmarc=pass header.from=${from.split('@')[1]}` })));
    }
    // Its own window has the same limit, and says which it is.
    expectLimited(
      await handle(running, mail('ito@bigcustomer.co.jp', { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=bigcustomer.co.jp' })),
      AUTHENTICATED_REASON(3, 'bigcustomer.co.jp', 3),
    );
    // A pass for another domain vouches for nothing about this From: unauthenticated, parked.
    expectLimited(
      await handle(running, mail('x4@bigcustomer.co.jp', { 'Authentication-Results': 'mx.helpdesk.test; dkim=pass header.d=attacker.example' })),
      UNAUTHENTICATED_REASON(3, 'bigcustomer.co.jp', 3),
    );
  }, 120_000);

  // Review 42b, F7: without AUTHSERV_ID, the topmost Authentication-Results may be the forger's own (a receiving server
  // that writes none), so nothing counts as authenticated for the window.
  it('without AUTHSERV_ID, a dmarc=pass the sender wrote counts as unauthenticated', async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: '2' });
    const own = { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=bigcustomer.co.jp' };
    for (const from of ['x0@bigcustomer.co.jp', 'x1@bigcustomer.co.jp']) expectRun(await handle(running, mail(from, own)));
    expectLimited(await handle(running, mail('x2@bigcustomer.co.jp', own)), UNAUTHENTICATED_REASON(2, 'bigcustomer.co.jp', 2));
  }, 120_000);

  // Security review 12, F3: a shared mail provider's domain has no window of its own (nor has each of ten throwaway
  // domains a small one), so strangers' mail spent AGENT_RUN_LIMIT_TOTAL_PER_HOUR and every customer's was parked for
  // the rest of the hour. The total is counted apart for authenticated mail and the rest, as the domain windows are.
  it("a flood of strangers at a shared mail domain spends only the unauthenticated total: authenticated mail still gets a draft", async () => {
    const running = await run({ AGENT_RUN_LIMIT_TOTAL_PER_HOUR: '2', AUTHSERV_ID: 'mx.helpdesk.test' });
    for (const from of ['flood0@gmail.com', 'flood1@gmail.com']) expectRun(await handle(running, mail(from)));
    const refused = await handle(running, mail('flood2@gmail.com'));
    expectLimited(refused, TOTAL_REASON(2, 2));

    const genuine = await handle(running, mail('keiri@customer.example', { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=customer.example' }));
    expectRun(genuine);
    expect(genuine.ticket.draft).toBeTruthy();
    // Its own total has the same limit.
    expectRun(await handle(running, mail('taro@gmail.com', { 'Authentication-Results': 'mx.helpdesk.test; dkim=pass header.d=gmail.com' })));
    expectLimited(await handle(running, mail('jiro@other.example', { 'Authentication-Results': 'mx.helpdesk.test; dmarc=pass header.from=other.example' })), TOTAL_REASON(2, 2, true));
  }, 120_000);

  it('leaves shared mail domains out (their senders are strangers to each other); 0 runs nothing from any organisation domain', async () => {
    const running = await run({ AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: '0' });
    expectLimited(await handle(running, mail('z@customer.example')), UNAUTHENTICATED_REASON(0, 'customer.example', 0));
    for (const from of ['a@gmail.com', 'b@gmail.com', 'c@docomo.ne.jp', 'd@docomo.ne.jp']) expectRun(await handle(running, mail(from)));
  }, 120_000);
});

function run(overrides: Record<string, string>): Promise<RunningRoles> {
  return suite.run({ REPEATED_QUESTION_HOURS: '0', ...overrides });
}
