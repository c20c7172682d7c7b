/**
 * An Authentication-Results field our receiving server writes may echo text the sender chose, unescaped: the envelope
 * sender in Gmail's spf comment and in `smtp.mailfrom`, a DKIM selector in `header.s`. A quoted local part may hold
 * `(`, `)`, `"`, `;` and spaces, so such text can hide the server's `dmarc=fail` or put a `dmarc=pass` of its own
 * into the field (security review 10). A field that cannot be read one way only vouches for nothing and parks the
 * draft as a possibly forged sender; the well-formed fields of real receivers read as before.
 */
import { describe, expect, it } from 'vitest';
import { senderReviewReason } from '../../jobs/answer-ticket.js';
import { dmarcResultOf, forgedSenderDetail, ownMailboxesOf, replySignalHeaders, replySignalsOf, senderVouchedFor, type OwnMailboxes } from '../../src/mail/classify.js';
import { parseInboundMail } from '../../src/mail/parse.js';

const GMAIL = 'mx.google.com';
const UNREADABLE = /could not be read unambiguously/;

/** Gmail's field for a softfailing envelope sender `envelope` and a From on bank.example (p=reject). */
const gmail = (envelope: string, dmarc = 'fail (p=REJECT sp=REJECT dis=REJECT)') =>
  `${GMAIL}; dkim=none; spf=softfail (google.com: domain of transitioning ${envelope} does not designate 203.0.113.5 as permitted sender) smtp.mailfrom=${envelope}; dmarc=${dmarc} header.from=bank.example`;
/** Gmail's field for an envelope sender on the forger's own domain, whose SPF the forger passes. */
const gmailPass = (envelope: string, dmarc = 'none (p=NONE sp=NONE dis=NONE)') =>
  `${GMAIL}; dkim=none; spf=pass (google.com: domain of ${envelope} designates 203.0.113.5 as permitted sender) smtp.mailfrom=${envelope}; dmarc=${dmarc} header.from=bank.example`;

/** Stalwart's field for a forger's signature whose i= tag decodes to `identity`, the forger passing SPF, bank.example without DMARC. */
const stalwart = (identity: string) =>
  `mx.helpdesk.test; dkim=pass header.i=${identity} header.s=sel header.b=AbCdEf; spf=pass (mx.helpdesk.test: domain of x@evil.example designates 203.0.113.5 as permitted sender) smtp.mailfrom=x@evil.example; dmarc=none header.from=bank.example`;

/** A forged From on bank.example with `field` as its topmost Authentication-Results. */
const forged = (field: string) => ({ from: { address: 'ceo@bank.example', name: '' }, replyTo: undefined, contentType: 'text/plain', headers: { 'authentication-results': [field] } });

const withoutId: OwnMailboxes = { ourAddresses: ['support@support.example'] };
const withId: OwnMailboxes = { ourAddresses: ['support@support.example'], authservIds: [GMAIL] };

