/**
 * A reply that may already have reached the customer (the SMTP connection broke after the whole message was sent)
 * is not sent again with one click: its review page warns with our reply's Message-ID, the attempt's time and the
 * SMTP error, and "Approve and send" needs the operator's checked box ("I checked: the customer has no copy of this
 * reply"), enforced by the server. Real HTTP against the dashboard role, the real agent worker and sender, the
 * scripted model, redis-server and an SMTP receiver that drops the connection after DATA.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startDashboardRole, type DashboardRole } from '../../src/runtime/dashboard.js';
import { NO_COPY_CHECKED } from '../../src/tickets/review.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, startPipelineServers, startRoles, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let dashboard: DashboardRole;
let env: Record<string, string>;
const FLAKY = 'flaky@customer.example';

beforeAll(async () => {
  servers = await startPipelineServers();
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  const config = parseConfig(env);
  running = await startRoles(config);
  dashboard = await startDashboardRole(config, { services: running.services });
}, 60_000);
afterAll(async () => {
  await dashboard?.stop();
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
});

const copiesTo = (address: string) => servers.smtp.attempts.filter((a) => a.envelope.to.includes(address)).length;

/** The approve form of the page: its hidden fields and its draft, as a browser submits them. */
async function approveForm(ticketId: string): Promise<{ page: string; fields: Record<string, string> }> {
  const page = await (await fetch(`${dashboard.url}/tickets/${ticketId}`)).text();
  const start = page.indexOf(`action="/tickets/${ticketId}/approve"`);
  const form = page.slice(start, page.indexOf('</form>', start));
  const fields = Object.fromEntries([...form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
  // As a browser reads it: the line feed right after <textarea> is the parser's, not the text's.
  fields.reply = (/<textarea[^>]*>([^<]*)<\/textarea>/.exec(form)?.[1] ?? '').replace(/^\n/, '').replaceAll('&amp;', '&');
  return { page, fields };
}

function post(pathname: string, body: { form?: Record<string, string>; json?: unknown }): Promise<Response> {
  const form = body.form !== undefined;
  return fetch(`${dashboard.url}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? new URLSearchParams(body.form).toString() : JSON.stringify(body.json ?? {}),
    redirect: 'manual',
  });
}

describe('a reply that may already have been sent', () => {
  it('is shown with a warning and sent again only once the operator checked the customer has no copy', async () => {
    // The server receives the whole reply, then the connection drops before it answers.
    servers.smtp.respondWith(({ envelope }) => (envelope.to.includes(FLAKY) ? { code: 250, dropConnection: true } : undefined));
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('flaky'), from: `Flaky <${FLAKY}>`, subject: 'パスワードの長さ', body: 'パスワードの文字数の条件を教えてください。' }));
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent'], 30_000);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toMatch(/^may already have been sent/);
    servers.smtp.respondWith(undefined);
    const attempt = parked.history.findLast((h) => h.to === 'sending')!;
    const copies = copiesTo(FLAKY);
    expect(copies).toBe(1);

    const { page, fields } = await approveForm(ticketId);
    const warning = page.slice(page.indexOf('<div class="warning"'), page.indexOf('</div>', page.indexOf('<div class="warning"')));
    expect(warning).toContain('may already have reached the customer');
    expect(warning).toContain(parked.outbound!.messageId.replaceAll('<', '&lt;').replaceAll('>', '&gt;'));
    expect(warning).toContain(attempt.at);
    expect(warning).toMatch(/Connection|closed|SMTP/i);
    // The warning stands above the decision, and the approve form asks for the check.
    expect(page.indexOf('<div class="warning"')).toBeLessThan(page.indexOf(`action="/tickets/${ticketId}/approve"`));
    expect(page).toContain(`name="${NO_COPY_CHECKED}"`);
    expect(page).toContain('I checked: the customer has no copy of this reply');

    // Without the check: refused with a clear message, nothing queued, nothing sent.
    const unchecked = await post(`/tickets/${ticketId}/approve`, { form: fields });
    expect(unchecked.status).toBe(400);
    expect(await unchecked.text()).toContain('I checked: the customer has no copy of this reply');
    const api = await post(`/api/tickets/${ticketId}/approve`, { json: { seen: (await running.store.require(ticketId)).history.length } });
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toContain('may already have reached the customer');
    expect((await running.store.require(ticketId)).state).toBe('parked');
    await new Promise((r) => setTimeout(r, 500));
    expect(copiesTo(FLAKY)).toBe(copies);

    // Checked: the operator's informed decision goes out.
    const checked = await post(`/tickets/${ticketId}/approve`, { form: { ...fields, [NO_COPY_CHECKED]: 'yes' } });
    expect(checked.status).toBe(303);
    const sent = await waitForState(running.store, ticketId, ['sent', 'parked'], 30_000);
    expect(sent.state).toBe('sent');
    expect(copiesTo(FLAKY)).toBe(copies + 1);
  }, 90_000);

  it('needs no check for a reply the SMTP server refused for good (it never arrived)', async () => {
    const refused = 'refused@customer.example';
    servers.smtp.respondWith(({ envelope }) => (envelope.to.includes(refused) ? { code: 550, message: '5.1.1 User unknown' } : undefined));
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('550'), from: refused, subject: 'パスワードの条件', body: 'パスワードの条件を教えてください。' }));
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent'], 30_000);
    servers.smtp.respondWith(undefined);
    expect(parked.state).toBe('parked');
    const { page, fields } = await approveForm(ticketId);
    expect(page).not.toContain('<div class="warning"');
    expect(page).not.toContain(`name="${NO_COPY_CHECKED}"`);
    expect((await post(`/tickets/${ticketId}/approve`, { form: fields })).status).toBe(303);
  }, 60_000);
});
