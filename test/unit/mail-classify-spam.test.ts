/**
 * Whose "not spam" verdict outweighs a spam filter's score. Headers are prepended as mail travels: the filter writes
 * its block on top of what the mail arrived with, so a verdict further down was written before the score, by the
 * sender or an earlier hop, and a spammer who writes `X-Spam-Status: No` under its own mail must not cancel the
 * score. The rows are whole mails through the parser, and each decides again from the signals a ticket stores.
 */
import { describe, expect, it } from 'vitest';
import { decideReply, replySignalHeaders, replySignalsOf } from '../../src/mail/classify.js';
import { parseInboundMail } from '../../src/mail/parse.js';

const ctx = { ourAddresses: ['support@support.example'], loopMarker: 'helpdesk-worker' };

// Our receiving server's trace: a hop between the filter's block and whatever the sender wrote.
const RECEIVED = 'Received: from mx.spammer.example (mx.spammer.example [192.0.2.9]) by mx.support.example; Mon, 2 Mar 2026 10:00:00 +0900';
const SENDER = ['From: Shop <offer@spammer.example>', 'To: support@support.example', 'Subject: Cheap pills', 'Message-ID: <s1@spammer.example>'];

/** A mail whose header fields are `top` (the filter's block and our hops), our Received, then `sender` and the sender's own. */
function mail(top: string[], sender: string[] = []): Buffer {
  return Buffer.from([...top, RECEIVED, ...sender, ...SENDER, 'Content-Type: text/plain', '', 'How much is it?', ''].join('\r\n'));
}

/**
 * The decision on `raw` as the poller makes it from the parsed mail, checked to be the one the agent worker makes again
 * from what the ticket stores (JSON: the order of the headers, and no text).
 */
async function decidedTwice(raw: Buffer): Promise<ReturnType<typeof decideReply>> {
  const parsed = await parseInboundMail(raw, { extraHeaders: replySignalHeaders({ SPAM_HEADER: undefined }) });
  const decision = decideReply(parsed, ctx);
  const stored = JSON.parse(JSON.stringify(replySignalsOf(parsed))) as NonNullable<ReturnType<typeof replySignalsOf>>;
  expect(decideReply({ ...stored, subject: parsed.subject }, ctx)).toEqual(decision);
  return decision;
}

describe('a "not spam" verdict outweighs the score only when the same filter wrote it in the same block', () => {
  it.each<[string, Buffer, 'spam' | 'answer']>([
    // The security finding: a spammer's own verdict under the filter's score.
    ["a sender's X-Spam-Status: No under SpamAssassin's stars", mail(['X-Spam-Level: **********'], ['X-Spam-Status: No']), 'spam'],
    ["a sender's X-Spam-Status: No with a made-up score", mail(['X-Spam-Level: **********'], ['X-Spam-Status: No, score=1.0 required=5.0']), 'spam'],
    ["a sender's X-Spam-Flag: NO under SpamAssassin's stars", mail(['X-Spam-Level: *******'], ['X-Spam-Flag: NO']), 'spam'],
    ["another site's MailScanner verdict under the scanner's score", mail(['X-acme-MailScanner-SpamScore: sssssssss'], ['X-evil-MailScanner-SpamCheck: not spam']), 'spam'],
    ["another site's MailScanner verdict above the scanner's score", mail(['X-evil-MailScanner-SpamCheck: not spam', 'X-acme-MailScanner-SpamScore: sssssssss']), 'spam'],
    ["a verdict forged under the site's own MailScanner name", mail(['X-acme-MailScanner-SpamScore: sssssssss'], ['X-acme-MailScanner-SpamCheck: not spam']), 'spam'],
    ['MailScanner without a site name, a verdict of another site above', mail(['X-evil-MailScanner-SpamCheck: not spam', 'X-MailScanner-SpamScore: sssssss']), 'spam'],
    // Genuine filter output: the site's own threshold is above the default 5 points.
    [
      'SpamAssassin: Checker-Version, Level, then Status No under a raised threshold',
      mail(['X-Spam-Checker-Version: SpamAssassin 4.0.0 (2022-12-13) on mx.support.example', 'X-Spam-Level: *******', 'X-Spam-Status: No, score=7.2 required=10.0 tests=BAYES_50,HTML_MESSAGE autolearn=no version=4.0.0']),
      'answer',
    ],
    [
      'amavis: Flag NO, Score, Level, Status under a raised threshold',
      mail(['X-Virus-Scanned: Debian amavis at mx.support.example', 'X-Spam-Flag: NO', 'X-Spam-Score: 6.1', 'X-Spam-Level: ******', 'X-Spam-Status: No, score=6.1 tagged_above=-999 required=8 tests=[BAYES_50=0.8]']),
      'answer',
    ],
    ['SpamAssassin: Status above Level (config order)', mail(['X-Spam-Status: No, score=5.4 required=8.0', 'X-Spam-Level: *****']), 'answer'],
    ['a later hop of ours says not spam above the score', mail(['X-Spam-Status: No', 'X-Spam-Level: ********']), 'answer'],
    [
      'MailScanner: the site\'s SpamCheck above its SpamScore',
      mail(['X-acme-MailScanner-SpamCheck: not spam, SpamAssassin (not cached, score=6.5, required 8, BAYES_50 0.80)', 'X-acme-MailScanner-SpamScore: ssssss']),
      'answer',
    ],
    [
      'MailScanner: the site\'s SpamScore above its SpamCheck, the same score',
      mail(['X-acme-MailScanner-SpamScore: ssssss', 'X-acme-MailScanner-SpamCheck: not spam, SpamAssassin (not cached, score=6.5, required 8, BAYES_50 0.80)']),
      'answer',
    ],
    ['MailScanner without a site name: SpamCheck above SpamScore', mail(['X-MailScanner-SpamCheck: not spam (whitelisted)', 'X-MailScanner-SpamScore: sssssss']), 'answer'],
    // rspamd's milter_headers write no threshold (its default reject score is 6): the score the stars show is its reading.
    ["rspamd: Level, then Status No with the stars' score and no threshold", mail(['X-Spam-Level: *****', 'X-Spam-Status: No, score=5.90']), 'answer'],
    ["rspamd: Status No with no threshold above Level", mail(['X-Spam-Status: No, score=6.20', 'X-Spam-Level: ******']), 'answer'],
    // A verdict of the same filter that does not agree with its own stars is not its reading of this mail.
    ['SpamAssassin: Status No below with another score than the stars', mail(['X-Spam-Level: **********', 'X-Spam-Status: No, score=7.2 required=10.0']), 'spam'],
    ['SpamAssassin: Status No below whose score reaches its threshold', mail(['X-Spam-Level: *******', 'X-Spam-Status: No, score=7.2 required=7.0']), 'spam'],
    ['a Status No below with no threshold and another score than the stars', mail(['X-Spam-Level: ********', 'X-Spam-Status: No, score=5.90']), 'spam'],
    ["a sender's Status No with no threshold and a made-up score", mail(['X-Spam-Level: *****'], ['X-Spam-Status: No, score=1.0']), 'spam'],
    ['a Status No below naming no score at all', mail(['X-Spam-Level: *****', 'X-Spam-Status: No']), 'spam'],
  ])('%s', async (_name, raw, expected) => {
    const decision = await decidedTwice(raw);
    expect(decision.answer ? 'answer' : decision.reason).toBe(expected);
  });
});

