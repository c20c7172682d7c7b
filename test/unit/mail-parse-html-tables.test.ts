/**
 * HTML tables as a reader sees them: each row on its own line, a header cell set off from the data cell beside it.
 * Web forms mail their fields as such a table; run together ("お名前鈴木 花子メールアドレス…"), the fields are hard to
 * read, and an empty form reads as words ("お名前お問い合わせ内容") where the same form as plain text is seen as empty.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasQuestion } from '../../src/mail/classify.js';
import { parseInboundMail } from '../../src/mail/parse.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/mail');
const fixture = (name: string): Buffer => readFileSync(path.join(fixtures, name));

const htmlMail = (html: string) =>
  Buffer.from(`From: a@customer.example\r\nSubject: Question\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`);

describe('parseInboundMail: HTML tables', () => {
  it.each<[string, string, string]>([
    [
      'a minified web form of header and data cells',
      '<table><tr><th>お名前</th><td>鈴木 花子</td></tr><tr><th>メールアドレス</th><td>suzuki@customer.example</td></tr><tr><th>お問い合わせ内容</th><td>年払いの割引率を教えてください。</td></tr></table>',
      'お名前: 鈴木 花子\nメールアドレス: suzuki@customer.example\nお問い合わせ内容: 年払いの割引率を教えてください。',
    ],
    [
      'the same form laid out over lines',
      '<table>\n<tr>\n  <th>お名前</th>\n  <td>鈴木 花子</td>\n</tr>\n<tr>\n  <th>お問い合わせ内容</th>\n  <td>年払いの割引率を教えてください。</td>\n</tr>\n</table>',
      'お名前: 鈴木 花子\nお問い合わせ内容: 年払いの割引率を教えてください。',
    ],
    ['labels and values in paragraphs of their own', '<table><tr><th><p>お名前</p></th><td><p>鈴木 花子</p></td></tr></table>', 'お名前:\n\n鈴木 花子'],
    ['a header cell that ends with its own colon', '<table><tr><th>お名前：</th><td>鈴木</td></tr><tr><th><b>Name:</b></th><td>Suzuki</td></tr></table>', 'お名前： 鈴木\nName: Suzuki'],
    ['a form of data cells only', '<table><tr><td>お名前</td><td>鈴木 花子</td></tr><tr><td>ご質問</td><td>領収書は発行できますか？</td></tr></table>', 'お名前 鈴木 花子\nご質問 領収書は発行できますか？'],
    ['column headings over rows of data', '<table><thead><tr><th>Invoice</th><th>Amount</th></tr></thead><tbody><tr><td>123</td><td>5,000</td></tr></tbody></table><p>Why was 123 charged twice?</p>', 'Invoice Amount\n123 5,000\n\nWhy was 123 charged twice?'],
    // Layout tables (a newsletter's, a signature's) read as before: their paragraphs keep their blank lines.
    ['a layout table of paragraphs', '<p>Hello</p><table><tr><td><table><tr><td>Logo</td></tr></table></td></tr><tr><td><p>How do I export?</p><p>Thanks</p></td></tr></table><p>Taro</p>', 'Hello\n\nLogo\n\nHow do I export?\n\nThanks\n\nTaro'],
  ])('%s', async (_what, html, question) => {
    expect((await parseInboundMail(htmlMail(html))).question).toBe(question);
  });

  it.each<[string, Buffer, boolean]>([
    ['the audit sample: a filled form, minified, has a question', fixture('html-webform-table.eml'), true],
    // Read as "お名前:" lines, an empty form has no question, as the same form in plain text has none.
    ['the audit sample: an empty form, minified, has none', fixture('html-webform-empty-table.eml'), false],
    ['an empty form of labels in paragraphs has none', htmlMail('<table><tr><th><p>お名前</p></th><td></td></tr><tr><th><p>ご質問</p></th><td><p></p></td></tr></table>'), false],
    ['an empty form laid out over lines has none', htmlMail('<table>\n<tr><th>お名前</th><td></td></tr>\n<tr><th>メールアドレス</th><td> </td></tr>\n<tr><th>お問い合わせ内容</th><td></td></tr>\n</table>'), false],
  ])('%s', async (_what, raw, expected) => {
    expect(hasQuestion(await parseInboundMail(raw))).toBe(expected);
  });
});
