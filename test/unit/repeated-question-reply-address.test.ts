/**
 * The repeated-question key names the customer by the address the reply goes to (the ticket's Reply-To, which
 * defaults to its From), not by the From alone: a forged From with the customer's subject and question and a Reply-To
 * of the forger's own is another customer's question, not a repeat parked naming the customer's ticket (security
 * review 19, finding 4); a mail whose reply goes to the customer under another From is the customer's repeat.
 */
import { describe, expect, it } from 'vitest';
import { repeatedQuestionKey } from '../../src/tickets/repeated-question.js';
import { newTicket } from '../../src/tickets/ticket.js';

const SUBJECT = '領収書の再発行';
const QUESTION = '先月分の領収書を再発行していただけますか？';

/** A ticket as ingest makes it from a mail with this From and, when given, Reply-To. */
function ticketOf(from: string, replyTo?: string) {
  return newTicket({ messageId: `<${from}-${replyTo ?? ''}@mail.example>`, from, ...(replyTo ? { replyTo } : {}), subject: SUBJECT, question: QUESTION, actor: 'poller' });
}

// Taro's first mail: From and Reply-To his own address.
const TARO = ticketOf('taro@customer.example');

describe("repeatedQuestionKey: whose repeat a later mail is", () => {
  const rows: Array<[what: string, later: ReturnType<typeof ticketOf>, repeat: boolean]> = [
    ["Taro's From forged, Reply-To the forger's", ticketOf('taro@customer.example', 'mallory@attacker.example'), false],
    ["another From with Taro's address as Reply-To", ticketOf('taro.work@other.example', 'taro@customer.example'), true],
    ['Taro again, with a Reply-To of another mailbox', ticketOf('taro@customer.example', 'taro@home.example'), false],
    ['Taro again, Reply-To his own address in capitals', ticketOf('taro@customer.example', 'Taro@Customer.EXAMPLE'), true],
    ['Taro again, no Reply-To', ticketOf('Taro@customer.example'), true],
    ["Taro's From forged without a Reply-To: the reply goes to Taro", ticketOf('taro@customer.example'), true],
    ['someone else', ticketOf('hanako@customer.example'), false],
  ];
  it.each(rows)('%s', (_what, later, repeat) => {
    expect(repeatedQuestionKey('p', later) === repeatedQuestionKey('p', TARO)).toBe(repeat);
  });

  it('keys a caller that has only the From as the ticket with that From', () => {
    expect(repeatedQuestionKey('p', { from: TARO.from, subject: SUBJECT, question: QUESTION })).toBe(repeatedQuestionKey('p', TARO));
  });
});