// Each row: a field whose text a forger chose, which the reading before this fix took for no failure, or for a pass.
const HOSTILE: readonly (readonly [string, string])[] = [
  ['envelope "x(y"@evil.example in the spf comment (an unclosed comment swallows dmarc=fail)', gmail('"x(y"@evil.example')],
  ['envelope "a);dmarc=pass header.from=bank.example;x"@evil.example (a dmarc=pass of its own)', gmail('"a);dmarc=pass header.from=bank.example;x"@evil.example')],
  ['DKIM selector a"b', `${GMAIL}; dkim=neutral (no key for signature) header.i=@bank.example header.s=a"b header.b=AAAA; spf=softfail smtp.mailfrom=x@evil.example; dmarc=fail (p=REJECT sp=REJECT dis=REJECT) header.from=bank.example`],
  ['DKIM selector a(b', `${GMAIL}; dkim=neutral (no key for signature) header.i=@bank.example header.s=a(b header.b=AAAA; spf=softfail smtp.mailfrom=x@evil.example; dmarc=fail (p=REJECT sp=REJECT dis=REJECT) header.from=bank.example`],
  ['rspamd order, envelope "x(y"@evil.example, dmarc last', `${GMAIL}; dkim=none; spf=softfail (${GMAIL}: domain of "x(y"@evil.example is not allowed) smtp.mailfrom="x(y"@evil.example; dmarc=fail reason="No valid SPF, No valid DKIM" header.from=bank.example (policy=reject)`],
  // Balanced throughout: the comment closes inside the envelope and a new one opens there, so the text between is
  // a result element of its own, a dkim=pass for the From's domain.
  ['a balanced envelope that puts a dkim=pass for bank.example between two comments', gmailPass('"a);dkim=pass header.d=bank.example;(b"@evil.example')],
  ['a balanced envelope that puts smtp.mailfrom=bank.example before the real one', gmailPass('"a) smtp.mailfrom=bank.example (b"@evil.example')],
  // A quoted local part that starts like a domain: split at its space, smtp.mailfrom read as bank.example.
  ['an envelope "bank.example x"@evil.example, SPF passing for evil.example', gmailPass('"bank.example x"@evil.example')],
  ['two dmarc results', `${GMAIL}; dmarc=pass header.from=bank.example; dmarc=fail header.from=bank.example`],
  ['two spf results for the HELO name', `${GMAIL}; spf=pass smtp.helo=bank.example; spf=fail smtp.helo=bank.example; dmarc=pass header.from=bank.example`],
  ['two spf results', `${GMAIL}; spf=pass smtp.mailfrom=bank.example; spf=fail smtp.mailfrom=bank.example`],
  ['two spf results for the PRA (IronPort names the identity)', `${GMAIL}; spf=pass smtp.pra=ceo@bank.example; spf=fail smtp.pra=ceo@bank.example; spf=pass smtp.mailfrom=x@evil.example; dmarc=pass header.from=bank.example`],
  ['an element of two words where Exchange writes a bare tenant domain', `${GMAIL}; spf=softfail smtp.mailfrom=x@evil.example; bank.example x; dmarc=fail header.from=bank.example`],
  ['a quoted bare domain element', `${GMAIL}; spf=softfail smtp.mailfrom=x@evil.example; "bank.example"; dmarc=fail header.from=bank.example`],
  ['a ")" that closes no comment', `${GMAIL}; spf=softfail smtp.mailfrom=x@evil.example a); dmarc=pass header.from=bank.example`],
  ['a dmarc=fail hidden in a quoted string', `${GMAIL}; spf=none reason="x; dmarc=fail header.from=bank.example"; dkim=pass header.d=bank.example`],
  // Stalwart writes a signature's i= tag, decoded, as header.i (in place of header.d) without quoting it. The local
  // part of i= may hold anything (=20 is a space), and the signature passes when the part after its last @ is the
  // signer's own domain: the forger's signature for evil.example reads as one for bank.example, which has no DMARC.
  ['Stalwart: a signing identity "x header.d=bank.example @evil.example" (i= with =20)', stalwart('x header.d=bank.example @evil.example')],
  ['Stalwart: a signing identity "x@bank.example header.d=bank.example z=q@evil.example"', stalwart('x@bank.example header.d=bank.example z=q@evil.example')],
  ['Stalwart: a signing identity that writes a dmarc=pass of its own (i= with =3B, the server checking no DMARC)', `mx.helpdesk.test; dkim=pass header.i=x; dmarc=pass header.from=bank.example @evil.example header.s=sel header.b=AbCdEf; spf=pass smtp.mailfrom=x@evil.example`],
  // Bug review 42a: i= with =3B writes results of its own; the signature's header.s and header.b, which follow the
  // echo, then stand in a result of another method.
  ['Stalwart: a signing identity that writes a dkim=pass for bank.example and an auth result to end in', `mx.helpdesk.test; dkim=pass header.i=a@evil.example; dkim=pass header.d=bank.example; auth=pass smtp.auth=z@evil.example header.s=sel header.b=AbCdEf; spf=pass (mx.helpdesk.test: domain of x@evil.example designates 203.0.113.5 as permitted sender) smtp.mailfrom=x@evil.example; dmarc=none header.from=bank.example`],
  ['a selector with a space after a signing identity on evil.example: header.d=bank.example', `mx.helpdesk.test; dkim=pass header.i=x@evil.example header.s=sel header.d=bank.example header.b=AbCdEf; spf=pass smtp.mailfrom=x@evil.example; dmarc=none header.from=bank.example`],
];

