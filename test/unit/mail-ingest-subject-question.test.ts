/**
 * The ticket's question of a mail whose body asks nothing the subject does not: a body of greetings and a closing
 * only, or one that points at the subject (「件名の通り」). A mail with an empty body already has its subject as the
 * question (the audit's sample 50); these get it too, in the same form, or the agent is handed greetings and a pointer
 * to a line it never sees (the audit's samples 87 and 88). What decides an acknowledgement or a notice still reads the
 * customer's own words.
 */
import { describe, expect, it } from 'vitest';
import { acknowledgementOf } from '../../src/mail/classify.js';
import { ticketInputForMail } from '../../src/mail/ingest.js';
import { parseInboundMail } from '../../src/mail/parse.js';
import { rawCustomerMail } from '../support/inbound-mail.js';

/** The question of the ticket the poller makes of `raw`. */
async function ticketQuestion(raw: Buffer): Promise<string> {
  return ticketInputForMail(await parseInboundMail(raw), raw, { rawRef: 'raw:test' }).question;
}


/** A plain-text mail from a customer under `subject`, optionally with more headers (a reply's). */
const mail = (subject: string, body: string, headers: string[] = []): Buffer =>
  rawCustomerMail({ subject, body, headers, messageId: '<subject-question-1@customer.example>' });
const reply = ['In-Reply-To: <our-reply-1@support.example>', 'References: <q1@customer.example> <our-reply-1@support.example>'];

