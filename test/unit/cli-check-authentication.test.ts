/**
 * What `npm run check` says of the Authentication-Results on top of the mailbox's latest mails: the header blocks an
 * IMAP FETCH of that one field returns, in; the line about AUTHSERV_ID, out. Each warning is a consequence an admin
 * would otherwise meet weeks later: no server field (nothing vouches, quotes are left out), AUTHSERV_ID unset (a
 * forger's own field vouches), AUTHSERV_ID not what the server writes (nothing vouches, group mail parked).
 */
import { describe, expect, it } from 'vitest';
import { senderAuthenticationOutcome, type AuthenticationCheckConfig } from '../../src/cli/check-authentication.js';
import { authservIdOf, senderVouchedFor } from '../../src/mail/classify.js';

const OURS = 'mx.helpdesk.test';
const GROUP = 'help@helpdesk.test';

/** The header block a FETCH of BODY.PEEK[HEADER.FIELDS (authentication-results)] returns: the fields, topmost first. */
const block = (...fields: string[]): string => `${fields.map((f) => `Authentication-Results: ${f}\r\n`).join('')}\r\n`;
/** A mail that carries no Authentication-Results: the server answers with the empty line alone. */
const NONE = '\r\n';
const times = (n: number, header: string): string[] => Array.from({ length: n }, () => header);

const config = (authservIds: readonly string[] = [], groups: readonly string[] = []): AuthenticationCheckConfig => ({
  AUTHSERV_ID: [...authservIds],
  SUPPORT_GROUP_ADDRESSES: [...groups],
  IMAP_MAILBOX: 'INBOX',
});

const outcome = (headers: readonly string[], cfg: AuthenticationCheckConfig) => senderAuthenticationOutcome(headers.map((h) => Buffer.from(h, 'latin1')), cfg);

const ourPass = block(`${OURS}; spf=pass smtp.mailfrom=shop.example; dkim=pass header.d=shop.example; dmarc=pass header.from=shop.example`);
// Exchange Online writes its field without an authserv-id.
const exchange = block('spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=shop.example; dkim=none; dmarc=pass action=none header.from=shop.example;compauth=pass');

