/**
 * The review pages' text fields in a real browser (Debian's chromium through playwright-core) at 1280 × 800, the
 * window walkthrough 43 used: each placeholder is shown whole, not cut off at the field's edge ("What you did
 * (optional), e.g. wrote fr…"). The pages are the dashboard's own markup and stylesheet, rendered for each kind of
 * ticket whose page has a text field, without a server: what is measured is how the browser lays them out.
 *
 * Skipped (with the reason printed) only when /usr/bin/chromium is absent; CI installs it.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_CSS, STYLESHEET_PATH } from '../../src/server/styles.js';
import { renderTicketDetail, renderTicketList } from '../../src/server/views.js';
import { MAYBE_SENT_REASON, SMTP_REFUSED_REASON } from '../../src/tickets/review.js';
import { newTicket, TICKET_STATES, type HistoryEntry, type Ticket, type TicketState } from '../../src/tickets/ticket.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) {
  process.stdout.write(`browser-placeholders: skipped because ${CHROMIUM} is absent (install Debian's chromium to run it)\n`);
}

let browser: Browser;
beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
});
afterAll(async () => {
  await browser?.close();
});

const base = newTicket({ messageId: '<mary@customer.example>', from: 'mary@customer.example', subject: 'Invoice', question: 'Where is my invoice?', actor: 'poller' }, new Date('2026-03-02T09:00:00.000Z'));
const at = base.createdAt;
const outbound = { messageId: '<reply@support.example>', autoSubmitted: false };
const entry = (from: HistoryEntry['from'], to: HistoryEntry['to'], actor: string, note?: string): HistoryEntry => ({ at, from, to, actor, ...(note ? { note } : {}) });
/** Parked after the agent ran, with `reason`. */
const afterRun = (reason: string) => [...base.history, entry('received', 'processing', 'agent-worker'), entry('processing', 'parked', 'agent-worker', reason)];
const ticket = (patch: Partial<Ticket>) => ({ ...base, ...patch }) as Ticket;

/** Every kind of page with a text field: the start page's search, and each form of the ticket page. */
function pages(): Array<[string, string]> {
  const counts = Object.fromEntries(TICKET_STATES.map((s) => [s, 0])) as Record<TicketState, number>;
  const detail = (t: Ticket) => String(renderTicketDetail({ ticket: t, mailText: 'Where is my invoice?', now: new Date('2026-03-02T12:00:00.000Z'), csrfToken: 't', user: 'anna', timeZone: 'UTC' }));
  return [
    ['the start page (search)', String(renderTicketList({ tickets: [], total: 0, page: 1, pageSize: 20, order: 'oldest', counts, now: new Date(), csrfToken: 't', user: 'anna' }))],
    ['a draft to approve or reject', detail(ticket({ state: 'parked', draft: 'It is under Billing.', reason: 'review mode always', history: afterRun('review mode always') }))],
    ['mail that needs no reply', detail(ticket({ state: 'parked', reason: 'internal mail from k@support.example', history: [...base.history, entry('received', 'parked', 'agent-worker', 'internal mail from k@support.example')] }))],
    ['a possibly forged sender', detail(ticket({ state: 'parked', draft: 'x', reason: 'possibly forged sender: x', history: afterRun('possibly forged sender: x') }))],
    ['ignored mail (reopen)', detail(ticket({ state: 'ignored', reason: 'no question', history: [...base.history, entry('received', 'ignored', 'poller', 'no question')] }))],
    ['a bounced reply (close)', detail(ticket({ state: 'sent', draft: 'x', outbound: { ...outbound, sentAt: at }, replyBounce: { status: '5.1.1' } as Ticket['replyBounce'] }))],
    ['a reply that may have been sent (arrived)', detail(ticket({ state: 'parked', draft: 'x', reason: MAYBE_SENT_REASON, outbound, history: [...base.history, entry('parked', 'sending', 'sender'), entry('sending', 'parked', 'sender', `${MAYBE_SENT_REASON} (timeout)`)] }))],
    ['a reply the SMTP server refused (close)', detail(ticket({ state: 'parked', draft: 'x', reason: `${SMTP_REFUSED_REASON}: 550 no`, outbound, history: afterRun(`${SMTP_REFUSED_REASON}: 550 no`) }))],
  ];
}

describe.skipIf(!HAVE_CHROMIUM)('placeholders at 1280 × 800', () => {
  it.each(pages())('%s: every placeholder fits its field', async (_page, markup) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    try {
      await page.setContent(markup.replace(`<link rel="stylesheet" href="${STYLESHEET_PATH}">`, `<style>${REVIEW_CSS}</style>`));
      // The placeholder's width in the field's own font against the room inside its padding. (A string: this
      // project's TypeScript has no DOM types.)
      const fields = (await page.evaluate(`[...document.querySelectorAll('input[placeholder], textarea[placeholder]')].map((field) => {
        const style = getComputedStyle(field);
        const context = document.createElement('canvas').getContext('2d');
        context.font = style.font;
        const room = field.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return { placeholder: field.placeholder, room: Math.floor(room), needs: Math.ceil(context.measureText(field.placeholder).width) };
      })`)) as Array<{ placeholder: string; room: number; needs: number }>;
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(field.needs, `"${field.placeholder}" needs ${field.needs} px of ${field.room}`).toBeLessThanOrEqual(field.room);
    } finally {
      await page.close();
    }
  });
});
