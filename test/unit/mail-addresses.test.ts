import { describe, expect, it } from 'vitest';
import { comparableAddress, domainOf, isOwnAddress, isUsableAddress, localPart, normaliseAddress, parseAddressList, StringMemo } from '../../src/mail/addresses.js';

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

// Docomo and au issued addresses with a dot before the `@` or two dots in a row until 2009, and their owners still
// write from them; the carriers' servers take them. RFC 5322 wants such a local part quoted (`"hanako."@ezweb.ne.jp`),
// which is how nodemailer sends it. Everything else a reply must not go to stays refused.
describe('addresses a reply may go to', () => {
  it.each<[string, string, boolean]>([
    ['a plain address', 'taro@customer.example', true],
    ['a legacy carrier address with a dot before the @', 'hanako.@ezweb.ne.jp', true],
    ['a legacy carrier address with two dots in a row', 'taro..yamada@docomo.ne.jp', true],
    ['both at once', 'taro..hanako.@docomo.ne.jp', true],
    ['the dotted local part quoted, as RFC 5322 writes it', '"hanako."@ezweb.ne.jp', true],
    ['a quoted local part that needs no quotes', '"taro"@customer.example', true],
    ['a local part that starts with a dot (no carrier issued one)', '.hanako@ezweb.ne.jp', false],
    ['a local part of dots only', '..@ezweb.ne.jp', false],
    ['an empty quoted local part', '""@customer.example', false],
    ['a quoted local part with a space', '"taro yamada"@customer.example', false],
    ['a quoted local part hiding a second address', '"victim1@bank.example,victim2"@customer.example', false],
    ['a quoted local part hiding an angle address', '"<victim@bank.example>"@customer.example', false],
    ['a quoted local part with an escaped quote', '"hanako.\\"x"@ezweb.ne.jp', false],
    ['a partly quoted local part', '"hanako".x@ezweb.ne.jp', false],
    ['a percent-hack route', 'support%ours.example@relay.example', false],
    ['a percent-hack route, quoted', '"support%ours.example"@relay.example', false],
    ['a bang route', 'host!user@relay.example', false],
    ['a domain literal', 'hanako.@[192.0.2.1]', false],
    ['a dotted local part without a domain', 'hanako.@', false],
    ['a domain with two dots in a row', 'hanako.@ezweb..ne.jp', false],
  ])('%s: %s', (_what, address, usable) => {
    expect(isUsableAddress(address)).toBe(usable);
  });

  // addressparser drops the quotes of a bare quoted local part but keeps them inside angle brackets: one mailbox must
  // read the same however the header wrote it, for the reply, the limits' keys and the own-address check alike.
  it.each<[string, string, string | undefined]>([
    ['bare', 'hanako.@ezweb.ne.jp', 'hanako.@ezweb.ne.jp'],
    ['bare and quoted', '"hanako."@ezweb.ne.jp', 'hanako.@ezweb.ne.jp'],
    ['quoted in angle brackets with a name', '花子 <"Hanako."@EZweb.ne.jp>', 'hanako.@ezweb.ne.jp'],
    ['two dots, quoted in angle brackets', '<"taro..yamada"@docomo.ne.jp>', 'taro..yamada@docomo.ne.jp'],
    ['a quoted local part that must stay quoted', 'X <"taro yamada"@customer.example>', undefined],
  ])('a dotted local part written %s reads as one mailbox', (_how, header, normalised) => {
    expect(normaliseAddress(header)).toBe(normalised);
    expect(comparableAddress(header)).toBe(normalised);
  });

  it('keeps the quotes a local part needs in what the header parser hands on', () => {
    expect(parseAddressList('X <"taro yamada"@customer.example>, <"hanako."@ezweb.ne.jp>')).toEqual([
      { address: '"taro yamada"@customer.example', name: 'X' },
      { address: 'hanako.@ezweb.ne.jp', name: '' },
    ]);
  });

  // The sender checks nodemailer's envelope (`"hanako."@ezweb.ne.jp`) against the ticket's address by these parts.
  it.each<[string, string, string]>([
    ['"hanako."@ezweb.ne.jp', 'hanako.', 'ezweb.ne.jp'],
    ['hanako.@ezweb.ne.jp', 'hanako.', 'ezweb.ne.jp'],
    ['"Taro..Yamada"@docomo.ne.jp', 'taro..yamada', 'docomo.ne.jp'],
    ['"taro yamada"@customer.example', '"taro yamada"', 'customer.example'],
  ])('names the parts of %s as %s at %s', (address, local, domain) => {
    expect(localPart(address)).toBe(local);
    expect(domainOf(address)).toBe(domain);
  });

  it.each<[string, boolean]>([
    ['Support <"support"@helpdesk.test>', true],
    ['"support"@helpdesk.test', true],
    ['hanako.@ezweb.ne.jp', false],
  ])('knows our own address however it is quoted: %s', (address, ours) => {
    expect(isOwnAddress(address, ['XYZ Support <support@helpdesk.test>'])).toBe(ours);
  });

  // Now that a dot before the @ and two dots in a row are usable, `support.@ours` must not pass for a stranger: on a
  // shared mail domain (a support mailbox at outlook.jp) anyone may register it, and answering it would loop or
  // answer a spoof of our own address (bug review 39b, finding 5). Only the own-address check folds the dots.
  it.each<[string, string, string, boolean]>([
    ['a dot before the @', 'support.@helpdesk.example.jp', 'support@helpdesk.example.jp', true],
    ['a dot before the @, quoted in angle brackets', 'X <"support."@helpdesk.example.jp>', 'support@helpdesk.example.jp', true],
    ['a dot before the @, quoted bare', '"support."@helpdesk.example.jp', 'support@helpdesk.example.jp', true],
    ['two dots before the @', 'support..@helpdesk.example.jp', 'support@helpdesk.example.jp', true],
    ['a dot before the @ and a tag', 'support.+t1@helpdesk.example.jp', 'support@helpdesk.example.jp', true],
    ['two dots in a row', 'sup..port@helpdesk.example.jp', 'sup.port@helpdesk.example.jp', true],
    ['three dots in a row, quoted', '<"sup...port"@helpdesk.example.jp>', 'sup.port@helpdesk.example.jp', true],
    ['full-width, a dot before the @', 'ｓｕｐｐｏｒｔ．＠ｈｅｌｐｄｅｓｋ．ｅｘａｍｐｌｅ．ｊｐ', 'support@helpdesk.example.jp', true],
    ['full-width, two dots in a row', 'ｓｕｐ．．ｐｏｒｔ＠ｈｅｌｐｄｅｓｋ．ｅｘａｍｐｌｅ．ｊｐ', 'sup.port@helpdesk.example.jp', true],
    ['our own address written with the dot', 'support@helpdesk.example.jp', 'XYZ <support.@helpdesk.example.jp>', true],
    ['a shared free-mail domain', 'xyz-support.@outlook.jp', 'xyz-support@outlook.jp', true],
    ['a dot inside is another mailbox', 'sup.port@helpdesk.example.jp', 'support@helpdesk.example.jp', false],
    ['two dots in a row are not none', 'sup..port@helpdesk.example.jp', 'support@helpdesk.example.jp', false],
    ['another mailbox with a dot before the @', 'supports.@helpdesk.example.jp', 'support@helpdesk.example.jp', false],
    ['the same local part on another domain', 'support.@outlook.jp', 'support@helpdesk.example.jp', false],
    ['a leading dot stays unusable', '.support@helpdesk.example.jp', 'support@helpdesk.example.jp', false],
  ])('takes %s for our own address as it should: %s vs %s', (_what, address, ours, same) => {
    expect(isOwnAddress(address, [ours])).toBe(same);
  });

  // A carrier issued hanako. and hanako to two people: the limits', budgets' and erasure's key keeps them apart.
  it.each<[string, string]>([
    ['hanako.@ezweb.ne.jp', 'hanako@ezweb.ne.jp'],
    ['taro..yamada@docomo.ne.jp', 'taro.yamada@docomo.ne.jp'],
  ])('keeps %s and %s apart outside the own-address check', (a, b) => {
    expect(comparableAddress(a)).not.toBe(comparableAddress(b));
    expect(isOwnAddress(a, [b])).toBe(true);
  });
});
