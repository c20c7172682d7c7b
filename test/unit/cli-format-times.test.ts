/**
 * The CLI's ticket table shows when a ticket was created in the desk's time zone, named, as the dashboard does
 * (walkthrough 45, L3: `review list` printed UTC with no label beside a dashboard in GMT+9).
 */
import { describe, expect, it } from 'vitest';
import { formatTable } from '../../src/cli/format.js';
import { newTicket } from '../../src/tickets/ticket.js';

const ticket = newTicket(
  { messageId: '<t@customer.example>', from: 't@customer.example', subject: 'Invoice', question: 'q', actor: 'poller' },
  new Date('2025-01-02T18:04:05Z'),
);

describe('formatTable times', () => {
  it.each<[zone: string | undefined, shown: string]>([
    ['Asia/Tokyo', '2025-01-03 03:04 GMT+9'],
    ['UTC', '2025-01-02 18:04 UTC'],
    ['America/New_York', '2025-01-02 13:04 EST'],
  ])('%s: %s', (zone, shown) => {
    const row = formatTable([ticket], 1, zone).split('\n')[1]!;
    expect(row).toContain(`  ${shown}  `);
  });

  it('defaults to this process’s zone (TZ, which loadConfig sets from .env), named', () => {
    const before = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      expect(formatTable([ticket], 1).split('\n')[1]).toContain('2025-01-03 03:04 GMT+9');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  // A ticket stored without createdAt (an old or hand-made record) printed "undefined" (bug review 45e #7).
  it('leaves the column empty for a ticket without a creation time', () => {
    const { createdAt: _, ...undated } = ticket;
    const row = formatTable([undated as typeof ticket], 1, 'UTC').split('\n')[1]!;
    expect(row).not.toContain('undefined');
    expect(row).toMatch(/^\S+ {2}received {2}\s+t@customer\.example/);
  });
});
