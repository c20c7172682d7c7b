import { describe, expect, it } from 'vitest';
import { html } from '../../src/server/html.js';
import { checkTimeZone, localTime, timeTag, withTicketLinks } from '../../src/server/views.js';
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

describe('localTime', () => {
  it.each([
    ['2026-03-02T15:04:00.000Z', 'UTC', '2026-03-02 15:04 UTC'],
    ['2026-03-02T15:04:00.000Z', 'Asia/Tokyo', '2026-03-03 00:04 GMT+9'],
    ['2026-03-02T00:00:00.000Z', 'Asia/Tokyo', '2026-03-02 09:00 GMT+9'],
    // Midnight is 00, never 24.
    ['2026-03-01T15:00:00.000Z', 'Asia/Tokyo', '2026-03-02 00:00 GMT+9'],
    // Summer and winter time of the same zone.
    ['2026-01-15T12:00:00.000Z', 'America/New_York', '2026-01-15 07:00 EST'],
    ['2026-07-15T12:00:00.000Z', 'America/New_York', '2026-07-15 08:00 EDT'],
    ['2026-07-15T12:00:00.000Z', 'Asia/Kolkata', '2026-07-15 17:30 GMT+5:30'],
  ])('%s in %s → %s', (iso, zone, expected) => {
    expect(localTime(iso, zone)).toBe(expected);
  });

  it('is undefined for a value that is not a date', () => {
    expect(localTime('', 'UTC')).toBeUndefined();
    expect(localTime('yesterday', 'UTC')).toBeUndefined();
  });
});

describe('timeTag', () => {
  it('keeps the ISO value in the markup and shows the local time', () => {
    expect(String(timeTag('2026-03-02T15:04:00.000Z', 'Asia/Tokyo'))).toBe(
      '<time datetime="2026-03-02T15:04:00.000Z" title="2026-03-02T15:04:00.000Z">2026-03-03 00:04 GMT+9</time>',
    );
  });

  it('shows a value that is not a date as escaped text', () => {
    expect(String(timeTag('<b>soon</b>', 'UTC'))).toBe('&lt;b&gt;soon&lt;/b&gt;');
  });
});

describe('checkTimeZone', () => {
  it('accepts IANA names and refuses what ICU does not know', () => {
    expect(checkTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(checkTimeZone('UTC')).toBe('UTC');
    expect(() => checkTimeZone('Mars/Olympus')).toThrow(/Unknown time zone.*Mars\/Olympus/);
  });
});