describe('an Authentication-Results field a forger wrote into: nothing vouches, the draft is parked', () => {
  it.each(HOSTILE)('%s', (_name, field) => {
    for (const boxes of [withoutId, withId]) {
      expect(senderVouchedFor(forged(field), boxes)).toBe(false);
      expect(forgedSenderDetail(forged(field), boxes)).toMatch(UNREADABLE);
    }
  });

  it('never vouches through an spf=pass whose smtp.mailfrom has a quoted local part', () => {
    const quoted = `${GMAIL}; spf=pass smtp.mailfrom="ceo"@bank.example; dmarc=none header.from=bank.example`;
    expect(senderVouchedFor(forged(quoted), withId)).toBe(false);
    expect(senderVouchedFor(forged(`${GMAIL}; spf=pass smtp.mailfrom=ceo@bank.example; dmarc=none header.from=bank.example`), withId)).toBe(true);
  });
});

// Security review 12, F4: every `;dmarc=fail` hidden in a comment scanned the whole result list, so a field of a
// megabyte (the parser's header-section limit) of results and hidden failures took 12-27 s to read, at intake and
// again at each check. Real receivers write a few hundred bytes to a few KB; a field far over that is read as
// unreadable, which vouches for nothing and parks the draft as a possibly forged sender.
describe('a field far larger than any receiving server writes', () => {
  const pass = `${GMAIL}; dkim=pass header.i=@bank.example header.s=sel header.b=AbCdEf; spf=pass smtp.mailfrom=ceo@bank.example; dmarc=pass header.from=bank.example`;
  it.each([
    ['a megabyte of results, then of dmarc=fail hidden in comments', `${pass}; ${'a=b;'.repeat(110_000)}${'(;dmarc=fail)'.repeat(45_000)}`],
    ['a megabyte of results with no hidden failure (a well-formed pass for bank.example first)', `${pass}; ${'a=b;'.repeat(262_000)}`],
    ['17 KB of hidden failures after a pass', `${pass}; ${'(;dmarc=fail)'.repeat(1_300)}`],
  ])('%s: read at once, as unreadable, vouching for nothing', (_name, field) => {
    const started = performance.now();
    for (const boxes of [withoutId, withId]) {
      expect(senderVouchedFor(forged(field), boxes)).toBe(false);
      expect(forgedSenderDetail(forged(field), boxes)).toMatch(UNREADABLE);
    }
    expect(dmarcResultOf(field)).toBeUndefined();
    // 12-27 s before the fix; a bound that cannot flake on a loaded machine.
    expect(performance.now() - started).toBeLessThan(2_000);
  }, 120_000);

  it('control: the same pass with a few KB of results and comments is read as before', () => {
    const field = `${pass}; ${'a=b;'.repeat(500)}${'(a comment)'.repeat(200)}`;
    expect(field.length).toBeGreaterThan(4_000);
    expect(senderVouchedFor(forged(field), withId)).toBe(true);
    expect(forgedSenderDetail(forged(field), withId)).toBeUndefined();
    expect(dmarcResultOf(field)).toBe('pass');
  });
});

