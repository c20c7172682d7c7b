/**
 * The fifth mail audit's mismatches that the unreadable check and the reply decision own:
 * - #2 (353): a no-reply file-transfer notice writes the sender's message under a heading (■メッセージ, 【メッセージ】,
 *   "Message from sender") with the words on the next line; it was ignored as a no-reply sender;
 * - #4 (356): a greeting and the sender's name beside a workbook asks nothing readable, as a closing and a name do;
 * - #5 (350–352, PPAP): an encrypted zip was answered blind, and the mail that delivers its password (a person's or a
 *   tool's) was answered, the password handed to the model;
 * - #6 (357): a scanner's scan-to-mail notice beside its PDF was answered, to the device's address.
 * - bug review 39b #1, #2: a password with a "?" in it, under a heading, after a space, a short label or on the next
 *   line, or in full-width characters still reached the model; a customer quoting their login was parked as PPAP.
 * Each rule's rows include the customer's mail it must leave answered.
 */
import { describe, expect, it } from 'vitest';
import { personMessageInNotificationOf } from '../../src/mail/classify.js';
import { isEncryptedArchive, unreadableReason, type UnreadableCheckInput } from '../../src/mail/unreadable.js';
import { encodedWord } from '../support/inbound-mail.js';
import { mailOutcome, OUR_REPLY_ID } from '../support/mail-outcome.js';


/** An attachment part of {@link rawMail}: its type, file name and bytes. */
interface Attachment {
  type: string;
  name: string;
  bytes: Buffer;
}

/** A UTF-8 mail to our support address: plain text, or multipart/mixed when it carries attachments. */
function rawMail(opts: { from: string; subject: string; body: string; reply?: boolean; attachments?: Attachment[] }): Buffer {
  const text = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '', ...(Buffer.from(opts.body.replace(/\n/g, '\r\n')).toString('base64').match(/.{1,76}/g) ?? [])];
  const attachments = opts.attachments ?? [];
  const body =
    attachments.length === 0
      ? text
      : [
          'Content-Type: multipart/mixed; boundary="b5"',
          '',
          '--b5',
          ...text,
          ...attachments.flatMap((a) => [
            '--b5',
            `Content-Type: ${a.type}; name="${a.name}"`,
            `Content-Disposition: attachment; filename="${a.name}"`,
            'Content-Transfer-Encoding: base64',
            '',
            ...(a.bytes.toString('base64').match(/.{1,76}/g) ?? []),
          ]),
          '--b5--',
        ];
  return Buffer.from(
    [
      `From: ${opts.from}`,
      'To: support@helpdesk.example.jp',
      `Subject: ${encodedWord(opts.subject)}`,
      'Message-ID: <audit5@customer.co.jp>',
      'Date: Tue, 24 Nov 2026 09:30:00 +0900',
      ...(opts.reply ? [`In-Reply-To: ${OUR_REPLY_ID}`, `References: ${OUR_REPLY_ID}`] : []),
      'MIME-Version: 1.0',
      ...(attachments.length === 0 ? text : body),
      '',
    ].join('\r\n'),
  );
}

/**
 * A zip of one stored file as zip tools write it: its local header, data, central directory entry and end record;
 * `encrypted` sets bit 0 of the general-purpose flags in both headers (traditional PKWARE or AES encryption).
 */
function zipOf(name: string, data: Buffer, encrypted: boolean): Buffer {
  const flags = encrypted ? 0x0001 : 0x0000;
  const fileName = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(flags, 8);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const centralAt = local.length + fileName.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, fileName, data, central, fileName, end]);
}
const LOG = Buffer.from('2026-11-24 09:12:01 ERROR export failed\n');
const encryptedZip = zipOf('error.log', LOG, true);
const plainZip = zipOf('error.log', LOG, false);
// The local header alone (sample 350's attachment: a tool's zip cut after its first entry's header).
const encryptedLocalHeaderOnly = encryptedZip.subarray(0, 30 + 'error.log'.length + 8);

