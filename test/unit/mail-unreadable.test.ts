import { describe, expect, it } from 'vitest';
import { parseInboundMail } from '../../src/mail/parse.js';
import { unreadableReason, type UnreadableCheckInput } from '../../src/mail/unreadable.js';

/** An Outlook-style HTML mail whose one image, `image`, is shown in the HTML by its Content-ID (image001.png). */
function inlineImageMail(subject: string, html: string, image: Buffer): Buffer {
  return Buffer.from(
    [
      'From: Taro <taro@customer.example>',
      'To: support@support.example',
      `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/related; boundary=r',
      '',
      '--r',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '--r',
      'Content-Type: image/png; name=image001.png',
      'Content-Disposition: inline; filename=image001.png',
      'Content-ID: <image001.png@01DA>',
      'Content-Transfer-Encoding: base64',
      '',
      ...(image.toString('base64').match(/.{1,76}/g) ?? []),
      '--r--',
      '',
    ].join('\r\n'),
  );
}
const PASTED_BELOW_QUESTION = '<p>この画面から先に進めません。どうすればいいですか？</p><p><img src="cid:image001.png@01DA"></p><p>山田</p>';


const plain: UnreadableCheckInput = { top: { contentType: 'text/plain' }, text: 'How do I reset my password?', parts: [] };
const mixed = (parts: UnreadableCheckInput['parts'], text = plain.text): UnreadableCheckInput => ({ top: { contentType: 'multipart/mixed' }, text, parts });
const png = { contentType: 'image/png', filename: 'IMG_0001.PNG' };
const xlsx = { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', filename: 'bug.xlsx' };
// Texts that say nothing but "the question is in the attachment", in the forms customers write it.
const pointers: ReadonlyArray<[what: string, text: string]> = [
  ['greetings and 詳細は添付ファイルをご確認ください', 'お世話になっております。\n詳細は添付ファイルをご確認ください。\nよろしくお願いいたします。'],
  ['greetings and a pointer on one line', 'いつもお世話になっております。添付をご確認ください。以上、よろしくお願い致します。'],
  ['ファイルを添付いたします', 'サポートご担当者様\n\nお疲れ様です。\nファイルを添付いたします。\nお手数ですが、よろしくお願いします。'],
  ['詳細は添付資料のとおりです', '詳細は添付資料のとおりです。'],
  ['Please see the attached file', 'Hi,\n\nPlease see the attached file.\n\nThanks,'],
  ['Please find attached', 'Dear Support Team,\nPlease find attached.\nBest regards'],
  ['See attached', 'See attached'],
  ['a pointer, a closing and the sender\'s name', 'お世話になっております。\n詳細は添付ファイルをご確認ください。\nよろしくお願いいたします。\n山田'],
  ['a pointer, thanks and the sender\'s name', 'Hi Taro,\n\nPlease see the attached file.\n\nThanks,\nTaro Yamada'],
  // Top-posted above the quote, no 「詳細は」 before the pointer (the audit's sample 49).
  ['添付の通りです', '添付の通りです。'],
  ['添付画像のとおりです between greetings', 'お世話になっております。\n添付画像のとおりです。\nよろしくお願いいたします。'],
  ['添付ファイルの通りです', '添付ファイルの通りです'],
  ['添付のスクリーンショットの通りです', '添付のスクリーンショットの通りです。'],
  ['添付ファイルをお送りします', '添付ファイルをお送りします。'],
  ['an addressee line, a pointer, a closing and a name', 'XYZサポート様\n\n添付の通りです。\nよろしくお願いいたします。\n\n山田'],
  ['please find attached, lower case', 'please find attached'],
];
const ownSentences: ReadonlyArray<[what: string, text: string]> = [
  ['a question', 'お世話になっております。\n添付の画面でエラーが出ます。どうすればよいですか？\nよろしくお願いいたします。'],
  ['a pointer and a sentence of the problem', 'お世話になっております。\n詳細は添付ファイルをご確認ください。\nCSVの取り込みでエラーになります。'],
  ['a sentence about the attachment itself', '添付ファイルが開けません。'],
  ['a pointer with a question mark', '添付ファイルをご確認いただけますか？'],
  ['a pointer and a question in English', 'See attached. Why does the export fail?'],
  ['a sentence that names the attachment', 'The logs of the failed export are attached.'],
  ['a self-introduction', 'お世話になっております。株式会社カスタマーの山田です。\n詳細は添付ファイルをご確認ください。'],
  ['a greeting that runs into a sentence', 'Hello I cannot open this file'],
  ['a word under a pointer, no closing above it', '詳細は添付ファイルをご確認ください。\n至急'],
  ['a sentence that goes on after 添付の通り', '添付の通りに設定したのにエラーになります。'],
  ['a pointer that asks about the file', '添付ファイルの通りでよろしいでしょうか'],
];

describe('unreadableReason', () => {
  it.each<[string, UnreadableCheckInput, string | undefined]>([
    ['a plain question', plain, undefined],
    ['OpenPGP/MIME encrypted', { top: { contentType: 'multipart/encrypted', params: { protocol: 'application/pgp-encrypted' } }, text: '', parts: [] }, 'encrypted mail (OpenPGP/MIME)'],
    ['S/MIME encrypted', { top: { contentType: 'application/pkcs7-mime', params: { 'smime-type': 'enveloped-data' } }, text: '', parts: [] }, 'encrypted mail (S/MIME)'],
    ['S/MIME, old x- type, no smime-type', { top: { contentType: 'application/x-pkcs7-mime' }, text: '', parts: [] }, 'encrypted mail (S/MIME)'],
    ['S/MIME opaque signed', { top: { contentType: 'application/pkcs7-mime', params: { 'smime-type': 'signed-data' } }, text: '', parts: [] }, 'signed in opaque form'],
    // multipart/signed keeps the text readable beside the signature.
    ['S/MIME or PGP clear-signed', { top: { contentType: 'multipart/signed' }, text: plain.text, parts: [{ contentType: 'application/pkcs7-signature', filename: 'smime.p7s' }] }, undefined],
    ['inline OpenPGP encrypted', { ...plain, text: '-----BEGIN PGP MESSAGE-----\n\nhQEMA…\n-----END PGP MESSAGE-----' }, 'encrypted mail (OpenPGP, inline)'],
    ['inline OpenPGP signed', { ...plain, text: '-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nHow do I reset my password?' }, undefined],
    ['a calendar invitation', mixed([{ contentType: 'text/calendar', params: { method: 'REQUEST', charset: 'UTF-8' } }], 'You have been invited to the following event.'), 'calendar invitation (text/calendar; method=REQUEST)'],
    ['a cancellation', mixed([{ contentType: 'text/calendar', params: { method: 'cancel' } }]), 'calendar cancellation'],
    ['an accepted invitation', mixed([{ contentType: 'TEXT/CALENDAR', params: { method: 'REPLY' } }]), 'answer to a calendar invitation'],
    // A calendar file a customer attaches to a question (an export: PUBLISH, or no method at all) is theirs to ask about.
    ['an attached calendar export', mixed([{ contentType: 'text/calendar', params: { method: 'PUBLISH' }, filename: 'export.ics' }]), undefined],
    ['an .ics without method', mixed([{ contentType: 'text/calendar', filename: 'meeting.ics' }]), undefined],
    ['winmail.dat alone', mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }], ''), "only in winmail.dat"],
    ['winmail.dat by name alone', mixed([{ contentType: 'application/octet-stream', filename: 'WINMAIL.DAT' }], '  \n'), "only in winmail.dat"],
    // Outlook usually sends the plain text beside winmail.dat: that text is read.
    ['winmail.dat beside the text', mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }]), undefined],
    // A body declared base64 that is not, or bytes in a charset other than the declared one, decode to noise.
    ['noise from a broken transfer encoding', { ...plain, text: 'N\u0018\ufffd\ufffd\ufffd赶\ufffd{\ufffd\u0007\ufffd\u0007h!\ufffdi\ufffd\ufffd' }, 'could not be decoded'],
    ['a few undecodable bytes in a readable text', { ...plain, text: 'Caf\ufffd na\ufffdve question: how do I export?' }, undefined],
    ['a short text with one undecodable byte', { ...plain, text: 'ok\ufffd' }, undefined],
    ['a recall marked by Exchange', { ...plain, subject: 'Recall: Cannot log in', text: 'Kenji would like to recall the message, "Cannot log in".', exchangeRecall: true }, 'withdraw their earlier message "Cannot log in"'],
    ['a recall marked by Exchange, sentence unknown', { ...plain, subject: 'Rückruf: Anmeldung', text: 'Kenji möchte die Nachricht "Anmeldung" zurückrufen.', exchangeRecall: true }, 'withdraw their earlier message; a person'],
    ['a recall by its sentence and subject', { ...plain, subject: 'RECALL: Cannot log in', text: 'Kenji would like to recall the message, \u201cCannot log in\u201d.\n' }, 'recall request (Outlook)'],
    // Without the "Recall:" subject the sentence alone is a customer's words.
    ['the sentence without the subject', { ...plain, subject: 'Question', text: 'Kenji would like to recall the message, "Cannot log in".' }, undefined],
    ['a long text ending in the sentence', { ...plain, subject: 'Recall: x', text: `${'long question text '.repeat(200)}Kenji would like to recall the message, "x".` }, undefined],
    // Japanese Outlook (the audit's round-3 sample 129): 「取り消し: 件名」 and 「名前 はメッセージ「件名」を取り消そうとしています。」.
    ['a Japanese recall by its sentence and subject', { ...plain, subject: '取り消し: アカウント追加の料金', text: '山田 太郎 はメッセージ「アカウント追加の料金」を取り消そうとしています。' }, 'withdraw their earlier message "アカウント追加の料金"'],
    ['a Japanese recall, full-width colon', { ...plain, subject: '取り消し：請求書', text: '山田 太郎 はメッセージ "請求書" を取り消そうとしています。\n' }, 'recall request (Outlook)'],
    ['a Japanese recall marked by Exchange: the subject prefix is cut', { ...plain, subject: '取り消し: 請求書', text: '', exchangeRecall: true }, 'withdraw their earlier message "請求書"'],
    ['the Japanese sentence without the subject', { ...plain, subject: '質問', text: '山田 太郎 はメッセージ「請求書」を取り消そうとしています。' }, undefined],
    ['a customer asking how to recall, under a 取り消し subject', { ...plain, subject: '取り消し: 注文', text: '昨日の注文を取り消したいのですが、どうすればよいですか？' }, undefined],
    ['Japanese text is no noise', { ...plain, text: 'パスワードを忘れました。再設定の方法を教えてください。\ufffd' }, undefined],
    // A mail whose question is only in an attachment: the subject alone would be answered as if it were the question.
    ['only a screenshot', mixed([{ contentType: 'image/png', filename: 'screenshot.png' }], ''), "the mail's text is only in its attachment screenshot.png: a person reads it"],
    ['only a photo, text of blank lines and punctuation', mixed([{ contentType: 'image/jpeg', filename: 'IMG_0001.JPG' }], '\n \n。\n'), 'only in its attachment IMG_0001.JPG'],
    ['only an unnamed inline image', mixed([{ contentType: 'image/png' }], ''), 'only in its attachment (an image, image/png)'],
    ['only a text file', mixed([{ contentType: 'text/plain', filename: 'question.txt' }], '\n'), 'only in its attachment question.txt'],
    ['only a PDF', mixed([{ contentType: 'application/pdf', filename: 'q.pdf' }], ''), 'only in its attachment q.pdf'],
    ['only a PDF sent as octet-stream', mixed([{ contentType: 'application/octet-stream', filename: 'Invoice 42.PDF' }], ''), 'only in its attachment Invoice 42.PDF'],
    ['only a Word document', mixed([{ contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', filename: 'q.docx' }], ''), 'q.docx'],
    ['only an Excel workbook, old type', mixed([{ contentType: 'application/vnd.ms-excel', filename: 'data.xls' }], ''), 'data.xls'],
    ['only a forwarded mail', mixed([{ contentType: 'message/rfc822' }], '\n'), 'only in its attachment (a forwarded mail, message/rfc822)'],
    ['several attachments, some not content', mixed([{ contentType: 'text/vcard', filename: 'taro.vcf' }, { contentType: 'image/png', filename: 'a.png' }, { contentType: 'application/pdf', filename: 'b.pdf' }], ''), 'only in its attachments a.png, b.pdf'],
    ['only an image under a hostile name: the reason stays short', mixed([{ contentType: 'image/png', filename: `${'a\n'.repeat(5000)}.png` }], ''), `only in its attachment ${'a '.repeat(40)}…: a person reads it`],
    ['a screenshot beside real text', mixed([{ contentType: 'image/png', filename: 'screenshot.png' }], 'The export fails with error E42.'), undefined],
    // A question that only points at the screenshot ("this screen", 「この画面」) cannot be answered by an agent that
    // does not see the image (the audit's round-3 sample 117); one that says what it shows is read.
    ...([
      ['この画面から先に進めません', 'この画面から先に進めません。どうすればいいですか？'],
      ['このエラーが出ます', 'お世話になっております。\nこのエラーが出ます。対処法を教えてください。'],
      ['この表示が消えません', 'この表示が消えません。'],
      ['添付の画像のエラー', '添付の画像のエラーについて教えてください。'],
      ['スクリーンショットのエラー', 'スクリーンショットのようなエラーになります。どうすれば直りますか？'],
      ['this screen', 'I am stuck on this screen. What should I do?'],
      ['this error', 'The export fails with this error.'],
      ['the screenshot', 'What does the error in the screenshot mean?'],
      ['attached image', 'Please explain the attached image.'],
      // 「添付の画面」 names no error either (newcomer walkthrough 7): the screen is only in the picture.
      ['添付の画面でエラーが出ます', 'お世話になっております。\n添付の画面でエラーが出ます。どうすればよいですか？\nよろしくお願いいたします。'],
      ['添付の画面でエラーが出ます, alone', '添付の画面でエラーが出ます。'],
      ['添付画面のエラー', '添付画面のエラーが消えません。'],
      ['添付した画面', '添付した画面から先に進めません。'],
      ['添付のスクショ', '添付のスクショのとおりエラーになります。対処法を教えてください。'],
      ['添付の画像', '添付の画像のようになります。どうすればよいですか？'],
      // Legit-4 030: 「下記の画面」 under a pasted screenshot names nothing the picture shows, as 「この画面」 does not.
      ['下記の画面 (legit-4 030)', 'お世話になっております。\n帳票を出力しようとすると、下記の画面のようになります。\n原因を教えていただけますでしょうか。'],
      ['以下の画面', '以下の画面から先に進めません。'],
      ['上記の画面', '上記の画面が表示されてログインできません。どうすればよいですか？'],
      ['下記の画像', '下記の画像のようにボタンが押せません。'],
    ] as const).map(([what, text]) => [`${what}, beside a screenshot only`, { ...mixed([png], text), ownWords: text }, 'the question refers to an attached image (IMG_0001.PNG) the agent cannot see'] as [string, UnreadableCheckInput, string]),
    ['このエラー beside two photos', { ...mixed([png, { contentType: 'image/jpeg', filename: 'b.jpg' }], 'このエラーの意味は？'), ownWords: 'このエラーの意味は？' }, 'attached images (IMG_0001.PNG, b.jpg)'],
    ['a self-contained question beside a screenshot', { ...mixed([png], 'ログイン時に『パスワードが違います』と出ます。'), ownWords: 'ログイン時に『パスワードが違います』と出ます。' }, undefined],
    ['a self-contained English question beside a screenshot', { ...mixed([png], 'Login says "wrong password". How do I reset it?'), ownWords: 'Login says "wrong password". How do I reset it?' }, undefined],
    ['添付の画面 with the message quoted, beside a screenshot', { ...mixed([png], '添付の画面のとおり「ライセンスが無効です」と出ます。どうすればよいですか？'), ownWords: '添付の画面のとおり「ライセンスが無効です」と出ます。どうすればよいですか？' }, undefined],
    ['このエラー quoted in the words beside a screenshot', { ...mixed([png], 'このエラー「AADSTS50011」の意味は？'), ownWords: 'このエラー「AADSTS50011」の意味は？' }, undefined],
    // Review 7 #6: words that say what the image shows (an error code, a message after a colon) or that ask about images
    // as a topic are read as they are; a signature logo shown in the HTML (cid:) is no attachment the words lean on.
    ...([
      ['an error code written out (a08)', 'お世話になっております。\nこのエラーが出て起動できません。エラーコードは E1234 です。'],
      ['a hex error code after a colon (b05)', 'I get this error when installing version 3.2: Error 0x80070005 access denied.\nHow can I fix it?'],
      ['a message after a colon', 'この表示が出ます：ライセンスの有効期限が切れています。どうすればよいですか？'],
      ['the image as the topic (a09)', 'How do I change the image shown on my profile page? I attached the picture I want to use.'],
      ['画像を変更するには', 'この画像を変更するにはどうすればよいですか？'],
      ['下記の画面 with the message quoted', '下記の画面で「ライセンスが無効です」と出ます。どうすればよいですか？'],
      ['以下の画面 with a message after a colon', '以下の画面になります：ライセンスの有効期限が切れています。'],
      ['下記の画像 as the topic', '下記の画像をロゴに設定したいです。画像を変更するにはどうすればよいですか？'],
      // 「下記のエラー」 most often precedes the error written out below; only 画面 and image nouns lean on the picture.
      ['下記のエラー with the error written below', '下記のエラーが出ます。\nライセンスが無効です。\n対処法を教えてください。'],
    ] as const).map(([what, text]) => [`${what}, beside a screenshot only`, { ...mixed([png], text), ownWords: text }, undefined] as [string, UnreadableCheckInput, undefined]),
    ['この表示 beside only an inline logo (a10)', { ...mixed([{ contentType: 'image/png', filename: 'image001.png', inline: true }], 'この表示を英語に切り替える方法はありますか。'), ownWords: 'この表示を英語に切り替える方法はありますか。' }, undefined],
    ['この画面 beside an inline logo and a screenshot', { ...mixed([{ contentType: 'image/png', filename: 'image001.png', inline: true }, png], 'この画面から先に進めません。'), ownWords: 'この画面から先に進めません。' }, 'the question refers to an attached image (IMG_0001.PNG) the agent cannot see'],
    // Beside a file the agent is told of by name (a PDF, a workbook), or no file at all, the words are read as they are.
    ['このエラー beside a screenshot and a PDF', { ...mixed([png, { contentType: 'application/pdf', filename: 'log.pdf' }], 'このエラーの意味は？'), ownWords: 'このエラーの意味は？' }, undefined],
    ['このエラー beside an Excel file', { ...mixed([xlsx], 'このエラーの意味は？'), ownWords: 'このエラーの意味は？' }, undefined],
    ['このエラー, no attachment', { ...plain, text: 'このエラーの意味は？', ownWords: 'このエラーの意味は？' }, undefined],
    // Words that only point at the attachment are no question of their own: the question is in the file.
    ['only a pointer to the attached PDF', mixed([{ contentType: 'application/pdf', filename: 'q.pdf' }], 'See attached.'), 'only in its attachment q.pdf'],
    ['a short question beside a PDF', mixed([{ contentType: 'application/pdf', filename: 'q.pdf' }], 'Is this invoice right?'), undefined],
    ['no text and no attachment: the subject is the question', mixed([], ''), undefined],
    ['only a vCard', mixed([{ contentType: 'text/vcard', filename: 'taro.vcf' }], ''), undefined],
    ['only a vCard, old type', mixed([{ contentType: 'text/x-vcard', filename: 'Taro Yamada.vcf' }], ''), undefined],
    ['only a vCard as octet-stream', mixed([{ contentType: 'application/octet-stream', filename: 'taro.VCF' }], ''), undefined],
    ['only an S/MIME signature', { top: { contentType: 'multipart/signed' }, text: '', parts: [{ contentType: 'application/pkcs7-signature', filename: 'smime.p7s' }] }, undefined],
    ['only an OpenPGP signature', { top: { contentType: 'multipart/signed' }, text: '', parts: [{ contentType: 'application/pgp-signature', filename: 'signature.asc' }] }, undefined],
    ['only an OpenPGP key', mixed([{ contentType: 'application/pgp-keys', filename: 'key.asc' }], ''), undefined],
    ['only a calendar export', mixed([{ contentType: 'text/calendar', params: { method: 'PUBLISH' }, filename: 'export.ics' }], ''), undefined],
    // Any attachment that is not on the "not content" list is what the sender sends: an archive, a recording, an
    // unnamed binary. Answering the subject instead would answer a question nobody asked.
    ['only a gzip archive', mixed([{ contentType: 'application/x-gzip', filename: 'blah.gz' }], ''), 'only in its attachment blah.gz: a person reads it'],
    ['only a zip archive', mixed([{ contentType: 'application/zip', filename: 'logs.zip' }], ''), 'only in its attachment logs.zip'],
    ['only a voice message', mixed([{ contentType: 'audio/mpeg', filename: 'voicemail.mp3' }], ''), 'only in its attachment voicemail.mp3'],
    ['only a video', mixed([{ contentType: 'video/mp4', filename: 'screen-recording.mp4' }], ''), 'only in its attachment screen-recording.mp4'],
    ['only an unnamed binary', mixed([{ contentType: 'application/octet-stream' }], ''), 'only in its attachment (an attachment, application/octet-stream)'],
    ['only an unnamed archive', mixed([{ contentType: 'application/zip' }], ''), 'only in its attachment (an attachment, application/zip)'],
    ['a signature and a key beside an archive: only the archive is named', mixed([{ contentType: 'application/pgp-keys', filename: 'key.asc' }, { contentType: 'application/zip', filename: 'logs.zip' }, { contentType: 'application/pkcs7-signature', filename: 'smime.p7s' }], ''), 'only in its attachment logs.zip: a person reads it'],
    ['a zip beside real text', mixed([{ contentType: 'application/zip', filename: 'logs.zip' }], 'The logs of the failed export are attached.'), undefined],
    // The machine-readable halves of a report (a bounce, a read receipt) are no one's words.
    ['only the parts of a delivery report', mixed([{ contentType: 'message/delivery-status' }, { contentType: 'text/rfc822-headers' }], ''), undefined],
    ['only the part of a read receipt', mixed([{ contentType: 'message/disposition-notification' }], ''), undefined],
    ['only an unnamed S/MIME signature', mixed([{ contentType: 'application/x-pkcs7-signature' }], ''), undefined],
    ['winmail.dat beside a screenshot keeps its own reason', mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }, { contentType: 'image/png', filename: 'a.png' }], ''), 'only in winmail.dat'],
    // What decides is whether the sender wrote anything of their own (ownWords: the text without quoted history,
    // signatures and a phone's footer), not whether the text has letters: a footer or a signature is no question.
    ['a screenshot beside only a phone footer', { ...mixed([png], 'iPhoneから送信'), ownWords: '' }, 'only in its attachment IMG_0001.PNG'],
    ['a PDF beside only a signature', { ...mixed([{ contentType: 'application/pdf', filename: 'mitsumori.pdf' }], '--\n山田 太郎\nTEL: 03-1234-5678'), ownWords: '' }, 'only in its attachment mitsumori.pdf'],
    ['winmail.dat beside only a signature', { ...mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }], '--\nTaro Yamada\nTel 03-1234-5678'), ownWords: '' }, 'only in winmail.dat'],
    ['a screenshot beside a question and a footer', { ...mixed([png], 'CSVの取り込みでエラーが出ます。\n\niPhoneから送信'), ownWords: 'CSVの取り込みでエラーが出ます。' }, undefined],
    // Greetings, closings and sentences that only point at the attachment are no words of the sender's own either.
    ...pointers.map(([what, text]) => [`only ${what} beside an Excel file`, { ...mixed([xlsx], text), ownWords: text }, 'only in its attachment bug.xlsx'] as [string, UnreadableCheckInput, string]),
    // Any other sentence is the sender's, however short, and the mail is read (the agent sees the file's name).
    ...ownSentences.map(([what, text]) => [`${what} beside an Excel file`, { ...mixed([xlsx], text), ownWords: text }, undefined] as [string, UnreadableCheckInput, undefined]),
    // Words that only point at an attachment the mail does not carry (forgotten, or stripped on the way): what the
    // customer asks is in neither the text nor the subject (the audit's sample 49b).
    ['only a pointer, no attachment', { ...plain, text: '詳細は添付ファイルをご確認ください。', ownWords: '詳細は添付ファイルをご確認ください。' }, 'the mail points at an attachment it does not carry'],
    ['添付の通りです above the quote, no attachment', { ...plain, text: '添付の通りです。\n\n-----Original Message-----\nFrom: Support', ownWords: '添付の通りです。', quoted: true }, 'points at an attachment it does not carry'],
    ...pointers.map(([what, text]) => [`only ${what}, no attachment`, { ...plain, text, ownWords: text }, 'points at an attachment it does not carry'] as [string, UnreadableCheckInput, string]),
    ['See attached beside only an S/MIME signature', { top: { contentType: 'multipart/signed' }, text: 'See attached.', ownWords: 'See attached.', parts: [{ contentType: 'application/pkcs7-signature', filename: 'smime.p7s' }] }, 'points at an attachment it does not carry'],
    ...ownSentences.map(([what, text]) => [`${what}, no attachment`, { ...plain, text, ownWords: text }, undefined] as [string, UnreadableCheckInput, undefined]),
    ['greetings only, no attachment: no pointer, the subject is the question', { ...plain, text: 'お世話になっております。\nよろしくお願いいたします。', ownWords: 'お世話になっております。\nよろしくお願いいたします。' }, undefined],
    // A contact card may be what "see attached" points at.
    ['only a pointer beside a vCard', { ...mixed([{ contentType: 'text/vcard', filename: 'taro.vcf' }], 'See attached.'), ownWords: 'See attached.' }, undefined],
    // A reply of nothing but the quoted earlier mail: its subject is the thread's, not a new question.
    ['a reply that is only the quote', { ...plain, text: '2026年11月20日(金) 9:00 サポート <s@support.example>:\n> ブラウザのキャッシュを削除してお試しください。', ownWords: '', quoted: true }, 'the reply holds only the quoted earlier mail'],
    ['a quote-only reply with a screenshot: the attachment is the question', { ...mixed([png], '> ブラウザのキャッシュを削除してお試しください。'), ownWords: '', quoted: true }, 'only in its attachment IMG_0001.PNG'],
    ['a reply with words of its own above the quote', { ...plain, text: 'まだログインできません。\n> ブラウザのキャッシュを削除してお試しください。', ownWords: 'まだログインできません。', quoted: true }, undefined],
    ['a reply of only thanks above the quote is the sender\'s (the reply decision may ignore it)', { ...plain, text: 'Thanks!\n> Clear the cache.', ownWords: 'Thanks!', quoted: true }, undefined],
    ['only a signature, no quote, no attachment: the subject is the question', { ...plain, text: '--\n山田 太郎\nTEL: 03-1234-5678', ownWords: '', quoted: false }, undefined],
    // A reaction above the quote is no quote sent by mistake: it says what it is (the audit's sample 69).
    ['only emoji above the quote', { ...plain, text: '🙏🙏🙏\n\niPhoneから送信\n\n> 山田 太郎 様', ownWords: '', ownText: '🙏🙏🙏', quoted: true }, 'the reply is only an emoji or a reaction ("🙏🙏🙏"), no words: a person reads it'],
    ['a thumbs-up with a skin tone above the quote', { ...plain, text: '👍🏻\n> Clear the cache.', ownWords: '', ownText: '👍🏻', quoted: true }, 'only an emoji or a reaction ("👍🏻")'],
    ['a long run of emoji is cut in the reason', { ...plain, text: `${'🎉'.repeat(100)}\n> Clear the cache.`, ownWords: '', ownText: '🎉'.repeat(100), quoted: true }, `("${'🎉'.repeat(20)}…")`],
    ['punctuation only above the quote is still a quote sent by mistake', { ...plain, text: '...\n> Clear the cache.', ownWords: '', ownText: '...', quoted: true }, 'the reply holds only the quoted earlier mail'],
    // Microsoft 365 Message Encryption (the audit's sample 79): the text is a wrapper, the message is in message.rpmsg
    // or behind a link; the customer's words are not in the mail.
    [
      'Microsoft 365 Message Encryption: message.rpmsg beside its wrapper',
      mixed([{ contentType: 'application/x-microsoft-rpmsg-message', filename: 'message.rpmsg' }, { contentType: 'text/html', filename: 'message.html' }], 'taro@customer.example から暗号化されたメッセージを受信しました\n\nメッセージを読むには、添付ファイル message.html を開いてください。\nMicrosoft 365 Message Encryption'),
      'encrypted mail (Microsoft 365 Message Encryption): its text cannot be read here',
    ],
    ['an .rpmsg file sent as octet-stream', mixed([{ contentType: 'application/octet-stream', filename: 'Message.RPMSG' }], ''), 'encrypted mail (Microsoft 365 Message Encryption)'],
    ['a protected-message notice without the file', { ...plain, text: 'Taro Yamada (taro@customer.example) has sent you a protected message.\n\nRead the message\n\nLearn about messages protected by Microsoft Purview Message Encryption.' }, 'encrypted mail (Microsoft 365 Message Encryption)'],
    ['a question about a protected message is read', { ...plain, text: 'I cannot open the protected message you sent me. Do I need Microsoft 365 Message Encryption?' }, undefined],
    // Gmail's confidential mode (the audit's sample 78): the mail is a link to Google's servers.
    [
      "Gmail's confidential mode",
      { ...plain, text: '藤井 亮さんから機密モードでメールが送信されました。\n\nメールを表示\nhttps://confidential-mail.google.com/msg/AbCdEf123\n\nGmail の機密モードでは、送信者がアクセス権の有効期限の設定や取り消しを行うことができます。' },
      "the mail's content is only behind Gmail's confidential-mode link, which is not opened here: a person reads it",
    ],
    ["Gmail's confidential mode in English", { ...plain, text: 'Ryo Fujii has sent you a confidential email.\n\nView the email\nhttps://confidential-mail.google.com/msg/AbCdEf123' }, "only behind Gmail's confidential-mode link"],
    ['a question about confidential mode is read', { ...plain, text: 'Gmailの機密モードで送ったメールが開けないと言われました。どうすればよいですか？' }, undefined],
  ])('%s', (_what, input, expected) => {
    const reason = unreadableReason(input);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(expected);
  });
});

// The same through the parser: the part types and names mailparser reports for a question sent only as an attachment.
describe('unreadable: a question only in an attachment, parsed', () => {
  const mail = (subject: string, parts: string[]) =>
    Buffer.from(
      [
        'From: Taro <taro@customer.example>',
        'To: support@support.example',
        'Message-ID: <a1@customer.example>',
        `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary=b',
        '',
        ...parts.flatMap((part) => ['--b', part]),
        '--b--',
        '',
      ].join('\r\n'),
    );
  const png = 'Content-Type: image/png; name=screenshot.png\r\nContent-Disposition: attachment; filename=screenshot.png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=';
  const topPosted =
    'Content-Type: text/plain; charset=utf-8\r\n\r\n添付の通りです。\r\n\r\n-----Original Message-----\r\nFrom: XYZサポート <support@support.example>\r\nSent: Friday, November 20, 2026 10:00 AM\r\nTo: 山田 太郎 <taro@customer.example>\r\nSubject: Re: CSVエクスポートの文字化け\r\n\r\nお手数ですが、表示される画面のスクリーンショットをお送りください。';

  it.each<[string, Buffer, string | undefined]>([
    ['a screenshot and no text part', mail('エラーが出ます', [png]), 'only in its attachment screenshot.png'],
    ['an empty text part and question.txt', mail('Help', ['Content-Type: text/plain; charset=utf-8\r\n\r\n', 'Content-Type: text/plain; name=question.txt\r\nContent-Disposition: attachment; filename=question.txt\r\n\r\nPlease tell me how to export.']), 'only in its attachment question.txt'],
    // A forwarded mail's text is read, as an inline forward's is (mail-parse-attached-forward.test.ts); one with no
    // text of its own is what a person opens.
    ['a mail forwarded as an attachment', mail('Fwd: Your order failed', ['Content-Type: text/plain\r\n\r\n', 'Content-Type: message/rfc822\r\n\r\nFrom: shop@shop.example\r\nSubject: Your order failed\r\n\r\nOrder 1234 failed.']), undefined],
    ['a forwarded mail of only a picture', mail('Fwd: photo', ['Content-Type: text/plain\r\n\r\n', `Content-Type: message/rfc822\r\n\r\nFrom: shop@shop.example\r\nSubject: photo\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\n${png}\r\n--c--\r\n`]), 'only in its attachment (a forwarded mail, message/rfc822)'],
    ['a screenshot beside a question', mail('エラーが出ます', ['Content-Type: text/plain; charset=utf-8\r\n\r\nCSVの取り込みでエラーが出ます。', png]), undefined],
    ['a screenshot beside 「添付の画面でエラーが出ます」', mail('エラーが出ます', ['Content-Type: text/plain; charset=utf-8\r\n\r\n添付の画面でエラーが出ます。どうすればよいですか？', png]), 'the question refers to an attached image (screenshot.png) the agent cannot see'],
    // Review 7 #6 (a10): Outlook's signature logo, shown in the HTML by its Content-ID, is no image the question leans on.
    ['an HTML mail whose only image is the inline signature logo', inlineImageMail('表示について', '<p>お世話になっております。<br>この表示を英語に切り替える方法はありますか。</p><p>山田<br><img src="cid:image001.png@01DA"></p>', Buffer.from('iVBORw0KGgo=', 'base64')), undefined],
    // A screenshot pasted into an Outlook mail is inline too, but no logo: it is as unseen as an attached one; so is a
    // cropped dialog, as small as many logos (review 8 #1): only icons of a few KB count as layout.
    ['an HTML mail whose only image is a pasted screenshot (inline, 60 KB)', inlineImageMail('ログインできません', PASTED_BELOW_QUESTION, Buffer.alloc(60_000, 7)), 'the question refers to an attached image (image001.png) the agent cannot see'],
    ['an HTML mail whose only image is a pasted crop of an error dialog (inline, 14 KB)', inlineImageMail('ログインできません', PASTED_BELOW_QUESTION, Buffer.alloc(14_000, 7)), 'the question refers to an attached image (image001.png) the agent cannot see'],
    ["117: a screenshot beside 「この画面から先に進めません」", mail('ログインできません', ['Content-Type: text/plain; charset=utf-8\r\n\r\nこの画面から先に進めません。どうすればいいですか？\r\n\r\niPhoneから送信', png]), 'the question refers to an attached image (screenshot.png) the agent cannot see'],
    // The corpus's attachment_only_email: the whole mail is one gzip part, no text at all.
    [
      'a single-part mail that is only a gzip file',
      Buffer.from(
        [
          'From: Ryan <ryan@customer.example>',
          'To: support@support.example',
          'Subject: this message JUST contains an attachment',
          'MIME-Version: 1.0',
          'Content-Type: application/x-gzip; NAME=blah.gz',
          'Content-Disposition: attachment; filename=blah.gz',
          'Content-Transfer-Encoding: base64',
          '',
          'H4sIAOHBmD8AA4vML1XPyVHISy1LLVJIy8xLUchNVeQCAHbe764WAAAA',
          '',
        ].join('\r\n'),
      ),
      'only in its attachment blah.gz',
    ],
    ['a zip and an empty text part', mail('Logs', ['Content-Type: text/plain\r\n\r\n', 'Content-Type: application/zip; name=logs.zip\r\nContent-Disposition: attachment; filename=logs.zip\r\nContent-Transfer-Encoding: base64\r\n\r\nUEsDBA==']), 'only in its attachment logs.zip'],
    ['a vCard alone', mail('Question', ['Content-Type: text/plain\r\n\r\n', 'Content-Type: text/vcard; name=taro.vcf\r\nContent-Disposition: attachment; filename=taro.vcf\r\n\r\nBEGIN:VCARD\r\nFN:Taro\r\nEND:VCARD']), undefined],
    // The audit's round-2 samples.
    ['49: 添付の通りです above the quote, with a screenshot', mail('RE: CSVエクスポートの文字化け', [topPosted, png]), 'only in its attachment screenshot.png'],
    ['49b: the same words, no attachment', mail('RE: CSVエクスポートの文字化け', [topPosted]), 'the mail points at an attachment it does not carry'],
    ["78: Gmail's confidential mode", mail('契約内容の確認', [`Content-Type: text/plain; charset=utf-8\r\n\r\n藤井 亮さんから機密モードでメールが送信されました。\r\n\r\nメールを表示\r\nhttps://confidential-mail.google.com/msg/AbCdEf123\r\n`]), "only behind Gmail's confidential-mode link"],
    [
      '79: Microsoft 365 Message Encryption',
      mail('【暗号化】見積依頼', [
        'Content-Type: text/plain; charset=utf-8\r\n\r\ntaro@customer.example から暗号化されたメッセージを受信しました\r\n\r\nメッセージを読むには、添付ファイル message.html を開いてください。\r\nMicrosoft 365 Message Encryption',
        'Content-Type: application/x-microsoft-rpmsg-message; name="message.rpmsg"\r\nContent-Disposition: attachment; filename="message.rpmsg"\r\nContent-Transfer-Encoding: base64\r\n\r\ndmVyc2lvbiAxLjA=',
        'Content-Type: text/html; name="message.html"\r\nContent-Disposition: attachment; filename="message.html"\r\n\r\n<html><body>Encrypted message.</body></html>',
      ]),
      'encrypted mail (Microsoft 365 Message Encryption)',
    ],
    ['69: only emoji and a phone footer above the quote', mail('Re: CSVエクスポートの文字化け', ['Content-Type: text/plain; charset=utf-8\r\n\r\n🙏🙏🙏\r\n\r\niPhoneから送信\r\n\r\n> 2026/11/18 14:03、XYZサポート <support@support.example>のメール:\r\n>\r\n> 山田 太郎 様']), 'the reply is only an emoji or a reaction ("🙏🙏🙏")'],
  ])('%s', async (_what, raw, expected) => {
    const parsed = await parseInboundMail(raw);
    if (expected === undefined) expect(parsed.unreadable).toBeUndefined();
    else expect(parsed.unreadable).toContain(expected);
  });
});

