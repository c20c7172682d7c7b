/**
 * What `npm run check` says of the Authentication-Results the receiving server writes, read from the latest mails'
 * headers. Whether anything ever vouches for a sender (src/mail/classify.ts, `senderVouchedFor`) depends on that
 * field and on AUTHSERV_ID naming its writer, and the consequences of getting it wrong show only weeks later: with no
 * field, every customer's quote holding a link or phone number is left out of replies; with AUTHSERV_ID unset, a
 * forger's own `dmarc=pass` on top vouches for them; with AUTHSERV_ID not what the server writes, nothing vouches and
 * group mail is parked.
 */
import type { Config } from '../config.js';
import { authservIdOf } from '../mail/classify.js';
import { visibleHeaderText } from '../mail/invisible.js';
import { MailParseError, parseInboundMail } from '../mail/parse.js';
import type { CheckOutcome } from './check.js';
import { terminalSafe } from './format.js';

/** How many of the mailbox's latest mails (by sequence number) the check reads the Authentication-Results of. */
export const RECENT_MAILS = 20;

/** What the check reads of the configuration. */
export type AuthenticationCheckConfig = Pick<Config, 'AUTHSERV_ID' | 'SUPPORT_GROUP_ADDRESSES' | 'IMAP_MAILBOX'>;

const WHAT = 'Sender authentication';
// An id is a sender's text when the server writes none: shown no longer than the product's reasons show one.
const MAX_ID_CHARS = 80;
// Ids named when no one of them is the server's.
const MAX_IDS_NAMED = 3;

/**
 * The line about the Authentication-Results on top of the latest mails, from their header blocks as an IMAP FETCH of
 * `BODY.PEEK[HEADER.FIELDS (AUTHENTICATION-RESULTS)]` returns them (oldest first; an empty line for a mail without
 * one): `ok` when AUTHSERV_ID names the field the server writes; a warning when the server seems to write none, when
 * AUTHSERV_ID is unset though it writes one (naming the id to set), or when AUTHSERV_ID names another writer than the
 * one on top of most mail; `skipped` for an empty mailbox. The server writes its field on top of every mail it
 * receives, so only an id on top of more than half of them is taken for the server's: a field on a few is the
 * sender's own or a forwarder's, and recommending its id would let a forger's field vouch.
 */
export async function senderAuthenticationOutcome(headerBlocks: readonly Buffer[], config: AuthenticationCheckConfig): Promise<CheckOutcome> {
  const ids = await Promise.all(headerBlocks.map(topmostAuthservId));
  return decide(ids, config);
}

/**
 * The authserv-id of a mail's topmost Authentication-Results ('' for a field without one), undefined when it carries
 * none. The fields are read as the poller reads them (unfolded, in order), by the product's parser, and the id as
 * the product reads it ({@link authservIdOf}), so the id recommended is the one AUTHSERV_ID is then compared with.
 */
async function topmostAuthservId(headerBlock: Buffer): Promise<string | undefined> {
  let topmost: string | undefined;
  try {
    topmost = (await parseInboundMail(headerBlock, { extraHeaders: ['authentication-results'] })).headers['authentication-results']?.[0];
  } catch (err) {
    // A block with no field at all is what the server returns for a mail without one.
    if (err instanceof MailParseError) return undefined;
    throw err;
  }
  return topmost === undefined ? undefined : authservIdOf(topmost);
}

/** The warning when the latest mails' headers could not be read (`reason`, one line): the check says nothing of them. */
export function senderAuthenticationUnread(config: AuthenticationCheckConfig, reason: string): CheckOutcome {
  return { what: WHAT, where: whereOf(config), status: 'warning', detail: `could not read the Authentication-Results of the latest mails in ${config.IMAP_MAILBOX}: ${reason}` };
}

const whereOf = (config: AuthenticationCheckConfig): string => (config.AUTHSERV_ID.length > 0 ? `AUTHSERV_ID ${config.AUTHSERV_ID.join(', ')}` : 'AUTHSERV_ID not set');