// The whole way a mail takes to the gate before sending: raw mail, parsed as the poller parses it, its signals, the
// post-draft check. Each hostile field must hold the draft with a reason that tells the operator why.
describe('the post-draft gate on raw mail with such a field', () => {
  const config = { MAIL_FROM: 'support@support.example', SUPPORT_ADDRESSES: [], SUPPORT_GROUP_ADDRESSES: [], AUTHSERV_ID: [GMAIL], TRUSTED_REPLY_TO_DOMAINS: [], TRUSTED_LINK_DOMAINS: [], SPAM_HEADER: undefined };
  async function gate(field: string) {
    const raw = Buffer.from(
      [`Authentication-Results: ${field}`, 'From: Bank Customer <victim@bank.example>', 'To: support@support.example', 'Subject: 解約について', 'Message-ID: <p1@evil.example>', 'Date: Fri, 27 Nov 2026 10:00:00 +0900', 'Content-Type: text/plain; charset=utf-8', '', '解約の手続き方法を教えてください。'].join('\r\n'),
    );
    const mail = await parseInboundMail(raw, { extraHeaders: replySignalHeaders(config) });
    const signals = replySignalsOf(mail)!;
    return { hold: senderReviewReason({ from: 'victim@bank.example', replyTo: 'victim@bank.example', question: mail.question, subject: mail.subject }, signals, config), vouched: senderVouchedFor(signals, ownMailboxesOf(config)) };
  }

  it.each(HOSTILE)('%s', async (_name, field) => {
    const { hold, vouched } = await gate(field);
    expect(vouched).toBe(false);
    expect(hold?.kind).toBe('forged-sender');
    expect(hold?.reason).toMatch(/^possibly forged sender: .*could not be read unambiguously/);
  });

  it('control: the plain envelope sender is parked for its dmarc=fail', async () => {
    const { hold } = await gate(gmail('x@evil.example'));
    expect(hold?.reason).toMatch(/^possibly forged sender: .*dmarc=fail/);
  });
});