// Bug review 44e: whether a mail of only an earlier mail answers one is read from its In-Reply-To or References first;
// Outlook's quote under "[EXTERNAL] RE:", Portuguese "RES:", Italian "R:", Greek "ΑΠ:" or no subject is a reply's.
describe('unreadable: a reply of only the quote, known by its threading headers', () => {
  const quote = '\r\n\r\n________________________________\r\nFrom: Support <support@helpdesk.example.jp>\r\nSent: Monday\r\nTo: me\r\nSubject: Invoice\r\n\r\nOur earlier answer.';
  const mail = (subject: string, threading: string[]) =>
    Buffer.from(
      [
        'From: a@customer.example',
        'To: support@helpdesk.example.jp',
        ...(subject ? [`Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`] : []),
        ...threading,
        'Message-ID: <m@customer.example>',
        'Content-Type: text/plain; charset=utf-8',
        '',
        quote,
        '',
      ].join('\r\n'),
    );
  it.each(['[EXTERNAL] RE: Invoice', 'RES: Fatura', 'R: Fattura', 'ΑΠ: Invoice', 'Invoice', '', 'Re: Invoice'])('%s with In-Reply-To', async (subject) => {
    expect((await parseInboundMail(mail(subject, ['In-Reply-To: <r1@helpdesk.example.jp>']))).unreadable).toMatch(/^the reply holds only the quoted earlier mail/);
  });

  it('with References alone', async () => {
    expect((await parseInboundMail(mail('[EXTERNAL] RE: Invoice', ['References: <r1@helpdesk.example.jp>']))).unreadable).toMatch(/^the reply holds only the quoted earlier mail/);
  });

  it('a new mail of only a pasted-in one keeps its own reason', async () => {
    expect((await parseInboundMail(mail('Invoice', []))).unreadable).toMatch(/^the mail only carries an attached or pasted-in mail/);
  });
});
