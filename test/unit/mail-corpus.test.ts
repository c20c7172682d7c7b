/**
 * Every raw mail of the shared real-world corpus (mikel/mail fixtures, written by nobody on this team) goes through
 * parsing and the reply decision. The expected decisions are pinned so a change in either module shows up as a diff.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bulkMailDetail, decideReply, replySignalsOf, type ReplyDecision } from '../../src/mail/classify.js';
import { MailParseError, parseInboundMail, type InboundMail } from '../../src/mail/parse.js';
import { MAIL_CORPUS_DIR as corpus, mailCorpusFiles } from '../support/mail-corpus.js';

const ctx = { ourAddresses: ['Helpdesk <support@support.example>'], loopMarker: 'helpdesk-worker' };

const files = mailCorpusFiles();

// Files that are genuinely unreadable as mail and may throw MailParseError. None so far.
const UNREADABLE: string[] = [];

// Every file not listed here is answered.
const NOT_ANSWERED: Record<string, string> = {
  'error_emails/bad_date_header.eml': 'list', // Precedence: junk (reads "bulk mail")
  'error_emails/content_transfer_encoding_x_uuencode.eml': 'list', // LISTSERV: Sender is the list and the To address
  'error_emails/bad_encoded_subject.eml': 'no-sender', // no From at all
  'error_emails/empty_in_reply_to.eml': 'list', // List-Id
  'error_emails/empty_group_lists.eml': 'spam', // X-Spam-Status: Yes
  'error_emails/encoding_madness.eml': 'no-reply-sender', // no-reply@crm…
  'mime_emails/raw_email_with_mimepart_without_content_type.eml': 'bounce', // a DSN outside the report folder
  'multipart_report_emails/multi_address_bounce1.eml': 'bounce',
  'multipart_report_emails/multi_address_bounce2.eml': 'bounce',
  'multipart_report_emails/multipart_report_multiple_status.eml': 'bounce',
  'multipart_report_emails/report_422.eml': 'bounce',
  'multipart_report_emails/report_530.eml': 'bounce',
  'plain_emails/raw_email_bad_time.eml': 'spam', // X-Spam-Status: Yes
  'plain_emails/raw_email_trailing_dot.eml': 'no-reply-sender', // noreply@rubyforge.org
};

// Answered mails whose draft the agent worker parks as bulk mail (bulkMailDetail), by the evidence the reason names.
// Every other answered mail's draft is not held so: none of them is a newsletter that says so (the rest of the corpus's
// junk is spam with obfuscated opt-outs, or mailings whose fixture kept no body).
const BULK_DRAFTS: Record<string, string> = {
  'error_emails/bad_date_header2.eml': 'Return-Path <bounces@strategicfulfillment.com> on another domain than From', // a quilting newsletter
  'error_emails/bad_subject.eml': 'a mass-mail footer line (“You received this email because you (or someone in your household)', // MySurvey's invitation
  'error_emails/content_transfer_encoding_7-bit.eml': 'Return-Path <101bn3c3ce68600277550d@bounce.quris.net> on another domain than From', // Discover Card News
  'error_emails/content_transfer_encoding_with_8bits.eml': 'a mass-mail footer line (“Any customer may unsubscribe from the list at any time', // Provantage's catalogue
  'error_emails/must_supply_encoding.eml': "Reply-To <44.41.17.14.11.2010.1139.1.328.1477949.614@reply.here2there-travelers-msgs.net> is a machine-made address, no person's", // an ad
  'error_emails/weird_to_header.eml': 'From <anonymous@i.tp.host> is a system account', // an empty web form (parked before any draft)
  'plain_emails/raw_email_multiple_from.eml': 'Return-Path <www-data@mangaverde.net> is a system account', // an SVN commit notice
};

interface Row {
  file: string;
  mail?: InboundMail;
  decision?: ReplyDecision;
  error?: unknown;
}

const rows = new Map<string, Row>();

async function run(file: string): Promise<Row> {
  const cached = rows.get(file);
  if (cached) return cached;
  const row: Row = { file };
  try {
    row.mail = await parseInboundMail(readFileSync(path.join(corpus, file)));
    row.decision = decideReply(row.mail, ctx);
  } catch (error) {
    row.error = error;
  }
  rows.set(file, row);
  return row;
}

const JAPANESE = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

describe('mikel-mail corpus', () => {
  it('is present beside the repository (CI clones ../shared)', () => {
    expect(files.length).toBeGreaterThan(90);
    for (const folder of ['multipart_report_emails', 'multi_charset', 'error_emails']) {
      expect(files.some((f) => f.startsWith(`${folder}/`))).toBe(true);
    }
  });

  it.each(files)('%s parses and gets a decision', async (file) => {
    const row = await run(file);
    if (UNREADABLE.includes(file)) {
      expect(row.error).toBeInstanceOf(MailParseError);
      return;
    }
    expect(row.error).toBeUndefined();
    const decision = row.decision;
    expect(decision).toBeDefined();
    const expected = NOT_ANSWERED[file];
    if (expected) expect(decision).toMatchObject({ answer: false, reason: expected });
    else expect(decision).toEqual({ answer: true });
    expect(typeof row.mail?.question).toBe('string');
  });

  it.each(files.filter((f) => !UNREADABLE.includes(f)))('%s: the reply signals a ticket stores decide as the parsed mail does', async (file) => {
    const { mail, decision } = await run(file);
    const signals = replySignalsOf(mail!);
    expect(signals).toBeDefined();
    // What the agent worker reads back from Redis: the ticket's JSON.
    const stored = JSON.parse(JSON.stringify(signals)) as NonNullable<typeof signals>;
    expect(decideReply(stored, ctx)).toEqual(decision);
  });

  it.each(files.filter((f) => !UNREADABLE.includes(f) && !NOT_ANSWERED[f]))('%s: its draft is parked as bulk mail only if it is a mailing', async (file) => {
    const { mail } = await run(file);
    const detail = bulkMailDetail(mail!, ctx);
    const expected = BULK_DRAFTS[file];
    if (expected) expect(detail).toContain(expected);
    else expect(detail).toBeUndefined();
  });

  it('never answers a delivery report', async () => {
    const reports = files.filter((f) => f.startsWith('multipart_report_emails/'));
    expect(reports.length).toBeGreaterThanOrEqual(5);
    for (const file of reports) {
      const { decision, mail } = await run(file);
      expect(mail?.contentType, file).toBe('multipart/report');
      expect(decision, file).toMatchObject({ answer: false, reason: 'bounce' });
    }
  });

  it.each([
    ['multi_charset/japanese_iso_2022.eml', 'まみむめも', 'すみません。'],
    ['multi_charset/japanese_shift_jis.eml', 'test', 'このメールはテスト用のメールです。'],
    ['multi_charset/japanese.eml', 'まみむめも', 'かきくえこ'],
  ])('%s decodes to readable Japanese', async (file, subject, textPart) => {
    const { mail } = await run(file);
    expect(mail?.subject).toBe(subject);
    expect(mail?.text).toContain(textPart);
    expect(JAPANESE.test(`${mail?.subject} ${mail?.text}`)).toBe(true);
    expect(`${mail?.subject}${mail?.text}`).not.toContain('\uFFFD');
    expect(mail?.charsetProblems).toBeUndefined();
  });

  it('decodes ks_c_5601-1987 (Korean) and the obsolete-syntax RFC 2822 examples', async () => {
    expect((await run('multi_charset/ks_c_5601-1987.eml')).mail?.text).toContain('스티해');
    const obsolete = (await run('rfc2822/example13.eml')).mail;
    expect(obsolete?.from).toEqual({ address: 'jdoe@machine.example', name: 'John Doe' });
    expect(obsolete?.messageId).toBe('<1234@local.machine.example>');
    expect(obsolete?.date?.toISOString()).toBe('1997-11-21T15:55:06.000Z');
    // The third id is cut by a line break without folding whitespace, so it never closes and is dropped.
    expect((await run('error_emails/multiple_references_with_one_invalid.eml')).mail?.references).toEqual(['<foo@bar.net>', '<baz@bar.net>']);
  });

  afterAll(() => {
    const table = [...rows.values()].map((row) => ({
      file: row.file,
      decision: row.error ? `ERROR ${(row.error as Error).message}` : row.decision?.answer ? 'answer' : `${row.decision?.reason}`,
      detail: row.decision && !row.decision.answer ? row.decision.detail.slice(0, 60) : '',
      problems: [...(row.mail?.parseWarnings ?? []), ...(row.mail?.charsetProblems ?? [])].join('; ').slice(0, 80),
    }));
    const counts = table.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.decision]: (acc[r.decision] ?? 0) + 1 }), {});
    console.log(`mikel-mail corpus: ${table.length} files, decisions ${JSON.stringify(counts)}`);
    console.table(table);
  });
});
