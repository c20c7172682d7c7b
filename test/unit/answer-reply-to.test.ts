/** foreignReplyToReason: which Reply-To addresses an automatic reply may go to, and which need a person. */
import { describe, expect, it } from 'vitest';
import { foreignReplyToReason } from '../../jobs/answer-ticket.js';

const TRUSTED = ['partner.example'];

describe('foreignReplyToReason', () => {
  it.each([
    ['no Reply-To of its own', 'taro@customer.example', 'taro@customer.example'],
    ['another mailbox of the sender domain', 'taro@customer.example', 'desk@customer.example'],
    ['a trusted domain', 'form@web.example', 'taro@partner.example'],
    ['a subdomain of a trusted domain', 'form@web.example', 'taro@mail.partner.example'],
  ])('lets the reply go to %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toBeUndefined();
  });

  it.each([
    ['another domain', 'taro@customer.example', 'victim@elsewhere.example'],
    // Only a whole label matches: a domain that merely ends in the trusted name belongs to someone else.
    ['a domain ending in a trusted name', 'form@web.example', 'victim@evilpartner.example'],
    ['the trusted name under another domain', 'form@web.example', 'victim@partner.example.attacker.example'],
  ])('parks a reply to %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, TRUSTED)).toMatch(/^Reply-To domain .* differs/);
  });
});
