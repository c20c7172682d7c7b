/**
 * Bug review B4 of session 49: round 11 kept a block under a separator holding a sentence of five or more words as the
 * customer's (a note, not a signature). A signature starts with a name, so only a sentence on the block's first line
 * counts: a confidentiality line or a slogan further down the signature kept the whole block, phone and name too.
 */
import { describe, expect, it } from 'vitest';
import { stripSignatureBlock } from '../../src/mail/parse.js';

describe('stripSignatureBlock: a sentence counts as the customer\'s only as the first line below the separator', () => {
  it.each<[string, string, string]>([
    [
      'a confidentiality line at the end of a signature',
      'Could you resend the invoice?\n\n-----\nJohn Smith | Acme Corp\nPhone: +1 555 123 4567\nThe information in this email is confidential and may be legally privileged.',
      'Could you resend the invoice?\n',
    ],
    ['a slogan under a name', 'When does my order ship?\n____\nJane Doe\njane@example.com\nVisit our new website for the latest offers and news.', 'When does my order ship?'],
    ['a romanised address line', '納期を教えてください。\n----\n山田 太郎\nSample Co., Ltd. 1-2-3 Chiyoda, Tokyo 100-0001.\nTEL 03-1234-5678', '納期を教えてください。'],
    // Still the customer's: the block opens with their sentence.
    [
      'a note that opens the block',
      'Our licences expire soon.\n-----\nPlease renew them before the end of the month.\nmail: it@example.com',
      'Our licences expire soon.\n-----\nPlease renew them before the end of the month.\nmail: it@example.com',
    ],
  ])('%s', (_what, text, kept) => {
    expect(stripSignatureBlock(text.split('\n')).join('\n')).toBe(kept);
  });
});
