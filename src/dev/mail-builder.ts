/**
 * Raw customer mails of every shape the tests and the soak (`npm run soak`) deliver into the mailbox: threads,
 * auto-replies, multipart reports, and bodies in a legacy charset.
 */

/** Our support address in the tests and the soak: the Dovecot user, MAIL_FROM's address. */
export const SUPPORT_ADDRESS = 'support@helpdesk.test';
/** MAIL_FROM of the tests and the soak, and the default To of {@link buildMail}. */
export const MAIL_FROM = `XYZ Support <${SUPPORT_ADDRESS}>`;

/**
 * A body charset other than UTF-8, as old clients send it (ISO-2022-JP): the encoder is passed in, so this file needs
 * no table of its own.
 */
export interface LegacyCharset {
  /** The MIME charset name, e.g. `iso-2022-jp`. */
  name: string;
  /** Encodes text to the charset's 7-bit bytes. */
  encode(text: string): Buffer;
}

/** A mail to build. */
export interface MailSpec {
  messageId: string;
  from: string;
  subject: string;
  body: string;
  to?: string;
  /** UTF-8 (base64) when omitted. */
  charset?: LegacyCharset;
  inReplyTo?: string;
  references?: string[];
  /** Extra header lines, e.g. `{ 'Auto-Submitted': 'auto-replied' }`. */
  headers?: Record<string, string>;
  /** The Date header (default now). */
  date?: string;
  /** Replaces the whole Content-Type header and body (for multipart reports). */
  rawBody?: { contentType: string; body: string };
}

/** Builds a raw RFC 5322 mail with CRLF line endings. */
export function buildMail(spec: MailSpec): Buffer {
  const legacy = spec.charset;
  const encodeHeader = (value: string): string => {
    if (/^[\x20-\x7e]*$/.test(value)) return value;
    const bytes = legacy ? legacy.encode(value) : Buffer.from(value, 'utf8');
    return `=?${(legacy?.name ?? 'utf-8').toUpperCase()}?B?${bytes.toString('base64')}?=`;
  };
  const lines = [
    `From: ${spec.from}`,
    `To: ${spec.to ?? MAIL_FROM}`,
    `Subject: ${encodeHeader(spec.subject)}`,
    `Date: ${spec.date ?? new Date().toUTCString()}`,
    `Message-ID: ${spec.messageId}`,
    ...(spec.inReplyTo ? [`In-Reply-To: ${spec.inReplyTo}`] : []),
    ...(spec.references?.length ? [`References: ${spec.references.join(' ')}`] : []),
    ...Object.entries(spec.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
  ];
  if (spec.rawBody) {
    lines.push(`Content-Type: ${spec.rawBody.contentType}`, '');
    return Buffer.from(`${lines.join('\r\n')}\r\n${spec.rawBody.body.replace(/\r?\n/g, '\r\n')}`, 'utf8');
  }
  const body = spec.body.replace(/\r?\n/g, '\r\n');
  if (legacy) {
    lines.push(`Content-Type: text/plain; charset=${legacy.name.toUpperCase()}`, 'Content-Transfer-Encoding: 7bit', '');
    return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n`, 'ascii'), legacy.encode(body), Buffer.from('\r\n', 'ascii')]);
  }
  lines.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64', '');
  const b64 = Buffer.from(body, 'utf8').toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(`${lines.join('\r\n')}\r\n${b64}\r\n`, 'ascii');
}