describe('ticketInputForMail: the subject in the question when the body asks nothing of its own', () => {
  it.each<[what: string, raw: Buffer, question: string]>([
    // The audit's sample 50, as it is: an empty body.
    ['an empty body', mail('請求書の宛名を会社名に変更できますか？', '\n\n'), '請求書の宛名を会社名に変更できますか？'],
    // Sample 87: an addressee, greetings, a closing and the sender's name.
    ['greetings and a closing only', mail('請求書払いに変更できますか', 'XYZサポート様\n\nいつもお世話になっております。\nよろしくお願いいたします。\n\n山田'), '請求書払いに変更できますか'],
    ['greetings only, on one line', mail('領収書の発行について', 'お世話になっております。よろしくお願い致します。'), '領収書の発行について'],
    ['an addressee in 御中 and a closing', mail('プラン変更の方法', 'サポートセンター御中\n\n何卒よろしくお願い申し上げます。'), 'プラン変更の方法'],
    ['English greetings only', mail('How do I export invoices as CSV?', 'Hi,\n\nBest regards,\nTaro Yamada'), 'How do I export invoices as CSV?'],
    ['greetings and a phone footer', mail('機種変更したらデータは引き継げますか', 'お世話になっております。\n\niPhoneから送信'), '機種変更したらデータは引き継げますか'],
    // Sample 88: the words point at the subject, which goes first, as a mail reads.
    [
      '件名の通り',
      mail('ログイン時に二段階認証のコードが届かない', 'お世話になっております。\n件名の通り、認証コードのメールが届きません。\n確認方法を教えてください。'),
      'ログイン時に二段階認証のコードが届かない\n\nお世話になっております。\n件名の通り、認証コードのメールが届きません。\n確認方法を教えてください。',
    ],
    ['件名の件', mail('請求書の再発行', '件名の件、10月分をお願いできますでしょうか。'), '請求書の再発行\n\n件名の件、10月分をお願いできますでしょうか。'],
    ['標題の件', mail('契約更新について', '標題の件につき、更新手続きの期限を教えてください。'), '契約更新について\n\n標題の件につき、更新手続きの期限を教えてください。'],
    ['表題のとおり', mail('CSVが文字化けする', '表題のとおりです。対処法はありますか。'), 'CSVが文字化けする\n\n表題のとおりです。対処法はありますか。'],
    ['as in the subject', mail('Export fails with error 500', 'Hello,\n\nAs in the subject: the export has failed since Monday. What can I do?'), 'Export fails with error 500\n\nHello,\n\nAs in the subject: the export has failed since Monday. What can I do?'],
    ['see subject', mail('Cannot log in after password reset', 'See subject. Any idea?'), 'Cannot log in after password reset\n\nSee subject. Any idea?'],
    // Legit-4 014: greetings and who writes ask nothing either; the subject leads and the words follow, so the agent
    // still sees the sender's name (greetings alone carry nothing it needs, so there the subject stands alone).
    ['a self-introduction beside the greetings', mail('見積もり', 'お世話になっております。株式会社カスタマーの山田です。\nよろしくお願いいたします。'), '見積もり\n\nお世話になっております。株式会社カスタマーの山田です。\nよろしくお願いいたします。'],
    // A reply refers to its own subject, without the prefix.
    ['件名の通り in a reply', mail('Re: 二段階認証のコードが届かない', '件名の通り、まだ届きません。', reply), '二段階認証のコードが届かない\n\n件名の通り、まだ届きません。'],
  ])('%s', async (_what, raw, question) => {
    expect(await ticketQuestion(raw)).toBe(question);
  });

  // What stays as it was: words of the sender's own, thanks (an acknowledgement for the reply decision), and a reply,
  // whose subject is the thread's and not a new question.
  it.each<[what: string, raw: Buffer, question: string]>([
    ['greetings around a question', mail('請求書について', 'お世話になっております。\n請求書の宛名を変更できますか？\nよろしくお願いいたします。'), 'お世話になっております。\n請求書の宛名を変更できますか？\nよろしくお願いいたします。'],
    ['a reply of greetings only', mail('Re: 請求書払いに変更できますか', 'お世話になっております。\nよろしくお願いいたします。', reply), 'お世話になっております。\nよろしくお願いいたします。'],
    ['a reply prefix without In-Reply-To', mail('RE: 請求書払い', 'お世話になっております。\nよろしくお願いいたします。'), 'お世話になっております。\nよろしくお願いいたします。'],
    ['greetings above a quote', mail('請求書払い', 'よろしくお願いいたします。\n\n> 請求書払いは法人プランでご利用いただけます。'), 'よろしくお願いいたします。'],
    ['thanks only, a new mail', mail('請求書', 'ありがとうございます。\nよろしくお願いいたします。'), 'ありがとうございます。\nよろしくお願いいたします。'],
    ['English thanks only, a new mail', mail('Invoices', 'Thanks,\nTaro'), 'Thanks,\nTaro'],
    ['greetings only, no subject', mail('', 'お世話になっております。\nよろしくお願いいたします。'), 'お世話になっております。\nよろしくお願いいたします。'],
    ['the subject named as a thing, not pointed at', mail('文字化け', 'メールの件名が文字化けします。直せますか。'), 'メールの件名が文字化けします。直せますか。'],
    ['件名の通り with the subject already in the words', mail('CSVが文字化けする', '件名の通り、CSVが文字化けするので困っています。'), '件名の通り、CSVが文字化けするので困っています。'],
  ])('%s: unchanged', async (_what, raw, question) => {
    expect(await ticketQuestion(raw)).toBe(question);
  });

  it('a reply that only thanks stays an acknowledgement', async () => {
    const raw = mail('Re: 請求書払いに変更できますか', 'ありがとうございました。\nよろしくお願いいたします。', reply);
    const parsed = await parseInboundMail(raw);
    const input = ticketInputForMail(parsed, raw, { rawRef: 'raw:test' });
    expect(input.replySignals?.acknowledgement).toBe('ありがとうございました。\nよろしくお願いいたします。');
    expect(acknowledgementOf({ ...parsed, question: input.question })).toBe('ありがとうございました。\nよろしくお願いいたします。');
  });

  it("records the customer's own words for the checks that read them, the subject only in the ticket's question", async () => {
    const raw = mail('ログイン時に二段階認証のコードが届かない', '件名の通り、認証コードのメールが届きません。');
    const parsed = await parseInboundMail(raw);
    expect(parsed.question).toBe('件名の通り、認証コードのメールが届きません。');
    expect(ticketInputForMail(parsed, raw, { rawRef: 'raw:test' }).question).toBe('ログイン時に二段階認証のコードが届かない\n\n件名の通り、認証コードのメールが届きません。');
  });
});