// The formats of real receivers, well formed, read as before: the verdict they give and whether they vouch.
describe('well-formed fields of real receivers read as before', () => {
  const from = 'taro@shop.example';
  const mail = (field: string) => ({ from: { address: from, name: '' }, replyTo: undefined, contentType: 'text/plain', headers: { 'authentication-results': [field] } });
  it.each<[string, string, string | undefined, boolean]>([
    ['Gmail, everything passing, with an ARC comment', `${GMAIL}; dkim=pass header.i=@shop.example header.s=google header.b=AbC+d/12; arc=pass (i=1 spf=pass spfdomain=shop.example dkim=pass dkdomain=shop.example dmarc=pass fromdomain=shop.example); spf=pass (google.com: domain of taro@shop.example designates 209.85.220.41 as permitted sender) smtp.mailfrom=taro@shop.example; dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=shop.example`, undefined, true],
    ['Gmail, dmarc=fail', `${GMAIL}; spf=softfail (google.com: domain of transitioning x@evil.example does not designate 203.0.113.5 as permitted sender) smtp.mailfrom=x@evil.example; dmarc=fail (p=REJECT sp=REJECT dis=REJECT) header.from=shop.example`, 'dmarc=fail', false],
    ['Microsoft 365 (no authserv-id)', 'spf=pass (sender IP is 40.107.74.1) smtp.mailfrom=shop.example; dkim=pass (signature was verified) header.d=shop.example;dmarc=pass action=none header.from=shop.example;compauth=pass reason=100', undefined, true],
    ['Microsoft 365 with an authserv-id, dmarc=fail', 'mx.microsoft.com 1; spf=fail (sender IP is 203.0.113.5) smtp.mailfrom=evil.example; dkim=none (message not signed) header.d=none;dmarc=fail action=oreject header.from=shop.example;compauth=fail reason=000', 'dmarc=fail', false],
    ['OpenDKIM with a quoted header.b, OpenDMARC', 'mx.helpdesk.test; dkim=pass (2048-bit key; unprotected) header.d=shop.example header.i=@shop.example header.a=rsa-sha256 header.s=s1 header.b="AbCd1234"; dmarc=pass (p=none dis=none) header.from=shop.example', undefined, true],
    ['OpenDMARC alone, fail', 'mx.helpdesk.test; dmarc=fail (p=reject dis=none) header.from=shop.example', 'dmarc=fail', false],
    ['rspamd', 'mx.helpdesk.test; dkim=pass header.d=shop.example header.s=default header.b=abcdEF12; dmarc=pass (policy=reject) header.from=shop.example; spf=pass (mx.helpdesk.test: domain of taro@shop.example designates 203.0.113.7 as permitted sender) smtp.mailfrom=taro@shop.example', undefined, true],
    ['rspamd, dmarc=fail with a quoted reason', 'mx.helpdesk.test; dkim=none; spf=softfail (mx.helpdesk.test: domain of x@evil.example is not allowed) smtp.mailfrom=x@evil.example; dmarc=fail reason="No valid SPF, No valid DKIM" header.from=shop.example (policy=reject)', 'dmarc=fail', false],
    ['Dovecot/Postfix with policyd-spf and OpenDKIM', 'mail.helpdesk.test; spf=pass (sender SPF authorized) smtp.mailfrom=shop.example (client-ip=203.0.113.7; helo=mail.shop.example; envelope-from=taro@shop.example); dkim=pass (1024-bit key) header.d=shop.example header.i=@shop.example', undefined, true],
    ['Stalwart', 'mx.helpdesk.test; dkim=pass header.d=shop.example header.s=sel header.b=AbCd; spf=pass (mx.helpdesk.test: domain of taro@shop.example designates 203.0.113.7 as permitted sender) smtp.mailfrom=taro@shop.example; dmarc=pass header.from=shop.example', undefined, true],
    ['Fastmail (authentication-milter)', 'mx.messagingengine.com; bimi=none (No BIMI records found); dkim=pass (2048-bit rsa key sha256) header.d=shop.example header.i=@shop.example header.b=AbCd header.a=rsa-sha256 header.s=s1 x-bits=2048; dmarc=pass policy.published-domain-policy=none policy.applied-disposition=none policy.evaluated-disposition=none (p=none,d=none,d.eval=none) policy.policy-from=p header.from=shop.example; iprev=pass smtp.remote-ip=203.0.113.7 (mail.shop.example); spf=pass smtp.mailfrom=taro@shop.example smtp.helo=mail.shop.example; x-aligned-from=pass (Address match); x-return-mx=pass header.domain=shop.example policy.is_org=yes (MX Records found: mx.shop.example); x-return-mx=pass smtp.domain=shop.example policy.is_org=yes (MX Records found: mx.shop.example); x-tls=pass smtp.version=TLSv1.3 smtp.cipher=TLS_AES_256_GCM_SHA384 smtp.bits=256/256', undefined, true],
    ['Stalwart with its EHLO check on: an spf result for the HELO name beside the envelope sender\'s', 'mx.helpdesk.test; dkim=pass header.d=shop.example header.s=sel header.b=AbCd; spf=pass (mx.helpdesk.test: domain of mail.shop.example designates 203.0.113.7 as permitted sender) smtp.helo=mail.shop.example; spf=pass (mx.helpdesk.test: domain of taro@shop.example designates 203.0.113.7 as permitted sender) smtp.mailfrom=taro@shop.example; dmarc=pass header.from=shop.example', undefined, true],
    ['Cisco Secure Email (IronPort): spf for the PRA, the envelope sender and the HELO name', 'esa1.shop.iphmx.com; spf=None smtp.pra=taro@shop.example; spf=Pass smtp.mailfrom=taro@shop.example; spf=None smtp.helo=postmaster@mail.shop.example; dkim=pass (signature verified) header.i=@shop.example; dmarc=pass (p=none dis=none) d=shop.example', undefined, true],
    ['Cisco Secure Email (IronPort) without DKIM or DMARC, verbatim shape', 'esa6.hc3370-68.iphmx.com; dkim=none (message not signed) header.i=none; spf=None smtp.pra=taro@shop.example; spf=Pass smtp.mailfrom=taro@shop.example; spf=None smtp.helo=postmaster@mail.shop.example', undefined, true],
    ['Microsoft 365, 2019-21 form with bare tenant-domain elements', 'spf=pass (sender IP is 123.126.97.3) smtp.mailfrom=shop.example; shopexample.onmicrosoft.com; dkim=pass (signature was verified) header.d=shop.example;shopexample.onmicrosoft.com; dmarc=pass action=none header.from=shop.example;compauth=pass reason=100', undefined, true],
    // Bug review 42c: dkim-adsp (RFC 5617) and the legacy domainkeys name the author in header.from, an address.
    ['dkim-adsp beside a dkim pass (RFC 5617: header.from is the author\'s address)', 'mx.helpdesk.test; dkim=pass header.d=shop.example header.s=s1; dkim-adsp=pass header.from=taro@shop.example', undefined, true],
    ['legacy domainkeys with the author\'s address', 'mx.helpdesk.test; domainkeys=pass header.from=taro@shop.example; dmarc=pass header.from=shop.example', undefined, true],
    // Bug review 42b: authentication-milter (Fastmail) checks Gmail's X-Google-DKIM-Signature too and writes its
    // header.b under x-google-dkim.
    ['Fastmail, a Gmail customer: an x-google-dkim result with header.d and header.b', 'mx.messagingengine.com; arc=none (no signatures found); dkim=pass (2048-bit rsa key sha256) header.d=shop.example header.i=@shop.example header.b=AbCdEfGh header.a=rsa-sha256 header.s=20230601 x-bits=2048; dmarc=pass policy.published-domain-policy=none (p=none,d=none,d.eval=none) policy.policy-from=p header.from=shop.example; iprev=pass smtp.remote-ip=209.85.128.41 (mail-wm1-f41.google.com); spf=pass smtp.mailfrom=taro@shop.example smtp.helo=mail-wm1-f41.google.com; x-google-dkim=pass (2048-bit rsa key) header.d=1e100.net header.i=@1e100.net header.b=XyZ12345; x-me-sender=none', undefined, true],
    // Bug review 42a: shapes the signing-identity rules first read as unreadable.
    ['Amazon SES inbound (client-ip, envelope-from and helo as elements of their own)', 'amazonses.com; spf=pass (spfCheck: domain of _spf.google.com designates 209.85.160.178 as permitted sender) client-ip=209.85.160.178; envelope-from=taro.yamada@shop.example; helo=mail-qt1-f178.google.com; dkim=pass header.i=@shop.example; dmarc=pass header.from=shop.example;', undefined, true],
    ['Zoho: header.i as a bare domain', 'mx.zohomail.com; dkim=pass  header.i=shop.example; spf=pass  smtp.mailfrom=taro@shop.example; dmarc=pass header.from=shop.example', undefined, true],
    ['Zoho: header.i as a bare domain, dmarc not checked', 'mx.zohomail.com; dkim=pass header.i=shop.example; spf=none', undefined, true],
    ['Sendmail dkim-milter, unsigned: header.i=unknown', 'mail1.helpdesk.test; dkim=none (no signature) header.i=unknown; dkim-adsp=none; dmarc=pass header.from=shop.example', undefined, true],
    ['Haraka, a signature it could not check: header.i=undefined', 'mx.helpdesk.test; dkim=temperror header.i=undefined; spf=pass smtp.mailfrom=taro@shop.example; dmarc=pass header.from=shop.example', undefined, true],
    ['Stalwart, a signature with an i= tag (header.i in place of header.d)', 'mx.helpdesk.test; dkim=pass header.i=taro@mail.shop.example header.s=sel header.b=AbCd; spf=pass (mx.helpdesk.test: domain of taro@shop.example designates 203.0.113.7 as permitted sender) smtp.mailfrom=taro@shop.example; dmarc=none header.from=shop.example', undefined, true],
    ['OpenDKIM, a failing signature whose identity lies outside its domain (a broken signer: vouches for nothing, hides nothing)', 'mx.helpdesk.test; dkim=permerror (bad signature) header.d=shop.example header.i=@other.example header.s=s1; dmarc=pass header.from=shop.example', undefined, true],
    ['OpenDKIM, a signing identity on a subdomain of the signing domain', 'mx.helpdesk.test; dkim=pass (2048-bit key) header.d=shop.example header.i=news@mail.shop.example header.s=s1', undefined, true],
    ['Exim', 'mx.helpdesk.test; iprev=pass (mail.shop.example) smtp.remote-ip=203.0.113.7; spf=pass smtp.mailfrom=shop.example; dkim=pass header.d=shop.example header.s=s1 header.a=rsa-sha256; dmarc=pass header.from=shop.example; arc=none', undefined, true],
    ['a version after the authserv-id and no result', 'mx.helpdesk.test 1; none', undefined, false],
    ['a trailing semicolon', 'mx.helpdesk.test; dmarc=pass header.from=shop.example;', undefined, true],
    ['a quoted reason holding a semicolon and parentheses', 'mx.helpdesk.test; spf=none reason="no (such); record"; dmarc=pass header.from=shop.example', undefined, true],
  ])('%s', (_name, field, forgedAs, vouched) => {
    const detail = forgedSenderDetail(mail(field), withoutId);
    if (forgedAs === undefined) expect(detail).toBeUndefined();
    else expect(detail).toContain(forgedAs);
    expect(senderVouchedFor(mail(field), withoutId)).toBe(vouched);
  });
});

