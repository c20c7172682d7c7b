import { describe, expect, it } from 'vitest';
import { matchesSearch, searchWords, type SearchableTicket } from '../../src/server/ticket-search.js';

const HANAKO: SearchableTicket = { from: 'hanako.yamada@customer.example', replyTo: 'hanako.yamada@customer.example', fromName: '山田 花子', subject: '請求書の再発行' };
const FORM: SearchableTicket = { from: 'noreply@forms.example', replyTo: 'Hanako+web@Customer.example', subject: 'Contact form' };

describe('searchWords', () => {
  it.each([
    ['  Hanako   YAMADA ', ['hanako', 'yamada']],
    ['ｈａｎａｋｏ＠', ['hanako@']],
    ['a a A', ['a']],
    ['   ', []],
    ['.* (', ['.*', '(']],
  ])('%j → %j', (text, words) => {
    expect(searchWords(text)).toEqual(words);
  });
});

describe('matchesSearch', () => {
  it.each([
    ['a part of the From address', HANAKO, 'YAMADA@cust', true],
    ['the whole address', HANAKO, 'hanako.yamada@customer.example', true],
    ['the Reply-To address', FORM, 'hanako+web@', true],
    ['the same mailbox with a +tag', HANAKO, 'Hanako.Yamada+shop@customer.example', true],
    ['the same mailbox as the Reply-To without its +tag', FORM, 'hanako@customer.example', true],
    ['the sender name', HANAKO, '花子', true],
    ['a word of the subject', HANAKO, '請求書', true],
    ['every word, each anywhere', HANAKO, 'hanako 請求書', true],
    ['one word missing', HANAKO, 'hanako invoice', false],
    ['another address', HANAKO, 'taro@customer.example', false],
    ['pattern characters are characters', HANAKO, '.*', false],
    ['a blank search matches nothing', HANAKO, '  ', false],
  ])('%s', (_case, ticket, text, expected) => {
    expect(matchesSearch(ticket, searchWords(text))).toBe(expected);
  });
});
