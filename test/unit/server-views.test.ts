import { describe, expect, it } from 'vitest';
import { html } from '../../src/server/html.js';
import { withTicketLinks } from '../../src/server/views.js';
import { describeBounce } from '../../src/tickets/ticket.js';

describe('withTicketLinks', () => {
  const id = 'a'.repeat(12) + 'b'.repeat(52);
  const link = `<a href="/tickets/${id}" title="${id}"><code>aaaaaaaaaaaa…</code></a>`;
  it.each([
    ['plain text stays as it is', 'agent failed 3 time(s)', 'agent failed 3 time(s)'],
    ['a ticket id becomes a link', `repeated question (ticket ${id}, sent); parked`, `repeated question (ticket ${link}, sent); parked`],
    ['two ids, at the ends', `${id} and ${id}`, `${link} and ${link}`],
    ['the rest is escaped', `<b>x</b> ${id} "y"`, `&lt;b&gt;x&lt;/b&gt; ${link} &quot;y&quot;`],
    ['a longer hex run is no ticket id', `${id}0`, `${id}0`],
    ['capital hex is no ticket id', id.toUpperCase(), id.toUpperCase()],
  ])('%s', (_case, text, expected) => {
    expect(String(html`${withTicketLinks(text)}`)).toBe(expected);
  });
});

describe('describeBounce', () => {
  it.each([
    [{ status: '5.1.1', diagnostic: '550 5.1.1 User unknown', recipient: 'a@customer.example' }, '5.1.1 550 5.1.1 User unknown (to a@customer.example)'],
    [{ status: '5.3.0' }, '5.3.0'],
    [{ recipient: 'a@customer.example' }, 'no reason given (to a@customer.example)'],
    [{}, 'no reason given'],
  ])('%j → %j', (bounce, expected) => {
    expect(describeBounce(bounce)).toBe(expected);
  });
});