// Bug review 42a: the echo can write whole results (i= with =3B); a field with more dkim results than the mail has
// DKIM-Signature fields holds results no verifier wrote. The count is recorded with the reply signals at ingest.
describe('more dkim results than the mail has signatures', () => {
  const injected = `mx.helpdesk.test; dkim=pass header.i=a@evil.example; dkim=pass header.d=bank.example; dkim=neutral header.i=z@evil.example header.s=sel header.b=AbCdEf; spf=pass (mx.helpdesk.test: domain of x@evil.example designates 203.0.113.5 as permitted sender) smtp.mailfrom=x@evil.example; dmarc=none header.from=bank.example`;
  const signed = (field: string, dkimSignatures?: number) => ({ ...forged(field), ...(dkimSignatures === undefined ? {} : { dkimSignatures }) });
  it('three dkim results of one signature: nothing vouches, the draft is parked', () => {
    expect(senderVouchedFor(signed(injected, 1), withoutId)).toBe(false);
    expect(forgedSenderDetail(signed(injected, 1), withoutId)).toMatch(UNREADABLE);
  });
  it('as many results as signatures, dkim=none not counted: read as before', () => {
    const two = `${GMAIL}; dkim=pass header.i=@bank.example header.s=a header.b=AAAA; dkim=pass header.i=@esp.example header.s=b header.b=BBBB; dkim-atps=neutral; spf=pass smtp.mailfrom=x@esp.example; dmarc=pass header.from=bank.example`;
    expect(senderVouchedFor(signed(two, 2), withoutId)).toBe(true);
    expect(senderVouchedFor(signed(`mx.helpdesk.test; dkim=none (message not signed) header.i=none; dmarc=pass header.from=bank.example`, 0), withoutId)).toBe(true);
  });
  it('counted from the raw mail at ingest: the signals record the number of DKIM-Signature fields, not the fields', async () => {
    const raw = Buffer.from(
      [`Authentication-Results: ${injected}`, 'DKIM-Signature: v=1; a=rsa-sha256; d=evil.example; s=sel; i=a@evil.example; h=from; bh=x; b=AbCdEfGh', 'From: Bank <ceo@bank.example>', 'To: support@support.example', 'Subject: s', 'Message-ID: <c1@evil.example>', 'Content-Type: text/plain; charset=utf-8', '', 'question'].join('\r\n'),
    );
    const mail = await parseInboundMail(raw, { extraHeaders: replySignalHeaders({ SPAM_HEADER: undefined }) });
    const signals = replySignalsOf(mail)!;
    expect(signals.dkimSignatures).toBe(1);
    expect(signals.headers['dkim-signature']).toBeUndefined();
    expect(senderVouchedFor(signals, withoutId)).toBe(false);
    expect(forgedSenderDetail(signals, withoutId)).toMatch(UNREADABLE);
  });
});

