import { describe, expect, it } from 'vitest';
import { KnowledgeError } from '../../src/knowledge/errors.js';
import { parseQaCsv } from '../../src/knowledge/qa-loader.js';
import type { Logger } from '../../src/logger.js';

// Pairs are quoted in customer replies: no question or answer may be a customer's name, address, e-mail address or
// phone number, whether its column is named, beside a named one, or one of the first two (security review sec9).

/** What the loader should do with a file: read these pairs, stop the reindex naming these columns, or pass it over. */
type Outcome = { pairs: [string, string][] } | { refused: RegExp } | { passedOver: RegExp };
type Actual = { pairs: [string, string][] } | { refused: string } | { passedOver: string };

/** Anything of the crafted customers' personal data. */
const PERSONAL = /taro@|hanako@|090-|03-1234|080-|山田|佐藤|Taro|Yamada|Hanako|Sato|東京都|Tokyo|Main St|\+81/;
const HEAD_THE_COLUMNS = /head the question column question \(or 質問, 問い合わせ, Q\) and the answer column answer \(or 回答, 対応内容, A\)/;
/** Why a file that names no question or answer column but personal-data columns is not read: a ticket export. */
const TICKET_EXPORT = (columns: string, header: string): RegExp =>
  new RegExp(`^/qa/export\\.csv: the header names no question and answer columns but personal data \\(${columns}\\): an export of tickets or customers, whose text is the customers' own, not answers; the header reads ${header}: head the question column`);

function outcomeOf(csv: string): Actual & { warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_: unknown, msg: string) => void warnings.push(msg), debug: () => undefined, info: () => undefined } as unknown as Logger;
  try {
    const result = parseQaCsv(csv, 'export.csv', { file: '/qa/export.csv', logger });
    if (result.passedOver.length > 0) return { passedOver: result.passedOver.map((p) => p.reason).join('\n'), warnings };
    return { pairs: result.pairs.map((p): [string, string] => [p.question, p.answer]), warnings };
  } catch (err) {
    if (!(err instanceof KnowledgeError)) throw err;
    return { refused: err.message, warnings };
  }
}

function expectOutcome(csv: string, expected: Outcome): string[] {
  const actual = outcomeOf(csv);
  if ('pairs' in expected) {
    expect('pairs' in actual ? actual.pairs : actual).toEqual(expected.pairs);
  } else if ('refused' in expected) {
    expect('refused' in actual ? actual.refused : actual).toMatch(expected.refused);
    expect('refused' in actual ? actual.refused : '').toMatch(HEAD_THE_COLUMNS);
  } else {
    expect('passedOver' in actual ? actual.passedOver : actual).toMatch(expected.passedOver);
  }
  if ('pairs' in actual) for (const pair of actual.pairs) expect(pair.join(' | ')).not.toMatch(PERSONAL);
  return actual.warnings;
}

