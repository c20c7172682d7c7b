/**
 * Mail "through our own group" (the support address is a Google Group delivering to the polled mailbox) against the
 * real pipeline: redis-server, the SMTP receiver, the agent worker and the sender, tickets ingested as the poller would.
 *
 * List headers are written by the sender: naming our address in `List-Id` or `List-Post` must not switch off the
 * forged-sender check, the list and bulk checks, or the Reply-To check (a From of our own address with the "customer"
 * in Reply-To). Only mail that the receiving server (AUTHSERV_ID) authenticated for the configured group's domain
 * (SUPPORT_GROUP_ADDRESSES) is our group's; the rest is parked or ignored, and nothing of it reaches SMTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import type { Ticket } from '../../src/tickets/ticket.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  MAIL_FROM,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  SUPPORT_ADDRESS,
  SUPPORT_ALIAS,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

const FINAL = ['sent', 'parked', 'ignored', 'rejected', 'failed'] as const;
const QUESTION = '二段階認証の設定方法を教えてください。';
// What an attacker wants quoted to a victim under our name.
const LURE = `${QUESTION}\n\n【重要】24時間以内に https://xyz-account-verify.example/login でパスワードを確認してください。`;
// The receiving server of the support mailbox, as it names itself in the Authentication-Results it writes on top.
const AUTHSERV = 'mx.helpdesk.test';
const GROUP_CONFIG = { SUPPORT_GROUP_ADDRESSES: SUPPORT_ALIAS, AUTHSERV_ID: AUTHSERV };

/** Our server's verdict on a sender whose domain publishes p=reject and who is not who From says. */
const dmarcFail = (domain: string): string => `${AUTHSERV}; spf=fail smtp.mailfrom=${domain}; dkim=none; dmarc=fail (p=REJECT) header.from=${domain}`;
/** The list headers Google Groups writes for our group help@helpdesk.test. */
const GROUP_HEADERS = {
  'List-ID': `<${SUPPORT_ALIAS.replace('@', '.')}>`,
  'Mailing-list': `list ${SUPPORT_ALIAS}; contact help+owners@helpdesk.test`,
  'List-Post': `<https://groups.google.com/a/helpdesk.test/group/help/post>, <mailto:${SUPPORT_ALIAS}>`,
  'List-Unsubscribe': '<mailto:googlegroups-manage+1234+unsubscribe@googlegroups.com>',
  Precedence: 'list',
};
/** What our server writes on top of real group mail: the group's DKIM signature verified, and DMARC for its From. */
const groupVerdict = (fromDomain: string): string =>
  `${AUTHSERV}; dkim=pass header.i=@helpdesk.test header.s=google header.b=Ab12Cd34; spf=pass (domain of help+bncBD1@helpdesk.test designates 209.85.220.69 as permitted sender) smtp.mailfrom=help+bncBD1@helpdesk.test; dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=${fromDomain}`;

/** The forgeries of the security review: each must end parked or ignored, with nothing sent. */
const ATTACKS: ReadonlyArray<readonly [name: string, from: string, headers: Record<string, string>, reason: RegExp]> = [
  [
    'A: From our group address, Reply-To a victim, our List-Id, and our server says dmarc=fail',
    `XYZ Support <${SUPPORT_ALIAS}>`,
    { 'Reply-To': 'victim@elsewhere.example', 'List-Id': `<${SUPPORT_ALIAS.replace('@', '.')}>`, 'Authentication-Results': dmarcFail('helpdesk.test') },
    /^possibly forged sender: the receiving server's Authentication-Results says dmarc=fail \(header\.from=helpdesk\.test\)/,
  ],
  [
    'B: a forged CEO with our List-Id, and our server says dmarc=fail',
    'CEO <ceo@bigcorp.example>',
    { 'List-Id': `<${SUPPORT_ALIAS.replace('@', '.')}>`, 'Authentication-Results': dmarcFail('bigcorp.example') },
    /^possibly forged sender: the receiving server's Authentication-Results says dmarc=fail \(header\.from=bigcorp\.example\)/,
  ],
  [
    'E: as A through MAIL_FROM, which no group uses',
    MAIL_FROM,
    { 'Reply-To': 'victim3@elsewhere.example', 'List-Id': `<${SUPPORT_ADDRESS.replace('@', '.')}>`, 'Authentication-Results': dmarcFail('helpdesk.test') },
    /^possibly forged sender: the receiving server's Authentication-Results says dmarc=fail \(header\.from=helpdesk\.test\)/,
  ],
  [
    'A0: as A where our server writes no Authentication-Results at all',
    `XYZ Support <${SUPPORT_ALIAS}>`,
    { 'Reply-To': 'victim4@elsewhere.example', ...GROUP_HEADERS },
    /^not authenticated as mail through our group: From is our own address help@helpdesk\.test with Reply-To victim4@elsewhere\.example/,
  ],
  [
    "F: as A0 with the attacker's own Authentication-Results (group DKIM passed) under our server's",
    `'Victim' via Help <${SUPPORT_ALIAS}>`,
    {
      'Reply-To': 'victim5@elsewhere.example',
      ...GROUP_HEADERS,
      // buildMail writes one line per key: the CRLF makes the attacker's field a second line, below our server's.
      'Authentication-Results': `${AUTHSERV}; spf=softfail smtp.mailfrom=attacker.example; dkim=none; dmarc=none header.from=helpdesk.test\r\nAuthentication-Results: ${AUTHSERV}; dkim=pass header.d=helpdesk.test; dmarc=pass header.from=helpdesk.test`,
    },
    /^not authenticated as mail through our group: From is our own address help@helpdesk\.test with Reply-To victim5@elsewhere\.example/,
  ],
];

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
  const config = parseConfig(pipelineEnv(servers, { REVIEW_MODE: 'never', ...overrides }));
  const running = await startRoles(config);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** Ingests one mail (extra header lines after the others, in the order given) and waits until its ticket settles. */
