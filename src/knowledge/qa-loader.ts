/**
 * Loads past questions and answers from CSV files (RFC 4180: a header row, then one pair per row; quoted fields may
 * hold commas, doubled quotes and line breaks) and Excel workbooks (.xlsx: each visible sheet read the same way).
 * Spreadsheet exports are accepted as they come: UTF-8 with BOM or Shift_JIS, CRLF, blank lines, and columns in any
 * order when the header names them (`question`/`answer`, `質問`/`回答`, `Q`/`A`, a helpdesk's `お問い合わせ内容`/`対応内容`…,
 * see {@link qaColumns}); a header that names one means that one and the column of text beside it, one that names
 * neither the first two columns without personal data (unless one is a contact of the customer: a ticket export,
 * refused); an unnamed column of personal data is never read, a plainly named one always (pairs are quoted in
 * replies; see {@link namedColumnReadable}). A column taken without a name that holds only numbers or ids is
 * never read as questions or answers: a table with no text but ids, numbers or dates (a cover, revision-history or
 * count sheet), or a sheet beside another sheet of pairs, is passed over with a warning; any other such file stops the
 * reindex, naming its columns. Fields exported as HTML are read as their text ({@link qaFieldText}).
 */
import { readFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse/sync';
import { decodeHTMLStrict } from 'entities';
import { compile } from 'html-to-text';
import type { Logger } from '../logger.js';
import { limitHtmlNesting, MAX_HTML_DEPTH } from '../mail/html-nesting.js';
import { LEARNED_ID_PREFIX, type ProgressFn, type QaPair } from '../search/types.js';
import { errorMessage, KnowledgeError } from './errors.js';
import { decodeText, listSourceFiles, normalizeNewlines } from './files.js';
import { scrubPersonalData, type PersonalDataKind, type PersonalDataReplacement } from './personal-data.js';
import { workbookSheets, type SheetRecord } from './qa-workbook.js';

/** File types the Q&A loader reads. */
export const QA_EXTENSIONS = ['.csv', '.xlsx'] as const;

/** A data row that was left out, and why. */
export interface SkippedQaRow {
  fileName: string;
  /** 1-based data row (header excluded), as in {@link QaPair.row}. */
  row: number;
  /** Line of the file the row ends on (a CSV file), or the row's number in its sheet (a workbook). */
  line: number;
  reason: string;
  /**
   * The learned pair (`learned#12`) the row is a copy of: the export of the Knowledge page put into QA_DIR
   * ({@link learnedPairOfRow}). Absent for rows skipped for anything else.
   */
  learnedPair?: string;
}

/** A CSV file or a workbook's sheet that was not read at all, and why (its columns cannot be told). */
export interface PassedOverQaTable {
  /** The file's base name, or `${fileName}:${sheet}` for a sheet, as in {@link QaPair.fileName}. */
  table: string;
  reason: string;
}

/** The pairs of one CSV text or workbook, the rows left out, and the tables (file or sheets) not read. */
export interface QaParseResult {
  pairs: QaPair[];
  skipped: SkippedQaRow[];
  passedOver: PassedOverQaTable[];
}

/** What {@link loadQaPairs} read. */
export interface QaLoadResult {
  /** Base names of the CSV files and workbooks that were read (not those without a row), in index order. */
  files: string[];
  pairs: QaPair[];
  skipped: SkippedQaRow[];
  /** Files and sheets passed over, each with a warning ({@link PassedOverQaTable}). */
  passedOver: PassedOverQaTable[];
}

/**
 * Header names of the question column, normalised (NFKC, lower case, no spaces), the likelier first: a header that
 * has two of them reads the first listed.
 */
const QUESTION_HEADERS = [
  'question', 'questions', 'q', 'query', 'inquiry', 'enquiry',
  '質問', '質問文', '質問内容', '問い合わせ', '問い合わせ内容', 'お問い合わせ', 'お問い合わせ内容', '問合せ', '問合せ内容', 'お問合せ', 'お問合せ内容',
  '相談内容', '問', '問い',
];
/** Header names of the answer column, normalised likewise: a FAQ's names first, then a helpdesk export's (how a ticket was handled). */
const ANSWER_HEADERS = [
  'answer', 'answers', 'a', 'response', 'reply', 'resolution', 'solution',
  '回答', '回答文', '回答内容', '回答例', '答え', '答', '解答', '返答', '返答内容',
  '対応内容', '対応', '解決方法', '対処方法', '対処', '処置',
];
/** 内容 ("content") heads a helpdesk export's question only beside a named answer: alone it may be either. */
const CONTENT_HEADERS = ['内容'];
/**
 * Headers of an error-code table's code column, the question when the header names neither question nor answer: a
 * user asks about `E-1001`, and the table's other column says what it means.
 */
const CODE_HEADERS = ['エラーコード', 'エラー番号', 'エラーid', 'コード', 'code', 'errorcode', 'error_code', 'error-code', 'エラー', 'error'];
/**
 * Headers of the columns around a pair in an export (an id, a category, a date, a link), passed over when the header
 * names only one of question and answer and the other is looked for.
 */
const RECORD_HEADERS = [
  'id', 'no', 'no.', '#', '番号', 'category', 'カテゴリ', 'カテゴリー', '分類', '対応者', 'date', '日付', '受付日',
  '作成日', '更新日', '対応日', 'url', 'status', 'ステータス', '状態', 'tags', 'タグ',
];
/**
 * Headers of a person's name, address or number (a customer, a requester, an agent): never read as a question or an
 * answer, so no one's personal data goes into the index or the text the model answers from. A part of a header counts
 * too (`対応（担当者）`, `phone_number`).
 */
const PERSON_HEADERS = [
  '顧客', 'お客様', 'メール', 'eメール', '携帯', '携帯番号', 'requester', 'assignee', 'customer',
  'submitter', 'reporter', 'sender', 'recipient', 'owner', 'author', 'editor', 'agent', 'contactperson', 'email', 'e-mail', 'mail',
  'phone', 'tel', 'mobile', 'fax', 'zip', 'zipcode', 'postcode', 'postalcode',
];
/** Endings of an English header (or a part of one) of personal data (`Customer email`, `contact_phone`). */
const PERSON_HEADER_ENDINGS = ['email', 'e-mail', 'phone'];
/**
 * Whose `…name` or `…address` is a person's (`Customer Name`, `requester_name`, `Mailing address`, a bare `Name`):
 * a `Feature Name`, `File Name` or `Web Address` is a FAQ's text, not anyone's data.
 */
const PERSON_NAME_OWNERS = [
  '', 'customer', 'client', 'user', 'requester', 'contact', 'full', 'first', 'last', 'given', 'family', 'sur', 'middle',
  'agent', 'staff', 'assignee', 'sender', 'recipient', 'reporter', 'submitter', 'member', 'person', 'display', 'owner',
  'author', 'caller', 'applicant', 'guest',
];
const PERSON_ADDRESS_OWNERS = [
  '', 'email', 'e-mail', 'mail', 'postal', 'mailing', 'home', 'street', 'shipping', 'billing', 'delivery', 'customer',
  'contact', 'sender', 'recipient', 'reply', 'return', 'residential',
];
/**
 * Headers of a contact point of the customer (a person's name, e-mail address, phone number or postal address), whole
 * or before a qualifier, separators dropped: beside text under a header that names no question or answer, they make
 * the file a ticket export ({@link ticketExport}). An author's or an agent's column (`作成者`, `Created By`, `Owner`)
 * is never read either, but says nothing of whose the text is.
 */
const CUSTOMER_CONTACT_HEADERS = [
  'name', 'fullname', 'customer', 'customername', 'client', 'clientname', 'contactname', 'firstname', 'lastname',
  'requester', 'requestername', 'from', 'sender', 'sendername', 'replyto', '氏名', '名前', 'お名前', '顧客', '顧客名',
  'お客様', 'お客様名', '依頼者', '依頼者名', '問い合わせ者', '問合せ者', 'お問い合わせ者', '申込者', 'email', 'mail',
  'emailaddress', 'mailaddress', 'メール', 'eメール', 'phone', 'phonenumber', 'tel', 'telephone', 'mobile', 'fax',
  '電話', '携帯', '携帯番号', 'address', 'postaladdress', 'mailingaddress', 'homeaddress', 'zip', 'zipcode', 'postcode',
  'postalcode',
];
/** Endings of a header of the customer's contact point (`顧客氏名`, `Customer Email`, `携帯電話番号`, `送付先住所`). */
const CUSTOMER_CONTACT_ENDINGS = ['氏名', '名前', '客様名', '顧客名', 'メール', 'メールアドレス', '電話', '電話番号', '住所', '郵便番号', 'email', 'phone'];
/**
 * Who a question or an answer is of, before or after its name (`customer_question`, `Agent Answer`, `質問（お客様）`,
 * `answer_by_agent`, `お客様の質問`): the header still names that column, judged by its values (a customer's
 * addresses under `agent_answer` are no answer).
 */
const QA_PERSON_QUALIFIERS = [
  'customer', 'customers', 'client', 'user', 'requester', 'agent', 'staff', 'operator', 'support', 'rep', 'representative',
  'member', 'guest', 'お客様', 'お客さま', '顧客', '利用者', 'ユーザー', 'ユーザ', '担当者', '担当', 'オペレーター', 'スタッフ', 'サポート', '窓口',
];
/**
 * Answer names of an act rather than a text: with a person (`対応（担当者）`, like `対応者`) they name who acted, so
 * they are judged as any header of a person.
 */
const ACT_ANSWER_HEADERS = ['対応', '対処', '処置'];
/**
 * A mailbox of a role, a desk or a machine (`info@`, `sales@`, `billing@`, and the scrub's `support@`, `no-reply@`): a
 * FAQ's or a glossary's contact point, no one's address.
 */
const ROLE_MAILBOX = /^(?:info|sales|billing|contact|inquir(?:y|ies)|otoiawase|faq|recruit(?:ing)?|jobs|careers|hr|press|pr|media|office|admin|service|cs|customer-?(?:service|care|support)|care|hello|team|marketing|accounts?|accounting|orders?|shop|store|reservations?|booking|feedback|legal|privacy|partners?|returns|invoices?|payments?|support|helpdesk|help|no-?reply|do-?not-?reply|postmaster|webmaster|abuse|security|alerts?|notify|notifications?)(?:[+._-][^@\s]*)?@/i;
/**
 * Mail headers of who a message went to or came from, and a bare `By`, whole (separators dropped: `Reply-To`,
 * `assigned_to`): `to`, `from` or `by` in any part would take a FAQ's `How-To` column for a person.
 */
const MAIL_PERSON_HEADERS = ['to', 'from', 'cc', 'bcc', 'replyto', 'sentto', 'assignedto', 'by'];
/** Roles before a `by` that names who acted (`Response_By`); a verb's `…ed by` (`Answered By`, `Created by`) counts too. */
const BY_ROLES = ['response', 'reply', 'answer', 'resolution', 'review', 'approval'];
/**
 * Channels an answer went out by (`回答（メール）`, `Reply (Email)`): after an answer's name they say how, not whose,
 * so such a column is judged by its values.
 */
const ANSWER_CHANNELS = ['メール', 'eメール', 'email', 'e-mail', 'mail', '電話', 'phone', 'tel', 'チャット', 'chat', 'fax'];
/**
 * Endings of a Japanese header (or a part of one) of personal data: a person (`顧客氏名`, `お客様名`, `回答者`, any
 * `…者`), an address (`送付先住所`, `所在地`) or a contact point (`携帯電話`, `メールアドレス`, `郵便番号`).
 */
const PERSON_HEADER_JA_ENDINGS = ['氏名', '名前', '顧客', '顧客名', 'お客様', '客様名', '者', '者名', '担当', '住所', '所在地', '電話', '電話番号', 'アドレス', '郵便番号'];
/** What parts a header: a qualifier's brackets and separators (`対応（担当者）`, `Reply-To`, `Tel.`). */
const HEADER_PARTS = /[()（）:：_\-[\]［］.・/]+/;
/** What sets a qualifier apart from a normalised header (NFKC made `（` and `：` ASCII): brackets and a colon. */
const QUALIFIER_BRACKETS = /[()[\]:]+/;
/** Separators inside a header's words (`Reply-To`, `Response_By`, `e.mail`). */
const WORD_SEPARATORS = /[_\-.・/]+/g;

function normalizedHeader(cell: string): string {
  return cell.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
}

/** Whether a normalised header cell is `name` followed by a qualifier (`質問（日本語）`, `question_text`). */
function qualifiedName(cell: string, name: string): boolean {
  // One-letter names only match whole, so `q` does not claim `quantity`.
  return name.length > 1 && cell.startsWith(name) && /^[(（:：_\-\[［]/.test(cell.slice(name.length));
}

/**
 * The column headed by one of `names` (the earliest listed name wins), else by one of them with a qualifier or with
 * whose it is (`customer_question`, `Agent Answer`), among the columns `usable` allows (a `Reply-To`, `Response_By` or
 * `対応（担当者）` header, or `agent_answer` over e-mail addresses, names no answer); -1 when none.
 */
function namedColumn(cells: readonly string[], names: readonly string[], usable: (column: number) => boolean): number {
  for (const name of names) {
    const exact = cells.findIndex((c, i) => c === name && usable(i));
    if (exact >= 0) return exact;
  }
  return cells.findIndex(
    (c, i) => {
      const whose = personQualifiedName(c);
      return names.some((n) => qualifiedName(c, n) || n === whose) && usable(i);
    },
  );
}

/** A number, a date, a ticket id (`T-201`, `INC0012345`) or a UUID. */
const ID_SHAPE = /^(?:#|no\.?\s*)?(?:\d+|[a-z]{1,8}[-_]\d+|[a-z]{1,8}\d{3,})(?:[-_./:]\d+)*$|^[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i;

// A date as a spreadsheet shows it (values are NFKC'd first): a workbook's date cell reads as its number format writes
// it (qa-workbook.ts), so a cover sheet's 更新日 may be 2026年7月1日, 令和8年7月, 2026/7/1 9:30, 2026/7/1(水) or
// 1-Jul-26. A year alone (`3年`) is a duration as often as a date, so a month or an era is needed.
const WEEKDAY = String.raw`(?:\s*\((?:[日月火水木金土]|[a-z]{3})\))?`;
const TIME_OF_DAY = String.raw`(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]m)?|\s*\d{1,2}時(?:\d{1,2}分)?)?`;
/**
 * An id as {@link ID_SHAPE} or a date as a spreadsheet shows it. Used only to pass over a workbook's cover sheet
 * beside its FAQ sheet ({@link readQaWorkbook}): a table of answers that are all dates (「2026年7月1日」 under 項目,内容)
 * is still read, as it was, rather than stopping the reindex.
 */
const ID_OR_SHOWN_DATE_SHAPE = new RegExp(
  String.raw`${ID_SHAPE.source}|^(?:\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}|(?:(?:令和|平成|昭和|大正)\s*(?:\d{1,2}|元)年(?:\d{1,2}月)?|\d{1,4}年\d{1,2}月)(?:\d{1,2}日)?|\d{1,2}月\d{1,2}日|\d{1,2}-[a-z]{3}-\d{2,4})${WEEKDAY}${TIME_OF_DAY}$`,
  'i',
);

/** An e-mail address, bare or with a display name (`山田 <taro@example.com>`). */
const EMAIL_SHAPE = /^(?:[^<>]*<)?[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>?$/;
/** A phone number as written: digits in groups, maybe a country code or parentheses (`+81 90 1234 5678`, `(03) 1234-5678`). */
const PHONE_SHAPE = /^\+?[\d\s()\-]{10,20}$/;

/** Whether a value is an e-mail address or a phone number (10 to 15 digits). */
function contactValue(value: string): boolean {
  if (EMAIL_SHAPE.test(value)) return true;
  const digits = value.replace(/\D/g, '').length;
  return PHONE_SHAPE.test(value) && digits >= 10 && digits <= 15;
}

/** Whether a normalised header cell, or a part of it, names a person's data. */
function personHeader(cell: string): boolean {
  if (answerByChannel(cell) || personQualifiedQa(cell)) return false;
  return (
    cell.split(QUALIFIER_BRACKETS).some((segment) => mailPersonHeader(segment) || personNameOrAddress(segment)) ||
    [cell, ...cell.split(HEADER_PARTS)].some(
      (part) =>
        PERSON_HEADERS.includes(part) ||
        (/^[\x21-\x7e]+$/.test(part) ? PERSON_HEADER_ENDINGS : PERSON_HEADER_JA_ENDINGS).some((end) => part.endsWith(end)),
    )
  );
}

/** Whether a header, or a bracketed part of it, is a person's name or address (`customer_name`, not `Feature Name`). */
function personNameOrAddress(segment: string): boolean {
  const words = segment.replace(WORD_SEPARATORS, '');
  const owner = (ending: string, owners: readonly string[]): boolean => words.endsWith(ending) && owners.includes(words.slice(0, -ending.length));
  return owner('name', PERSON_NAME_OWNERS) || owner('address', PERSON_ADDRESS_OWNERS);
}

/**
 * The question's or answer's name of a normalised header that says whose it is (`customer_question`, `質問(お客様)`,
 * `answer_by_agent`, `担当者の回答` → `question`, `質問`, `answer`, `回答`), not an act's (`対応(担当者)` is who
 * handled it); undefined for any other header.
 */
function personQualifiedName(cell: string): string | undefined {
  const qaName = (name: string): string | undefined =>
    name.length > 1 && !ACT_ANSWER_HEADERS.includes(name) && (QUESTION_HEADERS.includes(name) || ANSWER_HEADERS.includes(name)) ? name : undefined;
  const person = (words: string): boolean => QA_PERSON_QUALIFIERS.includes(words.replace(/^(?:by|from)/, ''));
  const bracketed = bracketedParts(cell);
  if (bracketed) return person(bracketed[2]!.replace(WORD_SEPARATORS, '')) ? qaName(bracketed[1]!.replace(WORD_SEPARATORS, '')) : undefined;
  const words = cell.replace(/[_\-.・/'’]+/g, '');
  for (const who of QA_PERSON_QUALIFIERS) {
    if (words.startsWith(who)) {
      const rest = words.slice(who.length);
      const name = qaName(rest) ?? qaName(rest.replace(/^(?:s|からの|の)/, ''));
      if (name) return name;
    }
    for (const link of ['by', 'from']) {
      const name = words.endsWith(link + who) ? qaName(words.slice(0, -(link + who).length)) : undefined;
      if (name) return name;
    }
  }
  return undefined;
}

/** Whether a normalised header is a question's or an answer's name with whose it is ({@link personQualifiedName}). */
function personQualifiedQa(cell: string): boolean {
  return personQualifiedName(cell) !== undefined;
}

/**
 * Whether a normalised header names a contact point of the customer ({@link CUSTOMER_CONTACT_HEADERS}): a person's
 * name, e-mail address, phone number or postal address, not an author's or agent's name nor a role's.
 */
function customerContactHeader(cell: string): boolean {
  const base = (cell.split(QUALIFIER_BRACKETS)[0] ?? '').replace(WORD_SEPARATORS, '');
  return (
    CUSTOMER_CONTACT_HEADERS.includes(base) ||
    CUSTOMER_CONTACT_ENDINGS.some((end) => base.endsWith(end)) ||
    (base.endsWith('name') && ['customer', 'client', 'contact', 'requester', 'full', 'first', 'last', 'sender'].includes(base.slice(0, -4)))
  );
}

/** Whether a header, or a bracketed part of it, is a mail header of a person or a `… By` after a verb or a role. */
function mailPersonHeader(segment: string): boolean {
  const words = segment.replace(WORD_SEPARATORS, '');
  if (MAIL_PERSON_HEADERS.includes(words)) return true;
  if (!words.endsWith('by')) return false;
  const before = words.slice(0, -2);
  return /[a-z]ed$/.test(before) || BY_ROLES.some((role) => before.endsWith(role));
}

/**
 * `name(qualifier)` or `name[qualifier]` of one line: the name up to the first bracket, the qualifier up to the closing
 * one at the end. A cell that does not end in one, or spans lines, is ruled out first: the pattern alone rescanned the
 * rest of the cell from every bracket (security review 15: 100,000 characters of brackets in a header cell, tens of
 * seconds).
 */
function bracketedParts(cell: string): RegExpExecArray | null {
  return /[)\]]$/.test(cell) && !/[\n\r\u2028\u2029]/.test(cell) ? /^(.+?)[([](.+)[)\]]$/.exec(cell) : null;
}

/** Whether a normalised header is an answer's name with the channel it went out by in brackets (`回答(メール)`). */
function answerByChannel(cell: string): boolean {
  const qualified = bracketedParts(cell);
  return qualified !== null && ANSWER_HEADERS.includes(qualified[1]!) && ANSWER_CHANNELS.includes(qualified[2]!);
}

/** The column's non-blank values in `rows`. */
function columnValues(rows: readonly (readonly string[])[], column: number): string[] {
  return rows.map((record) => (record[column] ?? '').normalize('NFKC').trim()).filter((value) => value !== '');
}

/** Whether a column holds values and every one has `shape`: no questions or answers to index. */
function onlyOfShape(values: readonly string[], shape: RegExp): boolean {
  return values.length > 0 && values.every((value) => shape.test(value));
}

/**
 * Whether a value is mostly personal data: one the scrub of text bound for the knowledge base mostly replaces
 * (`taro@example.com`, `TEL: 090-1234-5678`, `東京都千代田区1-2-3`, but not a role address such as `info@` or
 * `billing@` or a toll-free number, as a FAQ gives them), or, in a column the header does not name, any e-mail address
 * or phone number. Names are told by
 * their header only: the scrub finds a bare name by nothing.
 */
function personalValue(value: string, named: boolean): boolean {
  if (!named && contactValue(value)) return true;
  const replacements = scrubPersonalData(value).replacements.filter((r) => !ROLE_MAILBOX.test(r.original));
  if (replacements.length === 0) return false;
  const visible = (text: string): number => text.replace(/\s/g, '').length;
  return replacements.reduce((sum, r) => sum + visible(r.original), 0) * 2 >= visible(value);
}

/** How many of a column's values, spread over it, tell whether it holds mostly personal data. */
const PERSONAL_SAMPLE = 500;

/**
 * Whether most of a column's values are personal data ({@link personalValue}; a blank or `-` here and there aside),
 * judged on {@link PERSONAL_SAMPLE} of them spread over the column: a history export's answer column may hold a hundred
 * thousand values, and scrubbing every one took seconds.
 */
function mostlyPersonal(values: readonly string[], named: boolean): boolean {
  const step = Math.max(1, values.length / PERSONAL_SAMPLE);
  const sample = values.length <= PERSONAL_SAMPLE ? values : Array.from({ length: PERSONAL_SAMPLE }, (_, i) => values[Math.floor(i * step)]!);
  let personal = 0;
  let other = 0;
  for (const value of sample) {
    if (personalValue(value, named)) personal++;
    else other++;
    // Stops once the rest cannot change the answer.
    if (personal * 2 > sample.length) return true;
    if (other * 2 >= sample.length) return false;
  }
  return false;
}

/**
 * Whether a column must not be read as questions or answers: headed as personal data, or holding mostly that;
 * `named` when its header names it a question or an answer (see {@link personalValue}).
 */
function personalColumn(cells: readonly string[], rows: readonly (readonly string[])[], column: number, named = false): boolean {
  return personHeader(cells[column] ?? '') || mostlyPersonal(columnValues(rows, column), named);
}

/** Which columns hold the question and the answer, and which of them the header names. */
export interface QaColumns {
  /** -1 when the header names the answer and every other column holds personal data. */
  question: number;
  /** -1 when the header names the question and every other column holds personal data. */
  answer: number;
  /** `both`, one of them (the other was looked for), or `none` (the first two columns). */
  named: 'both' | 'question' | 'answer' | 'none';
}

/**
 * The column that goes with the one the header names: the nearest with text in it, looking after a question and
 * before an answer first, and passing over the columns of a record around the pair (an id, a category, a date) and
 * columns of numbers or ids. The nearest column when none has text. A column of personal data (headed as a name, an
 * address or a number, or holding mostly e-mail addresses, phone numbers or postal addresses: `personal`) is never
 * taken: -1 when only those are left.
 */
function otherColumn(
  cells: readonly string[],
  rows: readonly (readonly string[])[],
  named: number,
  ahead: 1 | -1,
  personal: (column: number) => boolean,
): number {
  const width = cells.length;
  const nearest = (step: 1 | -1): number[] => {
    const found: number[] = [];
    for (let i = named + step; i >= 0 && i < width; i += step) found.push(i);
    return found;
  };
  const around = [...nearest(ahead), ...nearest(ahead === 1 ? -1 : 1)];
  // A one-column header: the field after it, as a row may have one the header did not head.
  if (around.length === 0) return named + 1;
  // Text first: judging a column's values as personal data scrubs them, and an id column need not be.
  return around.find((i) => textColumn(cells, rows, i) && !personal(i)) ?? around.find((i) => !personal(i)) ?? -1;
}

/** Whether a column may hold questions or answers: not one of a record's ids, categories or dates, and with text in it. */
function textColumn(cells: readonly string[], rows: readonly (readonly string[])[], column: number): boolean {
  const values = columnValues(rows, column);
  return !RECORD_HEADERS.includes(cells[column] ?? '') && values.length > 0 && !onlyOfShape(values, ID_SHAPE);
}

/**
 * The question and answer columns of a header row: those it names (`question`/`answer`, `質問`/`回答`, `Q`/`A`,
 * `お問い合わせ内容`/`対応内容`…, in any order, among other columns such as an id or a category); when it names only
 * one, that one and the nearest column of text beside it (see `rows`, the data rows); an error-code table's code
 * column (`エラーコード`, `code`) is its question; else the first two without personal data (refused by
 * {@link unreadableColumns} beside a contact of the customer). A column it does not name is never one of personal data
 * (headed as a name, an author, an address or a contact point, or holding mostly e-mail addresses, phone numbers or
 * addresses): pairs are quoted in replies to other customers. A named one is read as {@link namedColumnReadable} says.
 */
export function qaColumns(header: readonly string[], rows: readonly (readonly string[])[] = []): QaColumns {
  const cells = header.map(normalizedHeader);
  const memo = (judge: (column: number) => boolean): ((column: number) => boolean) => {
    const known = new Map<number, boolean>();
    return (column) => {
      let found = known.get(column);
      if (found === undefined) known.set(column, (found = judge(column)));
      return found;
    };
  };
  const personal = memo((column) => personalColumn(cells, rows, column));
  const personalValues = memo((column) => mostlyPersonal(columnValues(rows, column), true));
  const usable = (column: number): boolean => namedColumnReadable(cells[column] ?? '', () => personalValues(column));
  let question = namedColumn(cells, QUESTION_HEADERS, usable);
  const answer = namedColumn(cells, ANSWER_HEADERS, usable);
  if (question < 0 && answer >= 0) {
    const content = cells.flatMap((c, i) => (CONTENT_HEADERS.some((n) => c === n || qualifiedName(c, n)) && usable(i) ? [i] : []));
    if (content.length === 1) question = content[0]!;
  }
  if (question >= 0 && answer >= 0) return { question, answer, named: 'both' };
  if (question >= 0) return { question, answer: otherColumn(cells, rows, question, 1, personal), named: 'question' };
  // A user asks about the code (`E-1001`) an error-code table lists; a ticket's subject beside a named answer asks better.
  const code = namedColumn(cells, CODE_HEADERS, usable);
  if (answer >= 0) {
    const other = otherColumn(cells, rows, answer, -1, personal);
    if (code >= 0 && code !== answer && (other < 0 || !textColumn(cells, rows, other))) return { question: code, answer, named: 'both' };
    return { question: other, answer, named: 'answer' };
  }
  if (code >= 0) return { question: code, answer: otherColumn(cells, rows, code, 1, personal), named: 'question' };
  // A header naming neither with a contact of the customer is no FAQ (unreadableColumns refuses it); an author's or a
  // role's column is left out and the first two of the others read.
  // The first two only: judging a column scrubs its values, and a wide export's thousand columns took minutes.
  const readable: number[] = [];
  for (let i = 0; i < Math.max(cells.length, 2) && readable.length < 2; i++) if (!personal(i)) readable.push(i);
  return { question: readable[0] ?? -1, answer: readable[1] ?? -1, named: 'none' };
}

/**
 * Whether a column the header names as a question or an answer may be read: one named plainly (`回答`, `Answer`,
 * `質問（日本語）`) whatever it holds, as a FAQ may answer with a store's phone number or address; one whose header
 * also says whose it is or how it went out (`agent_answer`, `回答（メール）`) unless it holds mostly personal data
 * (`personalValues`); none headed as a person (`Reply-To`, `Response_By`, `対応（担当者）`).
 */
function namedColumnReadable(cell: string, personalValues: () => boolean): boolean {
  if (answerByChannel(cell) || personQualifiedQa(cell)) return !personalValues();
  return !personHeader(cell);
}

/** A column as a message names it: its header, or its position when the header cell is blank. */
function columnName(header: readonly string[], column: number): string {
  return header[column]?.trim() || `#${column + 1}`;
}

/** The warning for a header of more than two columns that does not name both, saying which columns are read. */
function columnsWarning(header: readonly string[], columns: QaColumns): string | undefined {
  if (header.length <= 2 || columns.question < 0 || columns.answer < 0) return undefined;
  const question = columnName(header, columns.question);
  const answer = columnName(header, columns.answer);
  switch (columns.named) {
    case 'both':
      return undefined;
    case 'question':
      return `the header names the question column (${question}) but no answer column (answer, 回答, 対応内容…); reading ${answer} as the answer`;
    case 'answer':
      return `the header names the answer column (${answer}) but no question column (question, 質問, 問い合わせ…); reading ${question} as the question`;
    case 'none':
      return columns.question === 0 && columns.answer === 1
        ? `the header names no question and answer columns (question/answer, 質問/回答, Q/A); reading the first two columns (${question}, ${answer}) as question and answer`
        : `the header names no question and answer columns (question/answer, 質問/回答, Q/A); reading the first two columns without personal data (${question}, ${answer}) as question and answer`;
  }
}

/** A data record as read, or fitted to the header's width by {@link fitToHeader}. */
interface FittedRecord {
  record: string[];
  /** How many fields the row had, when more than the header's columns. */
  fields?: number;
  /** Whether those fields were joined back into the last of two columns (else the row is not read). */
  joined?: boolean;
  /** Whether text under the header's unnamed trailing columns was left out. */
  unheaded?: boolean;
}

/**
 * A CSV record fitted to a header of `width` named columns followed by `padding` empty ones. A spreadsheet pads its
 * export's header with empty cells out to the used range: text under them is a note beside the pair (`要確認`,
 * `internal: check SSO`), left out and reported as `unheaded`. An ASCII comma typed unquoted in Japanese text splits
 * a field: under a two-column header with no padding the fields after the first are joined back with their commas
 * (the writer's answer); a wider or padded header leaves no telling which field was split, so `fields` is reported
 * and the row is not read. Empty fields past the header (a trailing comma) are no text and are dropped.
 */
function fitToHeader(record: readonly string[], width: number, padding: number): FittedRecord {
  let end = record.length;
  while (end > width && (record[end - 1] ?? '').trim() === '') end--;
  if (width < 2 || end <= width) return { record: record.slice(0, end) };
  if (end <= width + padding) return { record: record.slice(0, width), unheaded: true };
  if (width === 2 && padding === 0) return { record: [record[0] ?? '', record.slice(1, end).join(',')], fields: end, joined: true };
  return { record: record.slice(0, end), fields: end, joined: false };
}

/** Tags of the HTML a FAQ tool exports (a help centre's article body); `<テナント ID>` or `a < b` are none of them. */
const HTML_TAG = /<\/?(?:p|br|div|span|a|ul|ol|li|strong|b|em|i|u|font|table|thead|tbody|tr|td|th|h[1-6]|img|blockquote|pre|code|hr|dl|dt|dd)(?:\s[^<>]*)?\/?>/i;
const HTML_ENTITY = /&(?:[a-z][a-z0-9]{1,31}|#\d{1,7}|#x[0-9a-f]{1,6});/i;

/** html-to-text compiled once (as its documentation advises for many documents): an export holds thousands of fields. */
let htmlFieldText: ((html: string) => string) | undefined;
function compileHtmlFieldText(): (html: string) => string {
  return compile({
    wordwrap: false,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'ul', options: { itemPrefix: '・' } },
      ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((selector) => ({ selector, options: { uppercase: false } })),
    ],
  });
}

/** What a spreadsheet starts a formula with: = + - @, or a tab or carriage return before anything. */
export const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A field's text as a reader sees it. FAQ tools export answers as HTML: indexed as it is, every pair would match
 * `href`, `https` and `strong`, and the agent would quote the markup. A field with HTML tags becomes its text
 * (paragraphs, line breaks and list items kept; a link as its text and address; images dropped); entities alone are
 * decoded; the `'` the learned-answer export puts before a field that would start a spreadsheet formula is dropped.
 * Anything else is left as written.
 */
export function qaFieldText(raw: string): string {
  // The learned-answer export writes a field that would start a spreadsheet formula with a leading ': read it back.
  const field = raw.startsWith("'") && FORMULA_START.test(raw.slice(1)) ? raw.slice(1) : raw;
  if (HTML_TAG.test(field)) return (htmlFieldText ??= compileHtmlFieldText())(limitHtmlNesting(field, MAX_HTML_DEPTH).html).trim();
  return HTML_ENTITY.test(field) ? decodeHTMLStrict(field).replace(/\u00a0/g, ' ').trim() : field.trim();
}

/**
 * A pair's question and answer without personal data, as learned answers are scrubbed before they become knowledge
 * (the rules of {@link scrubPersonalData}, with their placeholders): a helpdesk history export's answer cell may name
 * the customer it went to (山田太郎様, their address, mail and phone, order number), and a pair is indexed, handed to the
 * model, quoted to other customers and vouches for an address or a number in a draft (finding MED 4). The column
 * checks above see a cell whole; this sees the personal data inside the text of a column that is read.
 *
 * What a FAQ gives of the company stays. Toll-free numbers and the scrub's role addresses (support@, no-reply@) it
 * keeps itself; the wider role mailboxes the columns are judged by ({@link ROLE_MAILBOX}: info@, sales@…) stay too,
 * unless their local part goes on with a dot or an underscore (info.yamada@ is a person's, as the scrub reads
 * support.tanaka@). A landline, a street address or a postal code stays when nothing else in the pair is of a person
 * (a name, a personal mail address, an order or card number, a mobile number): a FAQ of the stores' numbers and
 * addresses is the company's (bug review 40 #3), while a history answer that greets 山田太郎様 is about him.
 */
function pairWithoutPersonalData(question: string, answer: string, ownDomains: ReadonlySet<string> = new Set()): { question: string; answer: string } {
  const sides = [question, answer].map((input) => ({ input, ...scrubPersonalData(input) }));
  if (sides.every((side) => side.replacements.length === 0)) return { question, answer };
  // The company's staff on its contact line (担当 田中様宛, 担当者：営業部 鈴木一郎) makes no pair a customer's: the name
  // goes, the store's address and number beside it stay (review s48-r3b). A number shown as a format example
  // (「ORD-2024-00001」のような形式) is no one's and stays.
  const staff = new Set<PersonalDataReplacement>();
  const examples = new Set<PersonalDataReplacement>();
  for (const { input, replacements: found } of sides) {
    for (const r of found) {
      if (r.kind === 'name' && STAFF_LABEL_BEFORE.test(input.slice(Math.max(0, r.index - 24), r.index))) staff.add(r);
      if (r.kind === 'reference-number' && FORMAT_EXAMPLE_AFTER.test(input.slice(r.index + r.original.length, r.index + r.original.length + 8))) examples.add(r);
    }
  }
  const replacements = sides.flatMap((side) => side.replacements);
  const ours = (r: PersonalDataReplacement): boolean => roleAddress(r) || ownDomainAddress(r, ownDomains) || examples.has(r);
  const ofPerson = replacements.some((r) => !ours(r) && !staff.has(r) && (!CONTACT_KINDS.has(r.kind) || mobileNumber(r)));
  const kept = (r: PersonalDataReplacement): boolean => ours(r) || (!ofPerson && CONTACT_KINDS.has(r.kind));
  const [q, a] = sides.map(({ input, text, replacements: found }) => {
    if (!found.some(kept)) return text;
    // The scrub's own result, but with what stays written back: its replacements are in text order and disjoint.
    let out = '';
    let at = 0;
    for (const r of found) {
      out += input.slice(at, r.index) + (kept(r) ? r.original : r.placeholder);
      at = r.index + r.original.length;
    }
    return out + input.slice(at);
  });
  return { question: q!, answer: a! };
}

/** A label of the company's own staff right before a name: 担当, 担当者：, 窓口 , 部署：営業部 (a department may stand between). */
const STAFF_LABEL_BEFORE = /(?:担当者?|窓口|部署)[ 　]{0,2}[:：]?[ 　]{0,2}(?:[\p{Script=Han}\p{Script=Katakana}ー]{1,10}(?:部|課|室|係|グループ|チーム|センター)[ 　]{0,2})?$/u;
/** What follows a number shown as an example of a format: 「ORD-2024-00001」のような形式, ABC12345 のような. */
const FORMAT_EXAMPLE_AFTER = /^[」』"”）)]?[ 　]?(?:のような|の様な|のように|の形式)/u;

/** Kinds of a contact point a FAQ may give of the company itself (a store's number, address, postal code). */
const CONTACT_KINDS: ReadonlySet<PersonalDataKind> = new Set(['phone', 'address', 'postal-code']);

/** Whether a replaced mail address is a role mailbox ({@link ROLE_MAILBOX}) with no dot or underscore in its local part. */
function roleAddress(r: PersonalDataReplacement): boolean {
  if (r.kind !== 'email' || !ROLE_MAILBOX.test(r.original)) return false;
  return !/[._]/.test(r.original.slice(0, r.original.search(/[+@]/)));
}

/**
 * Whether a replaced mail address is on one of our own domains (`ownDomains`: those of MAIL_FROM and SUPPORT_ADDRESSES):
 * a FAQ's desk address, xyz-desk@xyz.co.jp, is the company's, which a customer may be told to write to.
 */
function ownDomainAddress(r: PersonalDataReplacement, ownDomains: ReadonlySet<string>): boolean {
  if (r.kind !== 'email' || ownDomains.size === 0) return false;
  const written = r.original.normalize('NFKC').trim().toLowerCase();
  const domain = written.slice(written.lastIndexOf('@') + 1);
  return [...ownDomains].some((own) => domain === own || domain.endsWith(`.${own}`));
}

/** Whether a replaced phone number is a Japanese mobile one (070, 080, 090; +81 70…): a person's, never a store's. */
function mobileNumber(r: PersonalDataReplacement): boolean {
  return r.kind === 'phone' && /^(?:0|81)[789]0\d{8}$/.test(r.original.normalize('NFKC').replace(/\D/g, ''));
}

/**
 * Parses one CSV text into pairs, reading the columns {@link qaColumns} picks from the header (with a warning when a
 * header of more than two columns does not name both). Row numbers count data records after the header, including
 * skipped ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose
 * question or answer is empty (after trimming) are skipped, each with a warning naming the file and row; a row with
 * more fields than the header (an unquoted comma) is mended or skipped with a warning ({@link fitToHeader}). A file
 * whose columns cannot be read ({@link unreadableColumns}) and that holds no text but ids, numbers or dates (a count
 * sheet saved as CSV) gives no pairs and is listed in `passedOver`, with a warning naming it and how to head its columns.
 * The text is as written: {@link loadQaPairs} removes the personal data of what it indexes.
 *
 * @param file path used in messages; its base name is `fileName`.
 * @throws KnowledgeError with the line of the problem when the CSV is malformed (e.g. an unclosed quote), or naming
 *   the columns and how to head them when its columns cannot be read but it holds text (a helpdesk export, a FAQ
 *   without a header): passed over, its pairs would be missing from the index with only a log line to say so.
 */
export function parseQaCsv(text: string, fileName: string, options: { file?: string; logger?: Logger } = {}): QaParseResult {
  const file = options.file ?? fileName;
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // Line breaks inside quoted fields become \n like all others, so an answer reads the same whatever saved it.
    records = parse(normalizeNewlines(text), {
      bom: true,
      info: true,
      skip_empty_lines: true,
      // A short row is reported as a missing answer below and a long one mended or skipped (fitToHeader), rather than
      // rejecting the whole file.
      relax_column_count: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    if (err instanceof CsvError) {
      const line = typeof err.lines === 'number' ? err.lines : undefined;
      throw new KnowledgeError(`${file}${line ? `:${line}` : ''}: malformed CSV: ${err.message}`, file, line, { cause: err });
    }
    throw new KnowledgeError(`${file}: cannot parse CSV: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const rows = records.map(({ record, info }) => ({ record, line: info.lines }));
  const table = pairsOfRows(rows, fileName, { where: file, lineName: 'line', csv: true, logger: options.logger });
  if (!table.unreadable) return { pairs: table.pairs, skipped: table.skipped, passedOver: [] };
  if (table.unreadable.text) throw new KnowledgeError(`${file}: ${table.unreadable.reason}`, file);
  return { pairs: [], skipped: [], passedOver: [passOver(fileName, file, table.unreadable.reason, options.logger)] };
}

/** A table not read: logged with where it is and returned for the reindex's result. */
function passOver(table: string, where: string, reason: string, logger: Logger | undefined): PassedOverQaTable {
  logger?.warn({ file: where }, `${where}: not read: ${reason}`);
  return { table, reason };
}

/**
 * Reads a workbook's visible sheets as {@link parseQaCsv} reads a CSV file: each sheet has its header row and its
 * pairs, named `${fileName}:${sheet}` (a colon cannot appear in a sheet name), so `faq.xlsx:請求#3` is the third data
 * row of the sheet 請求. Skipped rows are reported with the sheet and its row number as Excel shows it. A sheet whose
 * columns cannot be read ({@link unreadableColumns}) is passed over with a warning naming it when it holds no text but
 * ids, numbers or dates, or when another sheet of the workbook gives pairs (a cover, a revision history, a count of
 * questions by category beside the FAQ); the other sheets are read.
 *
 * @throws KnowledgeError naming the file when it is not a readable workbook or unpacks to too much, or naming the
 *   sheet, its columns and how to head them when a sheet with text cannot be read and no other sheet gives pairs.
 */
export async function readQaWorkbook(
  data: Buffer,
  fileName: string,
  options: { file?: string; logger?: Logger; maxUnpackedBytes?: number } = {},
): Promise<QaParseResult> {
  const file = options.file ?? fileName;
  let sheets;
  try {
    sheets = await workbookSheets(data, options.maxUnpackedBytes);
  } catch (err) {
    throw new KnowledgeError(`${file}: cannot read Excel workbook: ${errorMessage(err)}`, file, undefined, { cause: err });
  }
  const tables = sheets.map((sheet) => {
    const where = sheetLocation(file, sheet.name);
    return { table: `${fileName}:${sheet.name}`, where, ...pairsOfRows(sheet.records, `${fileName}:${sheet.name}`, { where, lineName: 'Excel row', csv: false, logger: options.logger }) };
  });
  // A sheet that gives pairs shows the workbook is the FAQ: a sheet of text beside it is its notes or history, and one
  // whose pairs are all ids and dates as Excel shows them (版 1.3, 更新日 2026年7月1日) its cover.
  const faqSheet = tables.some((t) => t.pairs.length > 0 && !t.datesOnly);
  const result: QaParseResult = { pairs: [], skipped: [], passedOver: [] };
  for (const table of tables) {
    const { where, unreadable } = table;
    if (unreadable?.text && !faqSheet) throw new KnowledgeError(`${where}: ${unreadable.reason}`, file);
    if (unreadable) result.passedOver.push(passOver(table.table, where, unreadable.reason, options.logger));
    if (table.datesOnly && faqSheet) {
      result.passedOver.push(passOver(table.table, where, table.datesOnly, options.logger));
      continue;
    }
    const { pairs, skipped } = table;
    // Not push(...): a spread of more than ~125,000 items overflows the call stack (a large history export).
    for (const pair of pairs) result.pairs.push(pair);
    for (const skip of skipped) result.skipped.push(skip);
  }
  return result;
}

/** Where a sheet is, as messages name it. */
function sheetLocation(file: string, sheet: string): string {
  return `${file} sheet ${sheet}`;
}

/** How a message tells the writer to head the columns so the file is read. */
const HEAD_THE_COLUMNS = 'head the question column question (or 質問, 問い合わせ, Q) and the answer column answer (or 回答, 対応内容, A), then reindex';

/**
 * Why the question and answer columns cannot be read, or undefined. A column the header names is read whatever it
 * holds (error codes, `台数は？` → `3`); one taken without a name is refused when it holds only numbers or ids (`1`,
 * `T-201`, a date): read so, a count or revision sheet or an export's id column would be indexed, and only its header
 * can say which columns to read. So is a header that names one column when every other holds personal data, and one
 * that names none beside a column of personal data ({@link ticketExport}).
 */
function unreadableColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  columns: QaColumns,
  idShape: RegExp = ID_SHAPE,
  exportChecked = false,
): string | undefined {
  const roles = [
    { column: columns.question, role: 'questions', named: columns.named === 'both' || columns.named === 'question' },
    { column: columns.answer, role: 'answers', named: columns.named === 'both' || columns.named === 'answer' },
  ];
  const refused = roles.find(({ column, named }) => column >= 0 && !named && onlyOfShape(columnValues(rows, column), idShape));
  // An export's id column says more than its requester: the message that names it first.
  // `exportChecked`: a call before this one found it no export; judging every column again scrubbed every value again.
  const ticket = columns.named === 'none' && !refused && !exportChecked ? ticketExport(header, rows) : undefined;
  if (ticket) return ticket;
  const others = header.flatMap((_, i) => (i === columns.question || i === columns.answer ? [] : [columnName(header, i)]));
  if (columns.question < 0 && columns.answer < 0) return `the header names no question and answer columns and every column holds personal data (${others.join(', ')}); ${HEAD_THE_COLUMNS}`;
  if (columns.answer < 0) return `no column of text beside ${columnName(header, columns.question)} but personal data (${others.join(', ')}) to read as the answers; ${HEAD_THE_COLUMNS}`;
  if (columns.question < 0) return `no column of text beside ${columnName(header, columns.answer)} but personal data (${others.join(', ')}) to read as the questions; ${HEAD_THE_COLUMNS}`;
  if (!refused) return undefined;
  return `the column ${columnName(header, refused.column)} holds only numbers or ids and would be indexed as the ${refused.role}; the header reads ${header.join(', ')}: ${HEAD_THE_COLUMNS}`;
}

/**
 * Why a header that names no question or answer column but has a contact of the customer (`Name,Email,Subject,Body`,
 * `氏名,メールアドレス,件名,本文`: a person's name, e-mail address, phone number or postal address, by header or by
 * values) is not read, or undefined: it is an export of tickets or customers, not Q&A. Its text is the customers' own
 * (a Body is the customer's message, not an answer), and quoted as an answer it would reach other customers. An
 * author's column (`作成者`, `Created By`, `Owner`), a role mailbox (`info@`) or a `Feature Name` is no customer's.
 */
function ticketExport(header: readonly string[], rows: readonly (readonly string[])[]): string | undefined {
  const cells = header.map(normalizedHeader);
  const personal = cells.flatMap((cell, i) =>
    customerContactHeader(cell) || mostlyPersonal(columnValues(rows, i), true) ? [columnName(header, i)] : [],
  );
  if (personal.length === 0) return undefined;
  return `the header names no question and answer columns but personal data (${personal.join(', ')}): an export of tickets or customers, whose text is the customers' own, not answers; the header reads ${header.join(', ')}: ${HEAD_THE_COLUMNS}`;
}

/**
 * Whether a table holds text someone could have meant as questions or answers: a column that is not an export's ids,
 * categories, dates or personal data and holds more than numbers or ids. A cover, revision-history or count sheet has
 * none; a helpdesk export or a FAQ saved without a header has.
 */
function holdsText(header: readonly string[], rows: readonly (readonly string[])[]): boolean {
  const cells = header.map(normalizedHeader);
  // Not Math.max(...): a large export's rows would overflow the call stack as arguments.
  const width = rows.reduce((widest, record) => Math.max(widest, record.length), cells.length);
  return Array.from({ length: width }, (_, i) => i).some(
    (i) => textColumn(cells, rows, i) && !personalColumn(cells, rows, i),
  );
}

/** Why a row without a question or an answer is skipped, or undefined when it has both. */
function emptyFieldReason(question: string, answer: string): string | undefined {
  if (!question && !answer) return 'empty question and answer';
  if (!question) return 'empty question';
  return answer ? undefined : 'empty answer';
}

/**
 * Pairs of a header row and the data rows after it, reading the columns {@link qaColumns} picks (with a warning when a
 * header of more than two columns does not name both). Row numbers count data records after the header, including
 * skipped ones, so a pair keeps its id (`${fileName}#${row}`) when a neighbouring row is fixed or emptied. Rows whose
 * question or answer is empty (after trimming) are skipped, each with a warning naming `where` and the row; so are CSV
 * rows with more fields than the header that cannot be mended ({@link fitToHeader}). A table whose columns cannot be
 * read ({@link unreadableColumns}) gives no pairs and `unreadable`: why, and whether it holds text ({@link holdsText}),
 * for the caller to pass it over or stop the reindex.
 */
function pairsOfRows(
  rows: SheetRecord[],
  fileName: string,
  options: { where: string; lineName: string; csv: boolean; logger?: Logger | undefined },
): TablePairs {
  const { where, lineName, logger } = options;
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  const untrimmed = rows[0]?.record ?? [];
  let width = untrimmed.length;
  // An export's header may end in empty cells of formatted but unused columns.
  while (width > 0 && (untrimmed[width - 1] ?? '').trim() === '') width--;
  const header = untrimmed.slice(0, width);
  const data = rows.slice(1).map(({ record, line }, index) => {
    const fitted: FittedRecord = options.csv ? fitToHeader(record, width, untrimmed.length - width) : { record };
    return { row: index + 1, line, ...fitted };
  });
  const readable = data.filter((d) => d.fields === undefined || d.joined).map((d) => d.record);
  const columns = qaColumns(header, readable);
  const refusal = unreadableColumns(header, readable, columns);
  if (refusal) return { pairs, skipped, unreadable: { reason: refusal, text: holdsText(header, readable) } };
  // Only where the header names neither column, as a cover's (版, 更新日) does: a sheet of 質問 and dates is a FAQ's.
  const datesOnly = columns.named === 'none' ? unreadableColumns(header, readable, columns, ID_OR_SHOWN_DATE_SHAPE, true) : undefined;
  const warning = columnsWarning(header, columns);
  if (warning) logger?.warn({ file: where, header }, `${where}: ${warning}`);
  const unheaded = data.find((d) => d.unheaded);
  if (unheaded) {
    // Once per file: an export padded to its used range may carry a note on every row.
    logger?.warn(
      { file: where, row: unheaded.row, line: unheaded.line },
      `${where}: the header has columns with no name after ${columnName(header, width - 1)} (as a spreadsheet pads its export); their text, first on row ${unheaded.row} (${lineName} ${unheaded.line}), is not read: give the column a name to have it ignored without this warning`,
    );
  }
  const idColumns = header.flatMap((cell, i) => (i !== columns.question && i !== columns.answer && normalizedHeader(cell) === 'id' ? [i] : []));
  const learnedCopies: { row: number; learnedPair: string }[] = [];
  for (const { row, line, record, fields, joined } of data) {
    const at = `${where} row ${row} (${lineName} ${line})`;
    const learnedPair = learnedPairOfRow(record, idColumns);
    if (learnedPair) {
      // Before any other reason: the row is the pair's copy however it was edited since.
      skipped.push({ fileName, row, line, reason: `${learnedPair} ${LEARNED_COPY_REASON}`, learnedPair });
      learnedCopies.push({ row, learnedPair });
      continue;
    }
    if (joined) logger?.warn({ file: where, row, line }, `${at}: ${fields} fields where the header has 2 (an unquoted comma?); joined the last ones back into ${columnName(header, 1)} with their commas`);
    const question = qaFieldText(record[columns.question] ?? '');
    const answer = qaFieldText(record[columns.answer] ?? '');
    const reason = fields !== undefined && !joined ? `${fields} fields where the header has ${untrimmed.length} (an unquoted comma? quote the field that holds it)` : emptyFieldReason(question, answer);
    if (reason) {
      skipped.push({ fileName, row, line, reason });
      logger?.warn({ file: where, row, line }, `${at}: ${reason}; skipped`);
      continue;
    }
    pairs.push({ id: `${fileName}#${row}`, fileName, row, question, answer });
  }
  const [firstCopy] = learnedCopies;
  if (firstCopy) {
    // Once per table, not per row: an export of hundreds of pairs would bury the rest of the log.
    logger?.warn(
      { file: where, rows: learnedCopies.length, first: firstCopy },
      `${where}: ${learnedCopies.length === 1 ? '1 row is' : `${learnedCopies.length} rows are`} learned pairs exported from the Knowledge page (first ${firstCopy.learnedPair}, row ${firstCopy.row}); skipped: accepted pairs are indexed from the knowledge store, once, and a pair removed there must not come back from its copy. Remove the file from QA_DIR, or clear a row's id to keep it as an ordinary FAQ row`,
    );
  }
  return datesOnly ? { pairs, skipped, datesOnly } : { pairs, skipped };
}

/** Why a copy of a learned pair is skipped, after its id (see {@link learnedPairOfRow}). */
const LEARNED_COPY_REASON = 'is a learned pair exported from the Knowledge page: the reindex indexes accepted pairs from the knowledge store, and a removed one must not come back from its copy';

/** A learned pair's id as the export writes it (learnedPairsCsv in learned-answers.ts); a spreadsheet may pad it or widen its letters. */
const LEARNED_PAIR_ID = new RegExp(`^${LEARNED_ID_PREFIX}\\d+$`);

/**
 * The learned pair (`learned#12`) a row is a copy of, or undefined. The export of the Knowledge page (learnedPairsCsv
 * in learned-answers.ts) writes `question,answer` first so the loader reads it, and the pair's id under `id`: put into
 * QA_DIR, each pair was indexed twice (its row and learned#N, both quoted in one draft), and a pair removed on the
 * Knowledge page lived on in its copy (audit s49 H4, MED 5). Such a row is skipped whether the pair still exists or not.
 * Only a column headed `id` is read, never the question or answer: a FAQ may mention a pair's id in its text.
 */
function learnedPairOfRow(record: readonly string[], idColumns: readonly number[]): string | undefined {
  for (const column of idColumns) {
    const value = (record[column] ?? '').normalize('NFKC').trim().toLowerCase();
    if (LEARNED_PAIR_ID.test(value)) return value;
  }
  return undefined;
}

/**
 * One table's pairs and skipped rows, or why its columns cannot be read and whether it holds text; `datesOnly` says
 * why the pairs would be a cover sheet's (an unnamed question or answer column of ids and dates as a spreadsheet shows
 * them), which a workbook passes over beside a sheet of real pairs.
 */
interface TablePairs {
  pairs: QaPair[];
  skipped: SkippedQaRow[];
  unreadable?: { reason: string; text: boolean };
  datesOnly?: string;
}

/**
 * Reads every CSV file and workbook in `dir` (non-recursive, sorted by name).
 *
 * A file that gives no pair and no row to skip (an empty CSV, a header alone, a workbook without rows) is not counted
 * in `files`: it is listed in `passedOver` with its reason and a warning, and alone it leaves the index empty, as before.
 * The pairs come without personal data ({@link pairWithoutPersonalData}); {@link parseQaCsv} and
 * {@link readQaWorkbook} give the cells' text as written.
 *
 * @param onProgress called with stage `read` after each file, then `scrub` every 1,000 pairs and at the end.
 * @param ownDomains our own mail domains: an address on one is the desk's and stays (see {@link pairWithoutPersonalData}).
 * @throws KnowledgeError when the directory is missing or a file is malformed (the message names file and line), or
 *   when files or sheets were passed over ({@link QaParseResult.passedOver}) and none yielded a pair: an index of
 *   nothing would replace the pairs the reindex was meant to bring.
 */
export async function loadQaPairs(dir: string, options: { logger?: Logger; onProgress?: ProgressFn; ownDomains?: readonly string[] } = {}): Promise<QaLoadResult> {
  const { logger, onProgress } = options;
  const files = await listSourceFiles(dir, QA_EXTENSIONS, 'Q&A', logger);
  const pairs: QaPair[] = [];
  const skipped: SkippedQaRow[] = [];
  const passedOver: (PassedOverQaTable & { file: string; where: string })[] = [];
  const read: string[] = [];
  // Every table passed over, in file order: those above, and files that hold nothing to read, which are named but
  // leave a QA_DIR of them alone an empty index as before.
  const named: PassedOverQaTable[] = [];
  await onProgress?.({ stage: 'read', done: 0, total: files.length });
  for (const [i, file] of files.entries()) {
    const data = await readFile(file.path);
    const text = file.ext === '.xlsx' ? undefined : decodeText(data, file.path, logger);
    const result =
      text === undefined
        ? await readQaWorkbook(data, file.fileName, { file: file.path, logger })
        : parseQaCsv(text, file.fileName, { file: file.path, logger });
    logger?.debug({ file: file.path, pairs: result.pairs.length, skipped: result.skipped.length }, `read ${file.fileName}`);
    await onProgress?.({ stage: 'read', done: i + 1, total: files.length });
    // A file of no rows said nothing anywhere and counted as read: the admin took its pairs for indexed (walkthrough
    // 45, L1). One whose rows were all skipped has said so row by row.
    if (result.pairs.length === 0 && result.skipped.length === 0 && result.passedOver.length === 0) {
      named.push(passOver(file.fileName, file.path, emptyQaFileReason(text), logger));
      continue;
    }
    read.push(file.fileName);
    for (const pair of result.pairs) pairs.push(pair);
    for (const skip of result.skipped) skipped.push(skip);
    for (const table of result.passedOver) {
      const sheet = table.table.startsWith(`${file.fileName}:`) ? table.table.slice(file.fileName.length + 1) : undefined;
      passedOver.push({ ...table, file: file.path, where: sheet === undefined ? file.path : sheetLocation(file.path, sheet) });
      named.push(table);
    }
  }
  const [first] = passedOver;
  if (first && pairs.length === 0) {
    const message = passedOver.map((table) => `${table.where}: ${table.reason}`).join('; ');
    throw new KnowledgeError(message, first.file);
  }
  await withoutPersonalData(pairs, onProgress, new Set((options.ownDomains ?? []).map((domain) => domain.toLowerCase())));
  return { files: read, pairs, skipped, passedOver: named };
}

/**
 * How long the scrub runs before the event loop turns. A count of pairs would not bound it: a pair of 40 KB takes tens
 * of milliseconds, and 1,000 of them ran 30 s without a turn, past BullMQ's lock renewal (review s48-r3b).
 */
const SCRUB_TURN_MS = 200;

/**
 * Replaces each pair's question and answer by {@link pairWithoutPersonalData}'s, in place, with progress (stage
 * `scrub`). A history export of 100,000 rows takes 30 to 90 seconds on a busy two-core machine: in one synchronous run
 * the maintenance worker could not renew its job's lock (60 s) and BullMQ would take the reindex for stalled, so the
 * event loop turns every {@link SCRUB_TURN_MS}.
 */
async function withoutPersonalData(pairs: QaPair[], onProgress: ProgressFn | undefined, ownDomains: ReadonlySet<string>): Promise<void> {
  let turned = performance.now();
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    pairs[i] = { ...pair, ...pairWithoutPersonalData(pair.question, pair.answer, ownDomains) };
    // Progress every 1,000 pairs and at the end, as before: reports by time would differ from run to run.
    if (i === pairs.length - 1 || (i + 1) % 1000 === 0) await onProgress?.({ stage: 'scrub', done: i + 1, total: pairs.length });
    if (i === pairs.length - 1 || performance.now() - turned >= SCRUB_TURN_MS) {
      await setImmediate();
      turned = performance.now();
    }
  }
}

/**
 * Why a Q&A file gave no pair and no row to skip: its text (a CSV's; undefined for a workbook) is empty, or holds a
 * header alone; a workbook has no sheet with rows.
 */
function emptyQaFileReason(text: string | undefined): string {
  if (text === undefined) return 'no sheet holds rows of questions and answers';
  return text.replace(/^\uFEFF/, '').trim() === '' ? 'empty file' : 'no rows of questions and answers under the header';
}