describe('parseQaCsv never reads a column of personal data as questions or answers', () => {
  // The review's crafted exports (tmp/sec9/qa-personal-data.mts), each with what must happen instead.
  it.each<{ name: string; csv: string; expected: Outcome }>([
    // A ticket export: its Body is the customer's own message, not an answer to quote to others.
    {
      name: 'none named, en: a ticket export',
      csv: 'Name,Email,Subject,Body\nTaro Yamada,taro@example.com,Login,I cannot log in\nHanako Sato,hanako@example.com,Billing,Invoice?\n',
      expected: { refused: TICKET_EXPORT('Name, Email', 'Name, Email, Subject, Body') },
    },
    {
      name: 'none named, ja: a ticket export',
      csv: '氏名,メールアドレス,件名,本文\n山田太郎,taro@example.com,ログイン,ログインできません\n佐藤花子,hanako@example.com,請求,請求書\n',
      expected: { refused: TICKET_EXPORT('氏名, メールアドレス', '氏名, メールアドレス, 件名, 本文') },
    },
    {
      name: 'none named, ja name and phone first: a ticket export',
      csv: 'お客様氏名,電話番号,件名,内容\n山田太郎,090-1234-5678,ログイン,ログインできません\n佐藤花子,03-1234-5678,請求,請求書\n',
      expected: { refused: TICKET_EXPORT('お客様氏名, 電話番号', 'お客様氏名, 電話番号, 件名, 内容') },
    },
    {
      name: 'none named, personal data told by its values only',
      csv: '件名,連絡先,本文\nログイン,taro@example.com,ログインできません\n請求,hanako@example.com,請求書\n',
      expected: { refused: TICKET_EXPORT('連絡先', '件名, 連絡先, 本文') },
    },
    {
      name: 'question named, next column 顧客氏名, then only a date',
      csv: 'お問い合わせ内容,顧客氏名,受付日\nログインできません,山田太郎,2024/01/05\n請求書が届かない,佐藤花子,2024/01/06\n',
      expected: { refused: /^\/qa\/export\.csv: the column 受付日 holds only numbers or ids/ },
    },
    {
      name: 'question named, next column address',
      csv: 'question,address\nHow do I log in?,1-2-3 Main St Tokyo\nInvoice?,4-5-6 Main St Tokyo\n',
      expected: { refused: /^\/qa\/export\.csv: no column of text beside question but personal data \(address\) to read as the answers/ },
    },
    {
      name: 'question named, next column 住所',
      csv: '質問,住所\nログインは？,東京都千代田区1-2-3\n請求書は？,東京都港区4-5-6\n',
      expected: { refused: /no column of text beside 質問 but personal data \(住所\) to read as the answers/ },
    },
    {
      name: 'Reply-To is no answer column',
      csv: 'Question,Reply-To\nHow do I log in?,taro@example.com\nInvoice?,hanako@example.com\n',
      expected: { refused: /no column of text beside Question but personal data \(Reply-To\) to read as the answers/ },
    },
    {
      name: 'Response_By is no answer column',
      csv: 'Question,Response_By\nHow do I log in?,Taro Yamada\nInvoice?,Hanako Sato\n',
      expected: { refused: /no column of text beside Question but personal data \(Response_By\) to read as the answers/ },
    },
    {
      name: '対応（担当者） is no answer column',
      csv: '質問,対応（担当者）\nログインは？,山田太郎\n請求書は？,佐藤花子\n',
      expected: { refused: /no column of text beside 質問 but personal data \(対応（担当者）\) to read as the answers/ },
    },
    {
      name: 'question and answer named, an e-mail column beside them',
      csv: 'question,answer,email\nHow?,Click login,taro@example.com\nInvoice?,See billing,hanako@example.com\n',
      expected: { pairs: [['How?', 'Click login'], ['Invoice?', 'See billing']] },
    },
    {
      name: 'padded Customer Name header, then only a date',
      csv: ' Question ,  Customer Name  ,Date\nHow?,Taro Yamada,2024-01-01\nInvoice?,Hanako Sato,2024-01-02\n',
      expected: { refused: /the column Date holds only numbers or ids/ },
    },
    {
      name: 'phone numbers labelled TEL under a header that does not say so',
      csv: 'question,contact\nHow?,TEL: 090-1234-5678\nInvoice?,TEL: 03-1234-5678\n',
      expected: { refused: /no column of text beside question but personal data \(contact\) to read as the answers/ },
    },
    {
      name: 'answer named, only お客様名 before it',
      csv: 'お客様名,回答\n山田太郎,再起動してください\n佐藤花子,請求書を再送します\n',
      expected: { refused: /no column of text beside 回答 but personal data \(お客様名\) to read as the questions/ },
    },
    {
      name: 'answer named, only 顧客 before it',
      csv: '顧客,回答\n山田太郎,再起動してください\n佐藤花子,請求書を再送します\n',
      expected: { refused: /no column of text beside 回答 but personal data \(顧客\) to read as the questions/ },
    },
  ])('$name', ({ csv, expected }) => {
    expectOutcome(csv, expected);
  });

  // Headers of personal data the person list missed, each beside a named question with a memo after it.
  it.each([
    '顧客氏名', 'お客様氏名', '氏名（カナ）', '顧客', 'お客様', '住所', 'ご住所', '送付先住所', '所在地', 'Address', 'Mailing address', '対応者', '回答者',
    '作成者', '問い合わせ者', '電話', '携帯電話', 'TEL', 'Tel.', 'phone_number', 'メール', 'Eメール', 'Mail', 'E-Mail', 'Reply-To', 'Response_By',
    'Answered By', '対応（担当者）', '郵便番号',
    // Who a message went to or came from, and who acted on a ticket.
    'To', 'From', 'Cc', 'Bcc', 'reply_to', 'Sent To', 'Assigned To', 'Assigned_To', 'Created by', 'Updated By', 'Resolved_By', 'By',
  ])('passes over a %s column beside the question', (person) => {
    expectOutcome(`質問,${person},メモ\nQ1,山田太郎,A1\nQ2,佐藤花子,A2\n`, { pairs: [['Q1', 'A1'], ['Q2', 'A2']] });
  });

  // `to`, `by` and the like name a person only as a mail header or after a role: a FAQ's How-To column is text.
  it.each<{ name: string; csv: string; pairs: [string, string][] }>([
    { name: 'How-To as the question', csv: 'How-To,Answer\nReset a password,Open Settings > Security\n', pairs: [['Reset a password', 'Open Settings > Security']] },
    { name: 'How_To as the question', csv: 'How_To,Answer\nReset a password,Open Settings > Security\n', pairs: [['Reset a password', 'Open Settings > Security']] },
    { name: 'How to as the question', csv: 'How to,Answer\nReset a password,Open Settings > Security\n', pairs: [['Reset a password', 'Open Settings > Security']] },
    { name: 'Howto as the question', csv: 'Howto,Answer\nReset a password,Open Settings > Security\n', pairs: [['Reset a password', 'Open Settings > Security']] },
    { name: 'How-To as the answer', csv: 'Question,How-To\nHow do I reset my password?,Open Settings > Security\n', pairs: [['How do I reset my password?', 'Open Settings > Security']] },
    {
      name: 'How-To between an id and an answer, a requester after',
      csv: 'ID,How-To,Answer,Requester\n1,Export a report,Choose Export on the Reports page,Taro Yamada\n',
      pairs: [['Export a report', 'Choose Export on the Reports page']],
    },
  ])('reads a FAQ whose header says how-to: $name', ({ csv, pairs }) => {
    expectOutcome(csv, { pairs });
  });

  // A channel after an answer's name says how the answer went out: its values tell whether it holds answers.
  it.each<{ name: string; csv: string; expected: Outcome }>([
    { name: '回答（メール） of answers', csv: '質問,回答（メール）\nログインは？,再起動してください\n請求書は？,請求書を再送します\n', expected: { pairs: [['ログインは？', '再起動してください'], ['請求書は？', '請求書を再送します']] } },
    { name: 'Reply (Email) of answers', csv: 'Question,Reply (Email)\nHow do I log in?,Use the link we sent\nInvoice?,See Billing\n', expected: { pairs: [['How do I log in?', 'Use the link we sent'], ['Invoice?', 'See Billing']] } },
    { name: 'Answer (E-mail) of answers', csv: 'Question,Answer (E-mail),Agent\nHow do I log in?,Use the link we sent,Taro Yamada\n', expected: { pairs: [['How do I log in?', 'Use the link we sent']] } },
    { name: '回答（メール） of answers beside a memo', csv: '質問,回答（メール）,メモ\nQ1,再起動してください,要確認\n', expected: { pairs: [['Q1', '再起動してください']] } },
    {
      name: '回答（メール） of e-mail addresses',
      csv: '質問,回答（メール）\nログインは？,taro@example.com\n請求書は？,hanako@example.com\n',
      expected: { refused: /no column of text beside 質問 but personal data \(回答（メール）\) to read as the answers/ },
    },
    {
      name: 'Reply (Email) of e-mail addresses, a memo beside it',
      csv: 'Question,Reply (Email),Memo\nHow?,taro@example.com,A1\nInvoice?,hanako@example.com,A2\n',
      expected: { pairs: [['How?', 'A1'], ['Invoice?', 'A2']] },
    },
  ])('judges a channel-qualified answer column by its values: $name', ({ csv, expected }) => {
    expectOutcome(csv, expected);
  });

  // Columns whose header says nothing of what they hold: most of their values are personal data.
  it.each([
    { name: 'phone numbers labelled TEL', values: ['TEL: 090-1234-5678', 'TEL：03-1234-5678', '-'] },
    { name: 'phone numbers labelled 電話', values: ['電話 090-1234-5678', '携帯: 080-9876-5432'] },
    { name: 'postal addresses', values: ['東京都千代田区1-2-3', '〒100-0001 東京都港区4-5-6'] },
    { name: 'e-mail addresses with display names', values: ['山田 <taro@example.com>', 'hanako@example.co.jp'] },
  ])('passes over a column of $name beside the question', ({ values }) => {
    const rows = values.map((value, i) => `Q${i + 1},${value},A${i + 1}`).join('\n');
    expectOutcome(`質問,連絡先,メモ\n${rows}\n`, { pairs: values.map((_, i) => [`Q${i + 1}`, `A${i + 1}`]) });
  });

  // A long export's columns are judged on a sample spread over them: a column of addresses is still told.
  it.each([
    { name: 'e-mail addresses', value: (i: number) => `customer${i}@example.com` },
    { name: 'labelled phone numbers', value: (i: number) => `TEL: 090-${String(1000 + (i % 9000))}-5678` },
  ])('passes over a column of $name in a long export', ({ value }) => {
    const rows = Array.from({ length: 1200 }, (_, i) => `Q${i},${i % 10 === 0 ? '-' : value(i)},A${i}`);
    const result = parseQaCsv(`質問,連絡先,メモ\n${rows.join('\n')}\n`, 'export.csv');
    expect(result.pairs.slice(0, 2).map((p) => [p.question, p.answer])).toEqual([['Q0', 'A0'], ['Q1', 'A1']]);
  });

  it.each<{ name: string; csv: string; expected: Outcome }>([
    // An answer column headed with a person (whose answer) is judged by its values: customers' addresses are no answer.
    // (A plain `answer` column is read whatever it holds: see the store contacts below.)
    {
      name: 'a person-qualified answer column of customers\' e-mail addresses',
      csv: 'question,agent_answer\nHow?,taro@example.com\nInvoice?,hanako@example.com\n',
      expected: { refused: /no column of text beside question but personal data \(agent_answer\) to read as the answers/ },
    },
    {
      name: 'a person-qualified question column of phone numbers, a subject beside the answer',
      csv: '件名,問い合わせ（お客様）,回答\nログイン,TEL: 090-1234-5678,再起動してください\n請求,03-1234-5678,再送します\n',
      expected: { pairs: [['ログイン', '再起動してください'], ['請求', '再送します']] },
    },
    // Only personal data and no header to tell: no text to lose, so passed over like a count sheet.
    {
      name: 'no names, every column personal data',
      csv: 'Name,Email\nTaro Yamada,taro@example.com\nHanako Sato,hanako@example.com\n',
      expected: { passedOver: /^the header names no question and answer columns but personal data \(Name, Email\): an export of tickets or customers/ },
    },
    {
      name: 'no names, one column of text among personal data',
      csv: '氏名,メールアドレス,本文\n山田太郎,taro@example.com,ログインできません\n',
      expected: { refused: TICKET_EXPORT('氏名, メールアドレス', '氏名, メールアドレス, 本文') },
    },
  ])('$name', ({ csv, expected }) => {
    expectOutcome(csv, expected);
  });

  // Helpdesk exports and FAQs that must keep loading, name and e-mail columns left out wherever they stand.
  it.each([
    { question: 'お問い合わせ内容', answer: '対応内容' },
    { question: '質問', answer: '回答' },
    { question: 'Question', answer: 'Answer' },
    { question: 'Subject', answer: 'Resolution' },
  ])('reads $question / $answer with name and e-mail columns beside them', ({ question, answer }) => {
    const people = [
      ['氏名', 'メールアドレス', '山田太郎', 'taro@example.com'],
      ['Customer Name', 'Email', 'Taro Yamada', 'taro@example.com'],
    ];
    for (const [name, email, who, address] of people) {
      for (const [header, row] of [
        [`ID,${name},${email},${question},${answer}`, `1,${who},${address},Q1,A1`],
        [`${question},${name},${email},${answer}`, `Q1,${who},${address},A1`],
        [`${question},${answer},${name},${email}`, `Q1,A1,${who},${address}`],
        [`${name},${question},${email},${answer},担当者`, `${who},Q1,${address},A1,佐藤花子`],
      ]) {
        const warnings = expectOutcome(`${header}\n${row}\n`, { pairs: [['Q1', 'A1']] });
        expect(warnings.join('\n')).not.toMatch(/reading (?:氏名|メールアドレス|Customer Name|Email|担当者) as/);
      }
    }
  });

  // As a Zendesk export whose columns cannot be told: the reindex stops, its pairs not silently lost nor quoted.
  it('stops the reindex on a ticket export with the whole message and no warning of columns read', () => {
    const actual = outcomeOf('Name,Email,Subject,Body\nTaro Yamada,taro@example.com,Login,I cannot log in\n');
    expect(actual).toEqual({
      refused:
        "/qa/export.csv: the header names no question and answer columns but personal data (Name, Email): an export of tickets or customers, whose text is the customers' own, not answers; the header reads Name, Email, Subject, Body: head the question column question (or 質問, 問い合わせ, Q) and the answer column answer (or 回答, 対応内容, A), then reindex",
      warnings: [],
    });
  });

  // README: a header naming neither, with no personal data in it, still means the first two columns.
  it.each([
    { csv: 'foo,bar,baz\nQ1,A1,x\n', pairs: [['Q1', 'A1']] },
    { csv: '件名,本文,カテゴリ\nログイン,再起動してください,アカウント\n', pairs: [['ログイン', '再起動してください']] },
  ])('reads the first two columns of $csv', ({ csv, pairs }) => {
    expectOutcome(csv, { pairs: pairs as [string, string][] });
  });

  // A FAQ may publish the company's own contact points: role addresses and toll-free numbers are no one's data.
  it('reads a named answer column of the company\'s role addresses and toll-free numbers', () => {
    expectOutcome('質問,回答\n請求の窓口は？,billing@example.com\nサポートの電話番号は？,0120-123-456\n', {
      pairs: [['請求の窓口は？', 'billing@example.com'], ['サポートの電話番号は？', '0120-123-456']],
    });
  });

  // Bug review 40 #1: a header naming neither question nor answer is a ticket export only beside a contact of the
  // customer (a person's name, an e-mail address, a phone number): an author column, a feature's or product's name,
  // a web address or a role mailbox is none. Such columns are never read; the first two of the others are.
  it.each<{ header: string; rows: string[]; pairs: [string, string][] }>([
    { header: 'Feature Name,Description', rows: ['Auto Backup,Backs up your files every night', 'Share Link,Creates a link anyone can open'], pairs: [['Auto Backup', 'Backs up your files every night'], ['Share Link', 'Creates a link anyone can open']] },
    { header: 'Product Name,Details,Updated', rows: ['Pro Plan,Up to 50 users,2024/01/05'], pairs: [['Pro Plan', 'Up to 50 users']] },
    { header: 'File Name,Description', rows: ['setup.exe,The installer'], pairs: [['setup.exe', 'The installer']] },
    { header: 'Title,Description,Web Address', rows: ['Reset a password,Open Settings > Security,https://help.example.com/reset'], pairs: [['Reset a password', 'Open Settings > Security']] },
    { header: 'Title,Body,Created By', rows: ['Reset a password,Open Settings > Security,Taro Yamada'], pairs: [['Reset a password', 'Open Settings > Security']] },
    { header: 'FAQ,Answer Text,Modified By', rows: ['Reset a password?,Open Settings > Security,Hanako Sato'], pairs: [['Reset a password?', 'Open Settings > Security']] },
    { header: 'タイトル,本文,作成者', rows: ['パスワードを忘れた,再設定してください,山田太郎'], pairs: [['パスワードを忘れた', '再設定してください']] },
    { header: '用語,説明,更新者', rows: ['SSO,シングルサインオンの略です,佐藤花子'], pairs: [['SSO', 'シングルサインオンの略です']] },
    { header: 'Topic,Details,Owner', rows: ['Billing,Invoices are sent monthly,Taro Yamada'], pairs: [['Billing', 'Invoices are sent monthly']] },
    { header: 'Topic,Details,Author', rows: ['Billing,Invoices are sent monthly,Taro Yamada'], pairs: [['Billing', 'Invoices are sent monthly']] },
    { header: 'Topic,Details,Updated By', rows: ['Billing,Invoices are sent monthly,Taro Yamada'], pairs: [['Billing', 'Invoices are sent monthly']] },
    {
      header: '項目,説明,担当部署,問い合わせ先',
      rows: ['請求,請求書は毎月送付します,経理部,billing@example.com', '採用,随時募集しています,人事部,info@example.com', 'サポート,平日9時から,サポート部,support@example.com', '営業,見積もりを承ります,営業部,sales@example.com'],
      pairs: [['請求', '請求書は毎月送付します'], ['採用', '随時募集しています'], ['サポート', '平日9時から'], ['営業', '見積もりを承ります']],
    },
    // An author column first: the first two of the other columns are read.
    { header: '作成者,タイトル,本文', rows: ['山田太郎,パスワードを忘れた,再設定してください'], pairs: [['パスワードを忘れた', '再設定してください']] },
    { header: 'Owner,Topic,Details', rows: ['Taro Yamada,Billing,Invoices are sent monthly'], pairs: [['Billing', 'Invoices are sent monthly']] },
  ])('reads $header: no contact of a customer, no ticket export', ({ header, rows, pairs }) => {
    const warnings = expectOutcome(`${header}\n${rows.join('\n')}\n`, { pairs });
    expect(warnings.join('\n')).not.toMatch(/Created By|作成者|更新者|Owner|Author|Updated By|Modified By|問い合わせ先 as/);
  });

  // …while a contact of the customer beside text still makes it a ticket export, by header or by values.
  it.each<{ header: string; rows: string[]; columns: string }>([
    { header: 'Customer Name,Subject,Body', rows: ['Taro Yamada,Login,I cannot log in'], columns: 'Customer Name' },
    { header: 'Requester,Subject,Description', rows: ['Taro Yamada,Login,I cannot log in'], columns: 'Requester' },
    { header: 'お名前,件名,本文', rows: ['山田太郎,ログイン,ログインできません'], columns: 'お名前' },
    { header: '顧客名,件名,本文', rows: ['山田太郎,ログイン,ログインできません'], columns: '顧客名' },
    { header: 'Subject,Body,Email', rows: ['Login,I cannot log in,taro@example.com'], columns: 'Email' },
    { header: '件名,本文,電話番号', rows: ['ログイン,ログインできません,090-1234-5678'], columns: '電話番号' },
    { header: 'Subject,Body,Created By,From', rows: ['Login,I cannot log in,Hanako Sato,taro@example.com', 'Billing,Invoice?,Hanako Sato,jiro@example.co.jp'], columns: 'From' },
  ])('stops the reindex on $header: a contact of the customer', ({ header, rows, columns }) => {
    expectOutcome(`${header}\n${rows.join('\n')}\n`, { refused: TICKET_EXPORT(columns, header.split(',').join(', ')) });
  });

  // Bug review 40 #2: a question or answer header qualified by whose it is names that column.
  it.each([
    'customer_question,agent_answer', 'Question (Customer),Answer (Agent)', '質問（お客様）,回答（担当者）', 'user_question,agent_reply',
    'Customer_Inquiry,Staff_Response', 'question,answer_by_agent', 'Customer Question,Agent Answer', 'お客様の質問,担当者の回答',
  ])('reads the person-qualified question and answer columns of %s', (header) => {
    const csv = `ID,${header.split(',')[0]},Requester,${header.split(',')[1]},Memo\n1,How do I log in?,Taro Yamada,Use the link we sent,x\n`;
    const warnings = expectOutcome(csv, { pairs: [['How do I log in?', 'Use the link we sent']] });
    expect(warnings).toEqual([]);
  });

  // Bug review 40 #3: a column the header names plainly is read whatever it holds: a FAQ of the company's contacts.
  it.each<{ name: string; rows: [string, string][] }>([
    { name: 'store phone numbers', rows: [['渋谷店の電話番号は？', '03-3461-1234'], ['新宿店の電話番号は？', '03-3354-5678'], ['梅田店の電話番号は？', '06-6312-9012']] },
    { name: 'store addresses', rows: [['渋谷店の住所は？', '東京都渋谷区道玄坂1-2-3'], ['新宿店の住所は？', '東京都新宿区西新宿2-8-1'], ['梅田店の住所は？', '大阪府大阪市北区梅田3-1-1']] },
    { name: 'role addresses', rows: [['問い合わせ先は？', 'support@example.com'], ['請求の窓口は？', 'billing@example.com'], ['採用の窓口は？', 'recruit@example.com']] },
    { name: 'office phone numbers', rows: [['What is the Boston office phone?', '+1 617-555-0134'], ['NY office phone?', '+1 212-555-0199'], ['London office?', '+44 20 7946 0958']] },
  ])('reads a plainly named answer column of $name', ({ rows }) => {
    for (const header of ['質問,回答', 'Question,Answer']) {
      const actual = outcomeOf(`${header}\n${rows.map((r) => r.map((c) => `"${c}"`).join(',')).join('\n')}\n`);
      expect('pairs' in actual ? actual.pairs : actual).toEqual(rows);
    }
  });
});
