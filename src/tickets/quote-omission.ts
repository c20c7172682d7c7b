/**
 * Whether a reply to the From leaves out the quoted customer mail, and why. Decided from the stored ticket and the
 * configuration alone, so the sender decides it for every reply when it sends it (automatic, approved, written by a
 * person on a ticket the agent never answered), and the review page shows the same decision before anyone approves.
 */
import { QA_TOOL_NAME } from '../agent/tools.js';
import type { AgentResult } from '../agent/types.js';
import type { Config } from '../config.js';
import { domainOf, isSameMailbox } from '../mail/addresses.js';
import { ourAddressesOf, ownMailboxesOf, senderVouchedFor, type MailboxConfig } from '../mail/classify.js';
import { quoteOriginal } from '../mail/compose-reply.js';
import { isSharedMailDomain } from '../mail/shared-mail-domains.js';
import { qaPairAnswerOf } from '../search/types.js';
import { foreignLinks, foreignLinksReason } from './foreign-links.js';
import type { Ticket } from './ticket.js';

/** What the decision reads of the configuration: our addresses and group, AUTHSERV_ID, TRUSTED_LINK_DOMAINS. */
export type QuoteConfig = MailboxConfig & Pick<Config, 'TRUSTED_LINK_DOMAINS'>;

/** What the decision reads of the ticket. */
export type QuotedTicket = Pick<Ticket, 'from' | 'fromName' | 'replyTo' | 'question' | 'replySignals' | 'agent'>;

/**
 * The texts the agent's searches returned for its answer that the company wrote: a link, address or phone number in
 * them is vouched for. A manual section counts whole; of a Q&A pair only the answer ({@link qaPairAnswerOf}). The
 * question is a customer's words, a learned pair's always and a CSV row's as often (past inquiries copied in), and
 * a link or number an attacker wrote into it would otherwise vouch for itself in every later draft once an operator
 * accepted the pair for its answer. The model still reads the whole pair; only the check reads less.
 */
export function knowledgeFound(result: AgentResult | undefined): string[] {
  const texts = (result?.subtasks ?? []).flatMap((s) =>
    s.toolResults.flat().flatMap((call) => call.results.map((hit) => (call.toolName === QA_TOOL_NAME ? qaPairAnswerOf(hit.content) : hit.content))),
  );
  return texts.filter((text) => text !== '');
}

/**
 * Why the reply leaves out the quoted original although it goes to the From itself, or undefined to keep it: no
 * Authentication-Results of our receiving server vouch for the From ({@link senderVouchedFor} over the signals the
 * poller recorded; a ticket without them, made from an IMAP envelope or with oversized headers, has nothing that
 * vouches), and the quote (the text `quoteOriginal` makes of the mail, its attribution line with the name included)
 * holds a link, address or phone number nothing vouches for, or a payment detail, chat or payment handle, remote-access
 * id or gift-card ask (src/tickets/payment-details.ts). Such a quote may be a forger's notice ("account suspended,
 * confirm at …", "our new bank account is …") delivered from our address to the person whose address they put in From. Vouched for are
 * what vouches in a draft (the knowledge the agent found, TRUSTED_LINK_DOMAINS, our addresses and the From) and the
 * From's own domain with its subdomains ({@link ownSite}): a link to the sender's own site is no forger's weapon
 * against that sender. A phone number is vouched for by the knowledge alone ("call 03-… to restore your account" is
 * the attack). To another mailbox the quote is left out anyway (src/mail/compose-reply.ts): undefined.
 */
export function quoteOmission(ticket: QuotedTicket, config: QuoteConfig): string | undefined {
  const recipient = ticket.replyTo || ticket.from;
  if (!isSameMailbox(recipient, ticket.from)) return undefined;
  if (ticket.replySignals && senderVouchedFor(ticket.replySignals, ownMailboxesOf(config))) return undefined;
  const quote = quoteOriginal({ from: ticket.from, ...(ticket.fromName ? { fromName: ticket.fromName } : {}), text: ticket.question });
  const foreign = foreignLinks(quote, {
    knowledge: knowledgeFound(ticket.agent),
    trustedDomains: [...config.TRUSTED_LINK_DOMAINS, ...ownSite(ticket.from)],
    addresses: [...ourAddressesOf(config), ticket.from],
  });
  if (foreign.length === 0) return undefined;
  return `the sender is not authenticated (no Authentication-Results of our receiving server vouch for ${ticket.from}), and ${foreignLinksReason(foreign, 'the quoted mail')}`;
}

/**
 * The From's domain as a trusted domain (it and its subdomains, as TRUSTED_LINK_DOMAINS matches them), or none on a
 * shared mail provider's domain: anyone holds a mailbox there, and some providers host their customers' own pages
 * under it (`homepage3.nifty.com/…`), so it is no one sender's site.
 */
function ownSite(from: string): string[] {
  const domain = domainOf(from);
  return domain === '' || isSharedMailDomain(domain) ? [] : [domain];
}