describe('senderAuthenticationOutcome', () => {
  it.each<[name: string, headers: readonly string[], cfg: AuthenticationCheckConfig, status: string, where: string, says: readonly string[], saysNot?: readonly string[]]>([
    ['an empty mailbox: nothing to read, no warning', [], config(), 'skipped', 'AUTHSERV_ID not set', ['INBOX is empty: no mail to read the Authentication-Results of'], ['set AUTHSERV_ID']],
    [
      'AUTHSERV_ID unset, our server on top of most mail: names its id',
      [...times(18, ourPass), NONE, NONE],
      config(),
      'warning',
      'AUTHSERV_ID not set',
      [`set AUTHSERV_ID=${OURS}, the first word of the Authentication-Results your server writes on top of 18 of the last 20 mails in INBOX`, "a forger's own dmarc=pass can vouch for them"],
    ],
    [
      "only the topmost field counts: a forger's lower one is not named",
      times(3, block(`${OURS}; dmarc=none header.from=bank.example`, 'forger.example; dmarc=pass header.from=bank.example')),
      config(),
      'warning',
      'AUTHSERV_ID not set',
      [`set AUTHSERV_ID=${OURS}, `, 'on top of 3 of the last 3 mails in INBOX'],
      ['forger.example'],
    ],
    [
      'the id as the product reads it: folded, after a comment, without its version, lower case',
      times(2, 'Authentication-Results: (our MX) MX.Helpdesk.Test\r\n 1; dmarc=pass header.from=shop.example\r\n\r\n'),
      config(),
      'warning',
      'AUTHSERV_ID not set',
      [`set AUTHSERV_ID=${OURS}, `, 'on top of 2 of the last 2 mails'],
    ],
    [
      'no Authentication-Results at all: nothing vouches, quotes are left out, and it is the mail server to fix',
      times(20, NONE),
      config(),
      'warning',
      'AUTHSERV_ID not set',
      [
        'none of the last 20 mails in INBOX carries an Authentication-Results: your receiving server writes none, so nothing vouches for any sender and quotes with links or phone numbers are left out of replies',
        "a forger's own Authentication-Results would vouch for them",
        "turning it on is the mail server's DMARC/SPF/DKIM check, outside this product",
      ],
      ['set AUTHSERV_ID', 'group'],
    ],
    [
      'a few fields on top of a minority of mail are senders\' or forwarders\', not the server\'s: no id recommended',
      [block('mx.google.com; dmarc=pass'), block('relay.example; dmarc=pass'), block('mx.google.com; dkim=pass header.d=x.example'), ...times(7, NONE)],
      config(),
      'warning',
      'AUTHSERV_ID not set',
      ["only 3 of the last 10 mails in INBOX carry an Authentication-Results on top (by mx.google.com, relay.example), too few to be your receiving server's: it seems to write none"],
      ['set AUTHSERV_ID'],
    ],
    ['AUTHSERV_ID as the server writes it', [...times(18, ourPass), NONE, NONE], config([OURS]), 'ok', `AUTHSERV_ID ${OURS}`, ['on top of 18 of the last 20 mails in INBOX']],
    ['AUTHSERV_ID in capitals: compared as the product compares it', times(4, ourPass), config(['MX.HELPDESK.TEST']), 'ok', 'AUTHSERV_ID MX.HELPDESK.TEST', ['on top of 4 of the last 4 mails in INBOX']],
    ['one of two AUTHSERV_IDs', times(4, ourPass), config(['mx.old.example', OURS]), 'ok', `AUTHSERV_ID mx.old.example, ${OURS}`, ['on top of 4 of the last 4 mails']],
    [
      'AUTHSERV_ID misspelt: names what the server writes, and the group mail parked',
      times(20, ourPass),
      config(['mx.helpdsk.test'], [GROUP]),
      'warning',
      'AUTHSERV_ID mx.helpdsk.test',
      [
        `none of the last 20 mails in INBOX carries it on top: your server writes ${OURS} (on top of 20 of them); set AUTHSERV_ID=${OURS}, or nothing vouches for any sender and mail through the group is parked`,
      ],
    ],
    ['AUTHSERV_ID misspelt, no group: no group named', times(5, ourPass), config(['mx.helpdsk.test']), 'warning', 'AUTHSERV_ID mx.helpdsk.test', [`set AUTHSERV_ID=${OURS}, or nothing vouches for any sender`], ['group']],
    [
      "AUTHSERV_ID on top of one mail, another id on top of the rest: that one is the server's",
      [ourPass, ...times(19, block('mx.google.com; dmarc=pass header.from=shop.example'))],
      config([OURS]),
      'warning',
      `AUTHSERV_ID ${OURS}`,
      ['only 1 of the last 20 mails in INBOX carries it on top: your server writes mx.google.com (on top of 19 of them); set AUTHSERV_ID=mx.google.com, or nothing vouches for most senders'],
    ],
    [
      'AUTHSERV_ID set, no field at all: the group mail parked too',
      times(6, NONE),
      config([OURS], [GROUP]),
      'warning',
      `AUTHSERV_ID ${OURS}`,
      ['none of the last 6 mails in INBOX carries an Authentication-Results: your receiving server writes none', 'and mail through the group is parked'],
      ["forger's own"],
    ],
    [
      'Exchange Online, AUTHSERV_ID unset: its field is read as the server\'s, nothing to set',
      times(5, exchange),
      config(),
      'ok',
      'AUTHSERV_ID not set',
      ['your server writes its Authentication-Results without an authserv-id (on top of 5 of the last 5 mails in INBOX, as Exchange Online does)'],
      ['set AUTHSERV_ID'],
    ],
    [
      'Exchange Online, AUTHSERV_ID set: it can name no field, so nothing vouches',
      times(5, exchange),
      config([OURS], [GROUP]),
      'warning',
      `AUTHSERV_ID ${OURS}`,
      ['none of the last 5 mails in INBOX carries it on top: your server writes its Authentication-Results without an authserv-id (on top of 5 of them, as Exchange Online does), which AUTHSERV_ID cannot name', 'and mail through the group is parked'],
    ],
  ])('%s', async (_name, headers, cfg, status, where, says, saysNot = []) => {
    const result = await outcome(headers, cfg);
    expect(result).toMatchObject({ what: 'Sender authentication', where, status });
    for (const part of says) expect(result.detail).toContain(part);
    for (const part of saysNot) expect(result.detail).not.toContain(part);
  });

  // The id the check recommends must be the one the product then reads as its server's: following the advice makes
  // a pass in that field vouch for the sender.
  it.each([
    `${OURS}; dmarc=pass header.from=shop.example`,
    `(c) ${OURS.toUpperCase()} 1; dmarc=pass header.from=shop.example`,
    `${OURS};dmarc=pass header.from=shop.example`,
    `  ${OURS}\r\n  ; dkim=pass header.d=shop.example`,
  ])('recommends the id senderVouchedFor then accepts: %j', async (field) => {
    const result = await outcome(times(3, `Authentication-Results: ${field}\r\n\r\n`), config());
    const id = /set AUTHSERV_ID=(\S+),/.exec(result.detail ?? '')?.[1];
    expect(id, result.detail).toBeDefined();
    expect(id).toBe(authservIdOf(field.replace(/\r\n/g, '')));
    const mail = { from: { address: 'taro@shop.example', name: 'Taro' }, replyTo: undefined, contentType: 'text/plain', headers: { 'authentication-results': [field.replace(/\r\n/g, '')] } };
    expect(senderVouchedFor(mail, { ourAddresses: [], authservIds: [id!] })).toBe(true);
    expect(senderVouchedFor(mail, { ourAddresses: [], authservIds: [`${id!}.other`] })).toBe(false);
  });

  it("shows a sender's id without terminal controls, and a long one cut", async () => {
    const hostile = await outcome([block('mx\x1b[2J.evil.example; dmarc=pass'), ...times(3, NONE)], config());
    expect(hostile.detail).not.toMatch(/\x1b/);
    expect(hostile.detail).toContain('(by mx[2j.evil.example)');
    const long = await outcome([block(`${'a'.repeat(500)}.example; dmarc=pass`), ...times(3, NONE)], config());
    expect(long.detail).toContain(`${'a'.repeat(80)}…`);
    expect(long.detail).not.toContain('a'.repeat(81));
  });
});