describe('isEncryptedArchive: the zip general-purpose flag bit 0', () => {
  it.each<[string, Uint8Array, boolean]>([
    ['an encrypted zip', encryptedZip, true],
    ['a plain zip', plainZip, false],
    ['only the local header of an encrypted entry', encryptedLocalHeaderOnly, true],
    ['a plain entry, then an encrypted one', Buffer.concat([zipOf('a.txt', LOG, false).subarray(0, 30 + 5 + LOG.length), encryptedZip]), true],
    ['a PDF', Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\n'), false],
    ['an empty file', Buffer.alloc(0), false],
    ['a zip signature cut short', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14]), false],
  ])('%s', (_what, bytes, expected) => {
    expect(isEncryptedArchive(bytes)).toBe(expected);
  });
});

const mixed = (parts: UnreadableCheckInput['parts'], words: string): UnreadableCheckInput => ({ top: { contentType: 'multipart/mixed' }, text: words, ownWords: words, parts });
const plain = (words: string): UnreadableCheckInput => ({ top: { contentType: 'text/plain' }, text: words, ownWords: words, parts: [] });
const zipPart = (content: Uint8Array | undefined, filename = 'log_20261124.zip', contentType = 'application/x-zip-compressed') => ({ contentType, filename, ...(content ? { content } : {}) });
const xlsx = { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', filename: '取込データ_1124.xlsx' };
const pdf = { contentType: 'application/pdf', filename: '20261124093000.pdf' };
// Sample 350's words: a log sent as an encrypted zip, the password to follow in another mail.
const PPAP_ZIP_WORDS = 'XYZサポート ご担当者様\n\nお世話になっております。山田です。\nご依頼いただいたログファイルを送付いたします。\nパスワードは別途お送りいたします。\n\n山田';
// Sample 351: the person's own password mail.
const PPAP_PASSWORD_WORDS = 'XYZサポート ご担当者様\n\nお世話になっております。山田です。\n先ほどお送りした添付ファイルのパスワードをお知らせいたします。\n\nパスワード：Xk7#pQ2m\n\n山田';
// The opening of a person's password mail that points at the earlier file.
const PPAP_INTRO = 'お世話になっております。山田です。\n先ほどお送りした添付ファイルのパスワードをお知らせします。';
// Sample 352: the notice a PPAP tool (CipherCraft and its kind) sends automatically from the sender's own address.
const PPAP_TOOL_NOTICE =
  'このメールは、送信者が送信した添付ファイル付きメールの\n解凍パスワードをお知らせするため、システムより自動送信されています。\n\n--------------------------------------------------\n件名: RE: CSVエクスポートの文字化け\n送信日時: 2026/11/24 09:30\n添付ファイル名: log_20261124.zip\nパスワード: 9vN2-aQ8r-L4tE\n--------------------------------------------------\n\n※本メールに返信されても送信者には届きません。';

describe('unreadableReason: encrypted archives, password mails, greetings beside a file, scan notices', () => {
  it.each<[string, UnreadableCheckInput, string | undefined]>([
    // #5 PPAP: an encrypted archive is what the customer sent us to read, and the agent cannot open it.
    ['350: an encrypted zip (flag bit 0) beside words that send it', mixed([zipPart(encryptedZip)], PPAP_ZIP_WORDS), 'log_20261124.zip is an encrypted archive'],
    ['an encrypted zip beside a real question', mixed([zipPart(encryptedZip)], 'CSVの取り込みでエラーになります。ログを添付しますので原因を教えてください。'), 'log_20261124.zip is an encrypted archive'],
    ['an encrypted zip sent as octet-stream', mixed([zipPart(encryptedZip, 'logs.ZIP', 'application/octet-stream')], ''), 'logs.ZIP is an encrypted archive'],
    ['350 as parsed without the bytes: the words say the password follows', mixed([zipPart(undefined)], PPAP_ZIP_WORDS), 'log_20261124.zip is an encrypted archive'],
    ['the password to follow, in English', mixed([zipPart(undefined, 'logs.zip', 'application/zip')], 'Please find the logs attached. The password will follow in a separate email.'), 'logs.zip is an encrypted archive'],
    // The bytes add to the words, never overrule them: a zip without the flag may hold files locked one by one.
    ['a plain zip beside "the password follows"', mixed([zipPart(plainZip)], PPAP_ZIP_WORDS), 'log_20261124.zip is an encrypted archive'],
    ['a plain zip beside a question is read', mixed([zipPart(plainZip)], 'CSVの取り込みでエラーになります。ログを添付しますので原因を教えてください。'), undefined],
    ['"password follows" beside a PDF, no archive, is read', mixed([pdf], '見積書を送付いたします。パスワードは別途お送りいたします。開けない場合はご連絡ください。'), undefined],
    // #5 PPAP: a mail that only delivers the password of an earlier file: nothing to answer, and the password is a secret.
    ['351: a person sends the password of the earlier file', plain(PPAP_PASSWORD_WORDS), 'only delivers the password of an earlier attachment'],
    ['352: a PPAP tool sends the password automatically', plain(PPAP_TOOL_NOTICE), 'only delivers the password of an earlier attachment'],
    ['the password in a sentence', plain('お世話になっております。\n先程のファイルのパスワードは「Xk7#pQ2m」です。\nよろしくお願いいたします。'), 'only delivers the password'],
    ['the password in English', plain('Hi,\n\nThe password for the zip file I sent earlier is: Xk7#pQ2m\n\nThanks,\nTaro'), 'only delivers the password'],
    ['the reason never quotes the password', plain(PPAP_PASSWORD_WORDS), undefined],
    ['a question beside a password line is read', plain('添付ファイルのパスワード：Xk7#pQ2m\nこのファイルが開けないのですが、どうすればよいですか？'), undefined],
    ['a customer who cannot log in with their password is read', plain('ログインできません。\nパスワード：Xk7#pQ2m で試しましたがエラーになります。'), undefined],
    ['a question about the password-protected export is read', plain('エクスポートしたファイルにパスワードを設定できますか。'), undefined],
    // Bug review 39b #1: a "?" in the password is no question, and the password comes in more shapes than
    // "label: value" at a line's end: a heading (【パスワード】, ■パスワード) with the value beside it or on the next line,
    // a space for the colon, short labels, the value on the line after "…password …:", full-width characters.
    ['a "?" in the password is no question', plain(`${PPAP_INTRO}\n\nパスワード：Xk7?pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['【パスワード】 on its own line, the value on the next', plain(`${PPAP_INTRO}\n\n【パスワード】\nXk7#pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['【パスワード】 and the value on one line', plain(`${PPAP_INTRO}\n\n【パスワード】Xk7#pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['［パスワード］ and the value on one line', plain(`${PPAP_INTRO}\n\n［パスワード］ Xk7#pQ2m`), 'only delivers the password of an earlier attachment'],
    ['■パスワード on its own line, the value on the next', plain(`${PPAP_INTRO}\n\n■パスワード\nXk7#pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['■パスワード and the value on one line', plain(`${PPAP_INTRO}\n\n■パスワード　Xk7#pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['a full-width space for the colon', plain(`${PPAP_INTRO}\n\nパスワード　Xk7#pQ2m\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ['PW：', plain('お世話になっております。山田です。\n先ほどの添付ファイルのPWです。\n\nPW：Xk7#pQ2m\n\nよろしくお願いいたします。'), 'only delivers the password of an earlier attachment'],
    ['パス：', plain('先ほどの添付ファイルのパスです。\nパス：Xk7#pQ2m'), 'only delivers the password of an earlier attachment'],
    ['解凍パスワード： with a "?" in it', plain('添付ファイルの解凍パスワードをお送りします。\n解凍パスワード：Xk7?pQ2m'), 'only delivers the password of an earlier attachment'],
    ['English, the value on the line after the colon', plain('Hi,\n\nHere is the password for the zip file I sent earlier:\nXk7#pQ2m\n\nThanks,\nTaro'), 'only delivers the password of an earlier attachment'],
    ['a full-width value', plain(`${PPAP_INTRO}\nパスワード：Ｘｋ７＃ｐＱ２ｍ`), 'only delivers the password of an earlier attachment'],
    // Bug review 39b #2: a password with nothing that points at an earlier file is parked for what it is, not as PPAP.
    // A customer quoting their login beside a screenshot is no PPAP mail: it is read, as before the PPAP check.
    ['040: a login problem quoting the password, a screenshot mentioned', plain('ログインできません。\nID：taro01\nパスワード：abcd1234\nエラー画面のファイルを添付します。確認をお願いします。'), undefined],
    ['039: a full-width password of "the attached file", no earlier one named', plain('お世話になっております。\n添付ファイルのパスワード：Ｘｋ７＃ｐＱ２ｍ\nよろしくお願いいたします。'), 'the mail only delivers the password'],
    // Bug review 39h: the PPAP custom in more of its wordings still parks.
    ['39h: ZIPパスワード beside the file\'s name', plain('ZIPパスワード：Xk7#pQ2m\n添付ファイル：見積書.zip'), 'the mail only delivers the password'],
    ['39h: 開封パスワード', plain('添付ファイルの開封パスワードです。\nパスワード：Xk7#pQ2m'), 'the mail only delivers the password'],
    ['39h: a long file name before のパスワード', plain('添付ファイル(報告書2024年度版最終.pdf)のパスワード：Xk7#pQ2m'), 'the mail only delivers the password'],
    ['39h: パスワードの連絡', plain('パスワード付きファイルの件、パスワードの連絡です。\nパスワード：Xk7#pQ2m'), 'the mail only delivers the password'],
    // A password near a file word, without the custom's wording, is parked with the neutral reason (bug review 39i).
    ['39h: "Attached file password:"', plain('Attached file password: Xk7#pQ2m'), 'the mail carries a password'],
    ['39h: "Password for the Excel file:"', plain('Password for the Excel file: Xk7#pQ2m'), 'the mail only delivers the password'],
    ['39h: a tool\'s block', plain('■添付ファイル\n見積書.zip\n■パスワード\nXk7#pQ2m'), 'the mail carries a password'],
    ['39i: a login quoted under a screenshot', plain('エラー画面を添付します\nID：taro01\nパスワード：abcd1234'), 'the mail carries a password'],
    ['39i: "Attachment password:" beside a screenshot', plain('See the attached screenshot.\nAttachment password: Xk7#pQ2m'), 'the mail carries a password'],
    // Bug review 39g: without the PPAP custom's words, a UI word, a code or a guess under a password label is no password.
    ['39g: "Password" then "Settings" beside a file', plain('添付ファイルの画面をご確認ください。\nPassword\nSettings\nよろしくお願いいたします。'), undefined],
    ['39g: "Email", "Password", "Continue" beside a file', plain('ログイン画面のスクリーンショットを添付します。\nEmail\nPassword\nContinue'), undefined],
    ['39g: an error code on the line after a label with a colon', plain('パスワードを入力するとエラーコード:\n1603\nが表示されます。添付ファイルをご確認ください。'), undefined],
    ['39g: "PWD: Documents" beside a file', plain('添付ファイルのとおりです。\nPWD: Documents'), undefined],
    ['39g: a host and path after a label with a colon', plain('パスワード変更画面：example.com/settings\n添付ファイルをご確認ください。'), undefined],
    ['39g: a guess the customer asks about, after "the password for the zip file"', plain('Is the password for the zip file: Summer2024?'), undefined],
    ['39g: a guess after 「添付ファイルのパスワード：」', plain('添付ファイルのパスワード：Summer2024?'), undefined],
    // Shapes that are no password given: a path, a label with words after it, a value inside a sentence.
    ['a file path under "パス" is read', plain('保存先パス：/var/log/xyz.log\nこのファイルが作成されません。'), undefined],
    ['a heading of words, not a value, is read', plain('■パスワード変更\n添付ファイルの手順でパスワードを変更できません。'), undefined],
    ['a plain word after "password:" on the next line is read', plain('The zip file I sent earlier asks for a password:\nplease resend it'), undefined],
    ['042: a password inside a sentence is read', plain('管理画面のパスワード: abcd1234 でログインしても、添付ファイルのダウンロードができません。\n確認してください。'), undefined],
    // Bug review 39d #1: in Japanese 「パス」 mostly names a file path, and PWD is the shell's word: a path, a URL or an
    // environment line after them is a customer's report, not a password.
    ['39d pw01: a Windows path after パス：', plain('エクスポートしたファイルが開けません。\nパス：C:\\Users\\taro\\Desktop\\export.csv\nよろしくお願いいたします。'), undefined],
    ...[
      'パス：logs/app/error.log',
      'パス config/app.yml',
      'パス：\\\\fileserver\\share\\doc',
      'パス：https://example.com/share/doc',
      'パス：%APPDATA%\\App\\log',
      '・パス：opt/app/conf.d',
      'PWD=/home/taro/app',
      'pwd\nhome/john/app',
      'パスワード：C:\\Users\\taro\\secret',
      '【パスワード】\n/etc/app/conf.d',
    ].map((line): [string, UnreadableCheckInput, undefined] => [`39d: a path or URL is no password: ${JSON.stringify(line)}`, plain(`添付ファイルが開けません。\n${line}\nよろしくお願いいたします。`), undefined]),
    // Bug review 39d #2: a status line or an error code after "Password" without a colon is no password.
    ['39d pw04: "Password incorrect." the viewer says', plain('I cannot open the attachment you sent me.\nThe viewer says:\nPassword incorrect.\nPlease advise.'), undefined],
    ...['Password expired.', 'Password mismatch!', 'Password unchanged.', 'Password\nrequired!', '【パスワード】E-1024', '■パスワード\nERR-500'].map(
      (line): [string, UnreadableCheckInput, undefined] => [`39d: a status or error code is no password: ${JSON.stringify(line)}`, plain(`The attached file does not open.\n${line}\nRegards.`), undefined],
    ),
    // Bug review 39d #3: a question on the line after "Password:" is the customer's question, not the password.
    ['39d: "why?" under "Password:" is the question', plain('The attached file shows the login page.\nPassword:\nwhy?'), undefined],
    ['39d: a value ending in "?" is no password', plain('添付ファイルのパスワード：abc123?'), undefined],
    // The password shapes beside them still park.
    ['39d: a password-like value after "Password" and a space', plain('Password for the file I sent earlier\nPassword Xk7#pQ2m'), 'only delivers the password of an earlier attachment'],
    ['39d: letters and digits under 【パスワード】', plain(`${PPAP_INTRO}\n\n【パスワード】\nabcd1234`), 'only delivers the password of an earlier attachment'],
    // Bug review 39f #1: a loose shape's value of digits only (4+) or of letters only (8+, mixed case or no status word)
    // is a password too: a miss sends the password to the model.
    ...['【パスワード】\n20240401', 'パスワード　48213957', '■パスワード\n48213957', '【パスワード】48213957', '【パスワード】4821', '【パスワード】qwertyuiop', '【パスワード】qWeRtYuIoP', '■パスワード\nqwertyuiop'].map(
      (line): [string, UnreadableCheckInput, string] => [`39f: a digits-only or letters-only value in a loose shape: ${JSON.stringify(line)}`, plain(`${PPAP_INTRO}\n\n${line}\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ),
    ['39f: digits on the line after "…the zip file I sent earlier:"', plain('Hi,\n\nHere is the password for the zip file I sent earlier:\n48213957\n\nThanks,\nTaro'), 'only delivers the password of an earlier attachment'],
    // Bug review 39f #2: a label and a colon on the value's line refuse only a real path, a '?' only after a non-password,
    // and PWD with a colon is a password's label.
    ...['パスワード：aB3/x9Kq', 'パスワード：Xk7#pQ2?', 'パスワード：~Xk7#pQ2', 'PWD：Ab12Cd34'].map(
      (line): [string, UnreadableCheckInput, string] => [`39f: a strict shape's password: ${JSON.stringify(line)}`, plain(`${PPAP_INTRO}\n\n${line}\n\nよろしくお願いいたします。`), 'only delivers the password of an earlier attachment'],
    ),
    // ...and still give no password for a status word, a short number-less word or a real path.
    ...[
      '【パスワード】Required',
      '【パスワード】INCORRECT',
      '【パスワード】Expiredtoday',
      'Password\nrequired',
      '■パスワード\nforgotten',
      '【パスワード】123',
      'パスワード：~/.ssh/id_rsa',
      'パスワード：./secret.txt',
      'パスワード：src/app/main.ts',
      'パスワード：/secret',
      'パスワード：ftp://files.example.com',
      'パスワード：what?',
      'PWD: /home/taro/app',
      'PWD=/home/taro',
    ].map((line): [string, UnreadableCheckInput, undefined] => [`39f: no password: ${JSON.stringify(line)}`, plain(`The attached file does not open.\n${line}\nRegards.`), undefined]),
    // #4: a greeting and the sender's name beside a workbook say nothing of their own, as a closing and a name do.
    ['356: a greeting and a name beside a workbook', mixed([xlsx], 'お世話になっております。\n\n山田'), 'only in its attachment 取込データ_1124.xlsx'],
    ['356b: a greeting, a closing and a name beside a workbook', mixed([xlsx], 'お世話になっております。\nよろしくお願いいたします。\n山田'), 'only in its attachment 取込データ_1124.xlsx'],
    ['a greeting and an English name beside a workbook', mixed([xlsx], 'Dear Support Team,\nTaro Yamada'), 'only in its attachment'],
    ['a greeting and a sentence beside a workbook is read', mixed([xlsx], 'お世話になっております。\n取り込みでエラーになります。'), undefined],
    ['a greeting and a lower-case word beside a workbook is read', mixed([xlsx], 'Hello,\nurgent'), undefined],
    // #6: a scanner's scan-to-mail notice says nothing of a person's own.
    ['357: a scan-to-mail notice beside its PDF', mixed([pdf], 'スキャンしたデータを送信します。'), 'only in its attachment 20261124093000.pdf'],
    ['a scan-to-mail notice in English (Xerox)', mixed([pdf], 'Please open the attached document. It was scanned and sent to you using a Xerox multifunction printer.'), 'only in its attachment'],
    ['a scan notice with no file: it points at what the mail lacks', plain('スキャンしたデータを送信します。'), 'points at an attachment it does not carry'],
    ['a customer asking about a scan is read', mixed([pdf], 'スキャンしたデータを送信しますが、文字が読み取れません。どうすればよいですか？'), undefined],
  ])('%s', (what, input, expected) => {
    const reason = unreadableReason(input);
    // No reason quotes a password, whatever its shape in the mail.
    for (const secret of ['Xk7', 'Ｘｋ７', 'abcd1234', '9vN2']) expect(reason ?? '').not.toContain(secret);
    if (expected?.startsWith('the mail carries a password')) expect(reason).not.toContain('earlier attachment');
    if (what === 'the reason never quotes the password') {
      expect(reason).toBeDefined();
      expect(reason).not.toContain('Xk7#pQ2m');
    } else if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(expected);
  });
});

describe('the password check on hostile text', () => {
  // A run of white space after a heading is read once, not split between the runs beside it (quadratic: minutes).
  it.each([
    ['a heading, 20,000 spaces and no value', `■パスワード${' '.repeat(20_000)}x\n添付ファイル`],
    ['a bracket, spaces on both sides of the label', `【${' '.repeat(20_000)}パスワード${' '.repeat(20_000)}】${' '.repeat(20_000)}x\n添付ファイル`],
    ['a colon, spaces and a newline', `パスワード:${' '.repeat(20_000)}\n${' '.repeat(20_000)}x\n添付ファイル`],
  ])('%s is read in well under a second', (_what, words) => {
    const started = performance.now();
    unreadableReason(plain(words));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('the audit samples through the parser and the checks before the agent', () => {
  const yamada = `${encodedWord('山田 太郎')} <t.yamada@customer.co.jp>`;
  it.each<[string, Buffer, RegExp]>([
    ['350: an encrypted zip', rawMail({ from: yamada, subject: 'RE: CSVエクスポートの文字化け', body: PPAP_ZIP_WORDS, reply: true, attachments: [{ type: 'application/x-zip-compressed', name: 'log_20261124.zip', bytes: encryptedZip }] }), /^park the attachment log_20261124\.zip is an encrypted archive/],
    ['351: the password mail', rawMail({ from: yamada, subject: 'パスワードのお知らせ', body: PPAP_PASSWORD_WORDS }), /^park .*only delivers the password of an earlier attachment/],
    ['352: the PPAP tool\'s notice', rawMail({ from: yamada, subject: '[パスワード通知] RE: CSVエクスポートの文字化け', body: PPAP_TOOL_NOTICE }), /^park .*only delivers the password of an earlier attachment/],
    // A short "sent automatically" line above the password must not make it an ignored auto-reply in a reply to ours:
    // a person needs the password to open the file.
    ['038: the value on the line after "…I sent earlier:"', rawMail({ from: yamada, subject: 'Password', body: 'Hi,\n\nHere is the password for the zip file I sent earlier:\nXk7#pQ2m\n\nThanks,\nTaro' }), /^park .*only delivers the password of an earlier attachment/],
    ['040: a login problem quoting the password', rawMail({ from: yamada, subject: 'ログインできません', body: 'お世話になっております。\nログインできません。\nID：taro01\nパスワード：abcd1234\nエラー画面のファイルを添付します。確認をお願いします。\n山田' }), /^answer$/],
    ['a PPAP tool\'s short notice in a reply to ours', rawMail({ from: yamada, subject: 'RE: CSVエクスポートの文字化け', body: 'このメールは自動送信されています。\n添付ファイルの解凍パスワードをお知らせします。\nパスワード: 9vN2-aQ8r-L4tE', reply: true }), /^park .*only delivers the password of an earlier attachment/],
    ['356: a greeting and a name beside a workbook', rawMail({ from: yamada, subject: 'RE: CSVエクスポートの文字化け', body: 'お世話になっております。\n\n山田', reply: true, attachments: [{ type: xlsx.contentType, name: 'data_1124.xlsx', bytes: plainZip }] }), /^park the mail's text is only in its attachment data_1124\.xlsx/],
    ['357: a scanner\'s scan-to-mail', rawMail({ from: 'scanner@customer.co.jp', subject: 'Scan Data from RICOH IM C3000', body: 'スキャンしたデータを送信します。\n\n送信元：RICOH IM C3000\n送信日時：2026/11/24 09:30\nファイル形式：PDF\n', attachments: [{ type: 'application/pdf', name: '20261124093000.pdf', bytes: Buffer.from('%PDF-1.4\n%%EOF\n') }] }), /^park the mail's text is only in its attachment 20261124093000\.pdf/],
    // #9: the bytes of a zip are handed to the check, so its encryption flag tells without the sender's word.
    ['an encrypted zip beside words that only send it', rawMail({ from: yamada, subject: 'ログ', body: 'ログを送ります。', attachments: [{ type: 'application/zip', name: 'log.zip', bytes: encryptedZip }] }), /^park the attachment log\.zip is an encrypted archive/],
    ['an encrypted zip sent as octet-stream, known by its name', rawMail({ from: yamada, subject: 'ログ', body: 'ログを送ります。', attachments: [{ type: 'application/octet-stream', name: 'LOG.ZIP', bytes: encryptedZip }] }), /^park the attachment LOG\.ZIP is an encrypted archive/],
    ['a plain zip beside the same words is no encrypted archive', rawMail({ from: yamada, subject: 'ログ', body: 'ログを送ります。', attachments: [{ type: 'application/zip', name: 'log.zip', bytes: plainZip }] }), /^(?!.*encrypted archive)/],
    ['a question beside a plain zip is answered', rawMail({ from: yamada, subject: 'CSV取り込みエラー', body: 'CSVの取り込みでエラーになります。ログを添付しますので原因を教えてください。', attachments: [{ type: 'application/zip', name: 'log.zip', bytes: plainZip }] }), /^answer$/],
  ])('%s', async (_what, raw, expected) => {
    expect(await mailOutcome(raw)).toMatch(expected);
  });
});

describe("#2: a no-reply notice's message under a heading of its own", () => {
  const notice = (message: string[]) =>
    ['XYZサポート 様', '', '株式会社カスタマー 山田 太郎 様（taro.yamada@customer.co.jp）から', 'ファイルが届いています。以下のURLからダウンロードしてください。', '', '■ダウンロードURL', 'https://securedelivery.example-transfer.jp/d/8f3K2pQ', '■ダウンロード期限', '2026年12月01日 23:59', '■ファイル', 'error_log_1124.zip (2.3MB)', ...message, '', '※このメールは送信専用アドレスから送信しています。'].join('\n');
  const from = { address: 'noreply@securedelivery.example-transfer.jp', name: 'セキュア便' };
  it.each<[string, string, string | undefined]>([
    ['353: ■メッセージ, the words on the next line', notice(['■メッセージ', 'エラー発生時のログです。原因を確認していただけますでしょうか。']), 'エラー発生時のログです。'],
    ['【メッセージ】', notice(['【メッセージ】', '原因を確認していただけますでしょうか。']), '原因を確認していただけますでしょうか。'],
    ['Message from sender, a blank line before the words', notice(['Message from sender', '', 'Here are the logs. Could you check the cause?']), 'Here are the logs.'],
    ['［送信者からのメッセージ］', notice(['［送信者からのメッセージ］', 'ログを送ります。']), 'ログを送ります。'],
    ['a heading with nothing under it but the next heading', notice(['■メッセージ', '■備考', '']), undefined],
    ['no message heading at all', notice([]), undefined],
    ['a heading-like line of the notice itself is no message field', notice(['■メッセージの有効期限', '7日間']), undefined],
  ])('%s', (_what, question, message) => {
    const carried = personMessageInNotificationOf({ from, replyTo: undefined, question });
    if (message === undefined) expect(carried).toBeUndefined();
    else expect(carried).toContain(message);
  });

  it('353 is parked for a person, not ignored as a no-reply sender', async () => {
    const raw = rawMail({
      from: `${encodedWord('セキュア便')} <noreply@securedelivery.example-transfer.jp>`,
      subject: '【セキュア便】山田 太郎 様からファイルが届いています',
      body: notice(['■メッセージ', 'エラー発生時のログです。原因を確認していただけますでしょうか。']),
    });
    expect(await mailOutcome(raw)).toMatch(/^park .*taro\.yamada@customer\.co\.jp/);
  });
});