function decide(ids: ReadonlyArray<string | undefined>, config: AuthenticationCheckConfig): CheckOutcome {
  const configured = config.AUTHSERV_ID.map((id) => id.toLowerCase());
  const where = whereOf(config);
  const mailbox = config.IMAP_MAILBOX;
  const read = ids.length;
  if (read === 0) return { what: WHAT, where, status: 'skipped', detail: `${mailbox} is empty: no mail to read the Authentication-Results of` };
  const latest = `the last ${read} mail${read === 1 ? '' : 's'} in ${mailbox}`;
  const counts = countIds(ids);
  const [serverId, serverCount] = [...counts].find(([, n]) => n > read / 2) ?? [];
  const matching = ids.filter((id) => id !== undefined && configured.includes(id)).length;
  const group = config.SUPPORT_GROUP_ADDRESSES.length > 0 ? ' and mail through the group is parked' : '';

  if (matching > 0 && (serverId === undefined || configured.includes(serverId))) {
    return { what: WHAT, where, status: 'ok', detail: `on top of ${matching} of ${latest}` };
  }
  if (serverId === undefined) {
    const carrying = ids.filter((id) => id !== undefined).length;
    const found =
      carrying === 0
        ? `none of ${latest} carries an Authentication-Results: your receiving server writes none`
        : `only ${carrying} of ${latest} carr${carrying === 1 ? 'ies' : 'y'} an Authentication-Results on top (${idsNamed(counts)}), too few to be your receiving server's: it seems to write none`;
    const forger = configured.length === 0 ? ", while a forger's own Authentication-Results would vouch for them" : '';
    return {
      what: WHAT,
      where,
      status: 'warning',
      detail: `${found}, so nothing vouches for any sender and quotes with links or phone numbers are left out of replies${group ? `,${group}` : ''}${forger}; turning it on is the mail server's DMARC/SPF/DKIM check, outside this product`,
    };
  }
  const onTop = `on top of ${serverCount} of`;
  if (configured.length === 0) {
    if (serverId === '') {
      // Nothing to set: AUTHSERV_ID cannot name such a field, and without it the topmost field is read as the server's.
      return { what: WHAT, where, status: 'ok', detail: `your server writes its Authentication-Results without an authserv-id (${onTop} ${latest}, as Exchange Online does)` };
    }
    return {
      what: WHAT,
      where,
      status: 'warning',
      detail: `set AUTHSERV_ID=${shown(serverId)}, the first word of the Authentication-Results your server writes ${onTop} ${latest}: until then the topmost one is read whoever wrote it, and a forger's own dmarc=pass can vouch for them`,
    };
  }
  const carriesIt = `${matching === 0 ? 'none' : `only ${matching}`} of ${latest} carries it on top`;
  const unvouched = `nothing vouches for ${matching === 0 ? 'any sender' : 'most senders'}${group}`;
  if (serverId === '') {
    return {
      what: WHAT,
      where,
      status: 'warning',
      detail: `${carriesIt}: your server writes its Authentication-Results without an authserv-id (${onTop} them, as Exchange Online does), which AUTHSERV_ID cannot name, so ${unvouched}`,
    };
  }
  return { what: WHAT, where, status: 'warning', detail: `${carriesIt}: your server writes ${shown(serverId)} (${onTop} them); set AUTHSERV_ID=${shown(serverId)}, or ${unvouched}` };
}

/** How many mails carry each topmost authserv-id, most first. */
function countIds(ids: ReadonlyArray<string | undefined>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const id of ids) if (id !== undefined) counts.set(id, (counts.get(id) ?? 0) + 1);
  return new Map([...counts].sort((a, b) => b[1] - a[1]));
}

function idsNamed(counts: ReadonlyMap<string, number>): string {
  const named = [...counts.keys()].slice(0, MAX_IDS_NAMED).map((id) => (id === '' ? 'one without an authserv-id' : shown(id)));
  return `by ${named.join(', ')}${counts.size > MAX_IDS_NAMED ? ', …' : ''}`;
}

/** An id for the terminal: when the server writes none, it is a sender's text. */
function shown(id: string): string {
  const chars = Array.from(terminalSafe(visibleHeaderText(id).text));
  return chars.length > MAX_ID_CHARS ? `${chars.slice(0, MAX_ID_CHARS).join('')}…` : chars.join('');
}