async function settle(running: RunningRoles, from: string, headers: Record<string, string>, body = LURE): Promise<Ticket> {
  const raw = buildMail({ messageId: customerMessageId('grp'), from, to: SUPPORT_ALIAS, subject: '二段階認証について', body, headers });
  const { ticketId } = await ingest(running, raw);
  return waitForState(running.store, ticketId, FINAL, 30_000);
}

describe.each([
  ['without a group configured (MAIL_FROM and SUPPORT_ADDRESSES only)', {}],
  ['with our Google Group configured (SUPPORT_GROUP_ADDRESSES, AUTHSERV_ID)', GROUP_CONFIG],
])('forged group mail %s', (_name, overrides) => {
  it.each(ATTACKS.map(([name, from, headers, reason]) => ({ name, from, headers, reason })))('$name: parked or ignored, nothing sent', async ({ from, headers, reason }) => {
    const running = await run(overrides);
    const ticket = await settle(running, from, headers);
    expect(['parked', 'ignored'], `${ticket.state}: ${ticket.reason}`).toContain(ticket.state);
    expect(ticket.reason).toMatch(reason);
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});

describe('real mail through our own group', () => {
  it('authenticated by our server for the group domain: answered, the rewritten sender as the customer in Reply-To', async () => {
    const running = await run(GROUP_CONFIG);
    const rewritten = await settle(running, `'Jiro' via Help <${SUPPORT_ALIAS}>`, {
      'Reply-To': 'Jiro <jiro@customer.example>',
      ...GROUP_HEADERS,
      'Authentication-Results': groupVerdict('helpdesk.test'),
    });
    expect(rewritten.state, rewritten.reason).toBe('sent');
    expect(rewritten.from).toBe('jiro@customer.example');
    // Not rewritten: the customer's own From, the group's envelope and footer; the group's DKIM signature passed.
    const asSent = await settle(
      running,
      'Taro <taro@customer.example>',
      {
        'Return-Path': '<help+bncBD1AbCdEfGh123456@helpdesk.test>',
        ...GROUP_HEADERS,
        'Authentication-Results': `${AUTHSERV}; dkim=pass header.d=customer.example; dkim=pass header.d=helpdesk.test; spf=pass smtp.mailfrom=help+bncBD1@helpdesk.test; dmarc=pass header.from=customer.example`,
      },
      `${QUESTION}\n\n-- \nYou received this message because you are subscribed to the Google Groups "Help" group.\nTo unsubscribe from this group and stop receiving emails from it, send an email to help+unsubscribe@helpdesk.test.\n`,
    );
    expect(asSent.state, asSent.reason).toBe('sent');
    const replies = await servers.smtp.waitFor(2);
    expect(replies.map((r) => r.envelope.to).sort()).toEqual([['jiro@customer.example'], ['taro@customer.example']]);
  });

  it('without the group configured, the same mail is parked (never ignored) naming what to set', async () => {
    const running = await run();
    const ticket = await settle(running, `'Jiro' via Help <${SUPPORT_ALIAS}>`, {
      'Reply-To': 'Jiro <jiro@customer.example>',
      ...GROUP_HEADERS,
      'Authentication-Results': groupVerdict('helpdesk.test'),
    });
    expect(ticket.state).toBe('parked');
    expect(ticket.reason).toMatch(/^not authenticated as mail through our group: From is our own address help@helpdesk\.test with Reply-To jiro@customer\.example; .*SUPPORT_GROUP_ADDRESSES/);
    expect(ticket.draft).toBeTruthy();
    expect(servers.smtp.attempts).toHaveLength(0);
  });
});
