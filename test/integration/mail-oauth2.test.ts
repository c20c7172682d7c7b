/**
 * MAIL_AUTH=oauth2 end to end, as a Microsoft 365 mailbox is reached: a stand-in identity provider issues tokens
 * (client_credentials), Dovecot accepts only those tokens (SASL XOAUTH2 alone, as Microsoft offers, its oauth2 passdb
 * asking the provider's introspection endpoint) and the SMTP receiver only those too (AUTH XOAUTH2, a plain 535 for a
 * bad one, as Microsoft answers). The poller, the sender and its Sent-folder copies log in with one token; a token the
 * servers refuse is dropped and the next login fetches a new one; `npm run check` names the token endpoint's error.
 *
 * Each test asks for its own MAIL_OAUTH2_SCOPE, which gives it its own token cache (one per settings and process), so
 * the provider's requests can be counted per test.
 */
import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { connectForSentCopy } from '../../src/mail/sent-copy.js';
import { mailboxStateKey, readMailboxState } from '../../src/runtime/poller.js';
import { createSmtpTransport } from '../../src/mail/smtp-transport.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  OAUTH2_CLIENT,
  pipelineEnv,
  removePrefix,
  runNpm,
  startPipelineServers,
  startRoles,
  SUPPORT_ADDRESS,
  waitFor,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

// `npm run check` is a Node process compiling TypeScript on the fly.
const SLOW = { timeout: 120_000 };

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true, oauth2: { mechanisms: ['xoauth2'] } });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
});
afterAll(async () => {
  await servers?.stop();
});

/** This test's environment: its own scope, so its own token cache. */
function env(overrides: Record<string, string> = {}): { env: Record<string, string>; scope: string } {
  const scope = `https://outlook.office365.com/.default test-${randomUUID().slice(0, 8)}`;
  return { env: pipelineEnv(servers, { MAIL_OAUTH2_SCOPE: scope, ...overrides }), scope };
}

/** Token requests this test made (by its scope). */
const tokenRequests = (scope: string) => servers.oauth2!.tokenRequests.filter((r) => r.scope === scope);

async function run(environment: Record<string, string>, options: { poller?: boolean; agent?: false; sender?: false } = {}): Promise<RunningRoles> {
  const config = parseConfig(environment);
  const running = await startRoles(config, options);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** A token of the test's own from the provider, to read the mailbox with (no password logs in). */
async function readerToken(): Promise<string> {
  const response = await fetch(servers.oauth2!.tokenUrl, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: OAUTH2_CLIENT.clientId, client_secret: OAUTH2_CLIENT.clientSecret, scope: 'reader' }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

/** How many messages in `mailbox` carry `messageId`. */
async function countIn(mailbox: string, messageId: string): Promise<number> {
  const imap = servers.imap!;
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, accessToken: await readerToken() }, logger: false });
  await client.connect();
  try {
    const lock = await client.getMailboxLock(mailbox, { readOnly: true });
    try {
      const uids = await client.search({ header: { 'message-id': messageId } }, { uid: true });
      return Array.isArray(uids) ? uids.length : 0;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout();
  }
}