// Bug review 42d: the echo chooses the method names of the results it writes, so which method may carry a selector
// proves nothing; what does is the count of results that name a signature (a header.i, .d, .s or .b, or any result
// but none) against the mail's signature fields (DKIM-Signature, and X-Google-DKIM-Signature and DomainKey-Signature,
// which verifiers also report).
describe('results that name a signature, counted against the signature fields', () => {
  const ending = (method: string) =>
    `mx.helpdesk.test; dkim=pass header.i=a@evil.example; dkim=pass header.d=bank.example; ${method}=pass header.from=z@evil.example header.s=sel header.b=AbCdEf; spf=pass smtp.mailfrom=x@evil.example; dmarc=none header.from=bank.example`;
  const signed = (field: string, dkimSignatures: number) => ({ ...forged(field), dkimSignatures });
  it.each(['domainkeys', 'dkim-adsp', 'dkim-atps', 'x-dkim-evil', 'xdomainkeysx'])('an echo ending in a %s result: nothing vouches, with one signature field or two', (method) => {
    for (const count of [1, 2]) {
      expect(senderVouchedFor(signed(ending(method), count), withoutId)).toBe(false);
      expect(forgedSenderDetail(signed(ending(method), count), withoutId)).toMatch(UNREADABLE);
    }
  });
  it('Fastmail: a dkim and an x-google-dkim result for a DKIM-Signature and an X-Google-DKIM-Signature read as before', () => {
    const field = 'mx.messagingengine.com; dkim=pass (2048-bit rsa key sha256) header.d=shop.example header.i=@shop.example header.b=AbCdEfGh header.s=s1; dmarc=pass header.from=shop.example; x-google-dkim=pass (2048-bit rsa key) header.d=1e100.net header.i=@1e100.net header.b=XyZ12345';
    const taro = { ...signed(field, 2), from: { address: 'taro@shop.example', name: '' } };
    expect(senderVouchedFor(taro, withoutId)).toBe(true);
    expect(forgedSenderDetail(taro, withoutId)).toBeUndefined();
    // One result more than the mail's signature fields: unreadable.
    expect(forgedSenderDetail({ ...taro, dkimSignatures: 1 }, withoutId)).toMatch(UNREADABLE);
  });
  it('counted at ingest over DKIM-Signature, X-Google-DKIM-Signature and DomainKey-Signature fields', async () => {
    const raw = Buffer.from(
      ['Authentication-Results: mx.helpdesk.test; dkim=pass header.d=shop.example', 'DKIM-Signature: v=1; d=shop.example; s=a; b=AAAA', 'X-Google-DKIM-Signature: v=1; d=1e100.net; s=b; b=BBBB', 'DomainKey-Signature: a=rsa-sha1; d=shop.example; s=c; b=CCCC', 'From: Taro <taro@shop.example>', 'To: support@support.example', 'Subject: s', 'Message-ID: <c2@shop.example>', 'Content-Type: text/plain; charset=utf-8', '', 'question'].join('\r\n'),
    );
    const mail = await parseInboundMail(raw, { extraHeaders: replySignalHeaders({ SPAM_HEADER: undefined }) });
    const signals = replySignalsOf(mail)!;
    expect(signals.dkimSignatures).toBe(3);
    expect(Object.keys(signals.headers).filter((h) => h.includes('signature'))).toEqual([]);
  });
});
