/**
 * A Reply-To beside a From on one domain is the same sender on a company's domain, two strangers on a domain where
 * anyone holds a mailbox: the alias and relay services (duck.com, mozmail.com, SimpleLogin, addy.io) and the Japanese
 * ISPs whose subscribers share per-region hosts (ab.auone-net.jp). Security review 10 found those missing from the
 * shared-provider list, so `From: mallory@duck.com` with `Reply-To: victim@duck.com` was answered automatically.
 */
import { describe, expect, it } from 'vitest';
import { foreignReplyToReason } from '../../jobs/answer-ticket.js';

const SHARED = /is another mailbox than From .*, a shared mail provider: the same domain says nothing about who owns it/;

describe('foreignReplyToReason on alias services and shared ISP hosts', () => {
  it.each([
    ['DuckDuckGo Email Protection', 'mallory@duck.com', 'victim@duck.com'],
    ['Firefox Relay', 'mallory.x1@mozmail.com', 'victim.y2@mozmail.com'],
    ['SimpleLogin', 'mallory@simplelogin.com', 'victim@simplelogin.com'],
    ['SimpleLogin, its other domain', 'mallory@simplelogin.co', 'victim@simplelogin.co'],
    ['SimpleLogin, aleeas.com', 'mallory@aleeas.com', 'victim@aleeas.com'],
    ['addy.io (AnonAddy), anonaddy.me', 'mallory@anonaddy.me', 'victim@anonaddy.me'],
    ['addy.io (AnonAddy), anonaddy.com', 'mallory@anonaddy.com', 'victim@anonaddy.com'],
    ['addy.io', 'mallory@addy.io', 'victim@addy.io'],
    ['au one net, one shared host', 'mallory@ab.auone-net.jp', 'victim@ab.auone-net.jp'],
    ['em-net', 'mallory@aa.em-net.ne.jp', 'victim@aa.em-net.ne.jp'],
    ['t-com', 'mallory@tbm.t-com.ne.jp', 'victim@tbm.t-com.ne.jp'],
    ['alpha-web', 'mallory@mx1.alpha-web.ne.jp', 'victim@mx1.alpha-web.ne.jp'],
    ['TNC', 'mallory@cy.tnc.ne.jp', 'victim@cy.tnc.ne.jp'],
    ['InfoWeb', 'mallory@mb.infoweb.ne.jp', 'victim@mb.infoweb.ne.jp'],
    ['POINT', 'mallory@ma.point.ne.jp', 'victim@ma.point.ne.jp'],
    ['ACROSS', 'mallory@po.across.or.jp', 'victim@po.across.or.jp'],
    ['TTCN', 'mallory@mx2.ttcn.ne.jp', 'victim@mx2.ttcn.ne.jp'],
  ])('parks %s: %s → Reply-To %s', (_name, from, replyTo) => {
    expect(foreignReplyToReason({ from, replyTo }, [])).toMatch(SHARED);
  });

  it.each([
    ['a company, another of its mailboxes', 'taro@customer.co.jp', 'desk@customer.co.jp'],
    ['a company, its support subdomain', 'taro@customer.co.jp', 'desk@support.customer.co.jp'],
    ['a company whose name ends like a relay service', 'taro@myduck.com', 'desk@myduck.com'],
    ['a company whose name ends like an ISP host', 'taro@mytnc.ne.jp', 'desk@mytnc.ne.jp'],
    ['a company on a .co.jp namesake of an ISP', 'taro@point.co.jp', 'sales@point.co.jp'],
    ['the From itself with a +tag on an alias service', 'mallory@duck.com', 'mallory+support@duck.com'],
    ['an alias service the admin trusts', 'a@duck.com', 'b@duck.com', ['duck.com']],
  ])('answers %s', (_name, from, replyTo, trusted: readonly string[] = []) => {
    expect(foreignReplyToReason({ from, replyTo }, trusted)).toBeUndefined();
  });
});