describe('MAIL_AUTH=oauth2 against servers that accept only tokens', () => {
  it('the poller reads the mailbox, the sender replies over SMTP and files the copy in Sent, with one token', async () => {
    const { env: environment, scope } = env();
    // A password login is refused: the servers really take tokens only.
    const refused = await connectForSentCopy(parseConfig({ ...environment, MAIL_AUTH: 'password', IMAP_PASSWORD: servers.imap!.password })).catch((e: unknown) => e);
    expect((refused as { authenticationFailed?: boolean }).authenticationFailed).toBe(true);

    const running = await run(environment, { poller: true });
    const messageId = customerMessageId('oauth2-e2e');
    await servers.imap!.deliver(buildMail({ messageId, from: 'taro@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    const reply = (await servers.smtp.waitFor(1, 60_000))[0]!;
    expect(reply.parsed.inReplyTo).toBe(messageId);
    expect(reply.authUser).toBe(SUPPORT_ADDRESS);
    const ticketId = await waitFor(async () => (await running.store.list({ limit: 10 })).tickets.find((t) => t.outbound?.messageId === reply.parsed.messageId)?.id, 'the ticket');
    await waitFor(async () => (await running.store.get(ticketId))?.outbound?.sentCopy, 'the copy in Sent', 20_000);
    expect(await countIn('Sent', reply.parsed.messageId!)).toBe(1);

    expect(servers.smtp.logins).toContainEqual({ method: 'XOAUTH2', user: SUPPORT_ADDRESS, accepted: true });
    const log = await servers.imap!.readLog();
    expect(log).toMatch(/Login: user=<support@helpdesk\.test>, method=XOAUTH2/);
    // The poller's login, the SMTP login and the Sent copy's login shared one token.
    expect(tokenRequests(scope)).toEqual([{ grantType: 'client_credentials', clientId: OAUTH2_CLIENT.clientId, scope, contentType: 'application/x-www-form-urlencoded', basicAuth: false }]);
  });

  it('a token the SMTP server refuses is dropped, and the retried send logs in with a new one', async () => {
    const { env: environment, scope } = env({ IMAP_SENT_MAILBOX: 'off' });
    const running = await run(environment);
    const first = await ingest(running, buildMail({ messageId: customerMessageId('oauth2-smtp-1'), from: 'a@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    expect((await waitForState(running.store, first.ticketId, ['sent', 'parked', 'failed'])).state).toBe('sent');
    const [token] = servers.oauth2!.issued.slice(-1);
    // Revoked (an admin withdrew the consent and gave it again): the kept connection goes too, as a server's idle cut.
    servers.oauth2!.revoke(token!);
    servers.smtp.closeConnections();
    const loginsBefore = servers.smtp.logins.length;

    const second = await ingest(running, buildMail({ messageId: customerMessageId('oauth2-smtp-2'), from: 'b@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    const sent = await waitForState(running.store, second.ticketId, ['sent', 'parked', 'failed'], 30_000);
    expect(sent.state, sent.reason).toBe('sent');
    expect(servers.smtp.logins.slice(loginsBefore).map((l) => l.accepted)).toEqual([false, true]);
    expect(tokenRequests(scope)).toHaveLength(2);
  });

  it('a token the IMAP server refuses is dropped, and the poller reconnects with a new one', async () => {
    const { env: environment, scope } = env();
    // The poller alone: the SMTP login shares the token source and would replace the token on its own refusal.
    const running = await run(environment, { poller: true, agent: false, sender: false });
    const config = running.services.config;
    const stateKey = mailboxStateKey(config.QUEUE_PREFIX, { user: config.IMAP_USER!, host: config.IMAP_HOST!, mailbox: config.IMAP_MAILBOX });
    const redis = await running.services.producer();
    await waitFor(async () => (await readMailboxState(redis, stateKey)).lastSuccessfulPollAt !== undefined, 'the poller to log in');
    expect(tokenRequests(scope)).toHaveLength(1);
    const before = servers.oauth2!.introspected.length;
    servers.oauth2!.revoke(servers.oauth2!.issued.at(-1)!);
    // An admin ends the session; the poller logs in again with the token it holds, which is refused.
    await servers.imap!.doveadm(['kick', SUPPORT_ADDRESS]);
    const messageId = customerMessageId('oauth2-imap');
    await servers.imap!.deliver(buildMail({ messageId, from: 'c@customer.example', subject: 'パスワードについて', body: 'パスワードの条件を教えてください。' }));
    await waitFor(async () => (await running.store.list({ limit: 10 })).tickets.find((t) => t.messageId === messageId), 'the mail to become a ticket', 30_000);
    // The refused login, then the one with the new token.
    expect(servers.oauth2!.introspected.slice(before)).toEqual([false, true]);
    expect(tokenRequests(scope)).toHaveLength(2);
  });

  it('a poller stopping while the token endpoint is silent stops at once', async () => {
    const { env: environment, scope } = env();
    const release = servers.oauth2!.hold();
    try {
      const running = await run(environment, { poller: true, agent: false, sender: false });
      await waitFor(() => tokenRequests(scope).length > 0, 'the poller to ask for a token');
      const started = Date.now();
      await running.stop();
      // The request's own timeout (15 s) would have held the stop past the roles' shutdown deadline (25 s with the rest).
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      release();
    }
  });

  it('sends no token where a password would not go: without TLS unless allowed', async () => {
    const { env: environment } = env({ SMTP_ALLOW_PLAIN_AUTH: 'false', IMAP_ALLOW_PLAIN_LOGIN: 'false' });
    const config = parseConfig(environment);
    const loginsBefore = servers.smtp.logins.length;
    const introspectionsBefore = servers.oauth2!.introspections;
    const smtp = createSmtpTransport(config);
    try {
      await expect(smtp.verify()).rejects.toThrow(/did not start TLS \(STARTTLS\), so the login was not sent in clear/);
    } finally {
      smtp.close();
    }
    const imap = await connectForSentCopy(config).catch((e: unknown) => e);
    expect((imap as { tlsFailed?: boolean }).tlsFailed).toBe(true);
    expect(servers.smtp.logins.length).toBe(loginsBefore);
    expect(servers.oauth2!.introspections).toBe(introspectionsBefore);
  });
});

describe('npm run check with MAIL_AUTH=oauth2', () => {
  it('fetches a token first, then logs in to IMAP and SMTP with it', SLOW, async () => {
    const { env: environment, scope } = env();
    const result = await runNpm(['run', 'check'], { HELPDESK_ENV_FILE: 'none', ...environment }, SLOW.timeout);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain(`✓ OAuth2 token: ${servers.oauth2!.tokenUrl} — the token endpoint answered the client_credentials request of client ${OAUTH2_CLIENT.clientId}`);
    expect(result.stdout).toMatch(/^✓ IMAP mailbox: /m);
    expect(result.stdout).toMatch(/^✓ SMTP server: /m);
    expect(tokenRequests(scope)).toHaveLength(1);
  });

  it("names the token endpoint's error, tries no login, and prints no secret", SLOW, async () => {
    const { env: environment } = env({ MAIL_OAUTH2_CLIENT_SECRET: 'not-the-secret-4711' });
    const result = await runNpm(['run', 'check'], { HELPDESK_ENV_FILE: 'none', ...environment }, SLOW.timeout);
    expect(result.code).toBe(1);
    const endpoint = servers.oauth2!.tokenUrl;
    expect(result.stdout).toContain(
      `✗ OAuth2 token: ${endpoint} — OAuth2 token endpoint ${endpoint} refused the client_credentials request, HTTP 401: invalid_client (Client authentication failed.)`,
    );
    expect(result.stdout).toMatch(/^- IMAP mailbox: .* — not tried: no OAuth2 token \(see the OAuth2 token line\)$/m);
    expect(result.stdout).toMatch(/^- SMTP server: .* — not tried: no OAuth2 token \(see the OAuth2 token line\)$/m);
    expect(result.stdout + result.stderr).not.toContain('not-the-secret-4711');
  });
});
