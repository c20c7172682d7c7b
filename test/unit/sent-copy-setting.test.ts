import { describe, expect, it } from 'vitest';
import { sentCopySetting, sentRawKey, type SentCopyConfig } from '../../src/mail/sent-copy.js';

const LOGIN: SentCopyConfig = {
  IMAP_HOST: 'imap.example.com',
  IMAP_PORT: 993,
  IMAP_SECURE: true,
  IMAP_ALLOW_PLAIN_LOGIN: false,
  IMAP_USER: 'support@example.com',
  IMAP_PASSWORD: 'secret',
  IMAP_SENT_MAILBOX: undefined,
};

describe('sentCopySetting', () => {
  it.each([
    [{}, { mode: 'auto' }],
    [{ IMAP_SENT_MAILBOX: '' }, { mode: 'auto' }],
    [{ IMAP_SENT_MAILBOX: '  ' }, { mode: 'auto' }],
    [{ IMAP_SENT_MAILBOX: 'Sent Items' }, { mode: 'named', mailbox: 'Sent Items' }],
    [{ IMAP_SENT_MAILBOX: '送信済み' }, { mode: 'named', mailbox: '送信済み' }],
    [{ IMAP_SENT_MAILBOX: 'off' }, { mode: 'off', why: 'IMAP_SENT_MAILBOX=off' }],
    [{ IMAP_SENT_MAILBOX: 'OFF' }, { mode: 'off', why: 'IMAP_SENT_MAILBOX=off' }],
    [{ IMAP_HOST: undefined }, { mode: 'off', why: 'IMAP_HOST, IMAP_USER or IMAP_PASSWORD is not set' }],
    [{ IMAP_PASSWORD: undefined, IMAP_SENT_MAILBOX: 'Sent' }, { mode: 'off', why: 'IMAP_HOST, IMAP_USER or IMAP_PASSWORD is not set' }],
  ] as Array<[Partial<SentCopyConfig>, unknown]>)('%j → %j', (overrides, expected) => {
    expect(sentCopySetting({ ...LOGIN, ...overrides })).toEqual(expected);
  });
});

describe('sentRawKey', () => {
  it('lives beside the raw inbound mail, under a name no queue has', () => {
    expect(sentRawKey('helpdesk', 'a'.repeat(64))).toBe(`helpdesk:sentraw:${'a'.repeat(64)}`);
    expect(() => sentRawKey('', 'x')).toThrow(TypeError);
  });
});
