/**
 * Erasure removes a customer's question claims under every key they may hold: the reply address's, and the From's,
 * which keyed claims before security review 19 and stays claimed for a window after an upgrade (bug review R3).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { comparableAddress } from '../../src/mail/addresses.js';
import { subjectAsQuestion } from '../../src/mail/parse.js';
import { questionFingerprint, repeatedQuestionKey, repeatedQuestionKeys } from '../../src/tickets/repeated-question.js';
import { newTicket } from '../../src/tickets/ticket.js';

const SUBJECT = 'Re: 領収書の再発行';
const QUESTION = '先月分の領収書を再発行していただけますか？';

/** The key a claim made before the reply address keyed it has: the From's (the code of that release). */
function fromKeyedClaim(prefix: string, from: string): string {
  const digest = createHash('sha256')
    .update(comparableAddress(from) ?? from.toLowerCase())
    .update('\n')
    .update(questionFingerprint(subjectAsQuestion(SUBJECT)))
    .update('\n')
    .update(questionFingerprint(QUESTION))
    .digest('hex');
  return `${prefix}:repeat:${digest}`;
}

function ticketOf(from: string, replyTo?: string) {
  return newTicket({ messageId: `<${from}-${replyTo ?? ''}@mail.example>`, from, ...(replyTo ? { replyTo } : {}), subject: SUBJECT, question: QUESTION, actor: 'poller' });
}

describe('repeatedQuestionKeys: the claims erasure removes', () => {
  const rows: Array<[what: string, ticket: ReturnType<typeof ticketOf>, count: number]> = [
    ['Reply-To another address than the From', ticketOf('taro@customer.example', 'taro@home.example'), 2],
    ['no Reply-To: one key, both ways', ticketOf('Taro@Customer.example'), 1],
    ['Reply-To the From in capitals: one key', ticketOf('taro@customer.example', 'TARO@customer.example'), 1],
  ];
  it.each(rows)('%s', (_what, ticket, count) => {
    const keys = repeatedQuestionKeys('p', ticket);
    expect({ reply: keys.includes(repeatedQuestionKey('p', ticket)), from: keys.includes(fromKeyedClaim('p', ticket.from)), count: keys.length }).toEqual({ reply: true, from: true, count });
  });
});
