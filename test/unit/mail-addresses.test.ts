import { describe, expect, it } from 'vitest';
import { comparableAddress, normaliseAddress, StringMemo } from '../../src/mail/addresses.js';

describe('StringMemo', () => {
  const counting = <V>(answer: (key: string) => V) => {
    const asked: string[] = [];
    return { asked, answer: (key: string) => () => (asked.push(key), answer(key)) };
  };

  it('answers a string asked again from what it kept, an undefined answer too', () => {
    const memo = new StringMemo<string | undefined>(10, 100);
    const { asked, answer } = counting((key) => (key.includes('@') ? key.toLowerCase() : undefined));
    for (let round = 0; round < 3; round++) {
      expect(memo.get('Taro@Customer.example', answer('Taro@Customer.example'))).toBe('taro@customer.example');
      expect(memo.get('no address', answer('no address'))).toBeUndefined();
    }
    expect(asked).toEqual(['Taro@Customer.example', 'no address']);
  });

  // What strangers write decides the keys: a flood of made-up addresses must not grow the memory it holds.
  it.each<[string, number, number, (i: number) => string, number]>([
    ['keeps no more than its entries, however many strings come', 3, 100, (i) => `customer-${i}@evil.example`, 3],
    ['keeps nothing for a string longer than its limit', 3, 20, (i) => `${'x'.repeat(20)}${i}@evil.example`, 0],
  ])('%s', (_what, entries, maxKeyChars, key, mostKept) => {
    const memo = new StringMemo<string>(entries, maxKeyChars);
    for (let i = 0; i < 1_000; i++) {
      expect(memo.get(key(i), () => key(i).toUpperCase())).toBe(key(i).toUpperCase());
      expect(memo.size).toBeLessThanOrEqual(mostKept);
    }
  });

  it('asks again for a string it did not keep', () => {
    const memo = new StringMemo<number>(3, 5);
    const { asked, answer } = counting((key) => key.length);
    expect(memo.get('too long', answer('too long'))).toBe(8);
    expect(memo.get('too long', answer('too long'))).toBe(8);
    expect(asked).toEqual(['too long', 'too long']);
  });
});

// The address functions keep their answers: an answer kept for one spelling is never given for another.
describe('kept address answers', () => {
  it.each<[string, string, string | undefined, string | undefined]>([
    ['a display name, capitals and a tag', 'XYZ Support <Support+Ticket-42@Helpdesk.test>', 'support+ticket-42@helpdesk.test', 'support@helpdesk.test'],
    ['the same mailbox written plainly', 'support+ticket-42@helpdesk.test', 'support+ticket-42@helpdesk.test', 'support@helpdesk.test'],
    ['full-width letters', 'ｓｕｐｐｏｒｔ＠ｈｅｌｐｄｅｓｋ．ｔｅｓｔ', undefined, 'support@helpdesk.test'],
    ['a Gmail address with dots', 'Alice.Smith@googlemail.com', 'alice.smith@googlemail.com', 'alicesmith@gmail.com'],
    ['a group without addresses', 'undisclosed-recipients:;', undefined, undefined],
    ['a value too long to be kept', `"${'a'.repeat(2_000)}" <long@customer.example>`, 'long@customer.example', 'long@customer.example'],
  ])('%s', (_what, value, normalised, comparable) => {
    for (let round = 0; round < 2; round++) {
      expect(normaliseAddress(value)).toBe(normalised);
      expect(comparableAddress(value)).toBe(comparable);
    }
  });
});