// GTUBE: the test string every spam filter takes for spam (SpamAssassin scores it 1,000; Rspamd's X…, Y… and Z…
// forms ask for reject, a header and a subject tag). An admin sends it to see what the setup does with spam; with no
// filter in front of the mailbox, it was answered.
const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

/** A mail from an ordinary sender with no filter's headers at all: `subject`, then a body of `contentType`. */
function unfiltered(subject: string, body: string, contentType = 'text/plain; charset=utf-8'): Buffer {
  return Buffer.from(
    ['From: Admin <admin@customer.example>', 'To: support@support.example', `Subject: ${subject}`, 'Message-ID: <g1@customer.example>', `Content-Type: ${contentType}`, '', body, ''].join('\r\n'),
  );
}

describe('the GTUBE test string is spam without any filter header', () => {
  it.each<[string, Buffer, 'spam' | 'answer']>([
    ['GTUBE alone in a plain-text body', unfiltered('test', GTUBE), 'spam'],
    ['GTUBE after a line of text', unfiltered('spam test', `This is a test of the spam setup.\r\n${GTUBE}`), 'spam'],
    ["Rspamd's add-header form", unfiltered('test', `Y${GTUBE.slice(1)}`), 'spam'],
    ['GTUBE in an HTML-only body', unfiltered('test', `<html><body><p>${GTUBE}</p></body></html>`, 'text/html; charset=utf-8'), 'spam'],
    ['GTUBE as the subject', unfiltered(GTUBE, 'Hello'), 'spam'],
    // Near misses are a person's words: answered as before.
    ['the word GTUBE in a question', unfiltered('spam filter', 'Does your product read the GTUBE test string?'), 'answer'],
    ['GTUBE broken over two lines', unfiltered('test', `${GTUBE.slice(0, 30)}\r\n${GTUBE.slice(30)}`), 'answer'],
  ])('%s', async (_name, raw, expected) => {
    const decision = await decidedTwice(raw);
    expect(decision.answer ? 'answer' : decision.reason).toBe(expected);
  });
});

describe('a customer who forwards a mail holding GTUBE and asks about it is answered (bug review 46c)', () => {
  const asks = '下のテストメールがスパム判定されず受信箱に届きました。フィルタの設定を確認する方法を教えてください。';
  it.each<[string, Buffer]>([
    [
      'forwarded inline under Gmail\'s separator',
      unfiltered('Fwd: テスト', `${asks}\r\n\r\n---------- Forwarded message ---------\r\nFrom: x <x@y.example>\r\nSubject: GTUBE test\r\nTo: <admin@customer.example>\r\n\r\n${GTUBE}`),
    ],
    [
      'forwarded as an attached message',
      Buffer.from(
        [
          'From: Admin <admin@customer.example>', 'To: support@support.example', 'Subject: Fwd: test', 'Message-ID: <g2@customer.example>', 'MIME-Version: 1.0',
          'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain; charset=utf-8', '', asks, '', '--b', 'Content-Type: message/rfc822', '',
          'From: x <x@y.example>', 'To: admin@customer.example', 'Subject: GTUBE test', 'Content-Type: text/plain', '', GTUBE, '', '--b--', '',
        ].join('\r\n'),
      ),
    ],
  ])('%s', async (_name, raw) => {
    expect(await decidedTwice(raw)).toEqual({ answer: true });
  });
});
