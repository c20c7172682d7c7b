/**
 * How mail clients mark the start of a quoted mail without `>` marks: the separator above a reply's original
 * ("-----Original Message-----", 「-----原始邮件-----」) and Outlook-style header blocks (From:/差出人: then Sent:/To:/
 * Subject: lines). The parser cuts the customer's own words there (src/mail/parse.ts); the reply decision looks for
 * such a quote below a note that announces inline answers (src/mail/classify.ts). Here so both read the same labels:
 * parse.ts imports classify.ts, so classify.ts cannot take them from parse.ts without a cycle.
 */

/**
 * A separator line around `words` ("-----Original Message-----": Outlook en/ja/ko/zh, Coremail, forwarded messages of
 * Gmail, Thunderbird, Apple Mail), also QQ Mail's `------------------&nbsp;原始邮件&nbsp;------------------`: QQ writes
 * the entity into its text part, and its HTML part gives a no-break space (which `\s` takes).
 */
export const separatorLine = (words: string): RegExp =>
  new RegExp(String.raw`^\s*[-－―‐_=＝]{2,}(?:\s|&nbsp;)*(?:${words})(?:\s|&nbsp;)*[-－―‐_=＝]{2,}\s*$`, 'i');
/** The words of a reply's original separator, in the clients' languages. */
export const REPLY_ORIGINAL_WORDS = String.raw`original message|元のメッセージ|オリジナル\s*メッセージ|message d'origine|ursprüngliche nachricht|原始邮件|原始郵件|원본\s?메시지`;
/** The separator a client writes above the original of a reply ("-----Original Message-----", 「-----原始邮件-----」). */
export const REPLY_ORIGINAL_SEPARATOR = separatorLine(REPLY_ORIGINAL_WORDS);

/**
 * The From line of an Outlook-style header block, which Sent/Date/To/Subject lines ({@link BLOCK_NEXT}) soon follow,
 * with Outlook's labels in English, Japanese, German, French, Chinese (zh-CN 发件人/发送时间/收件人/主题, also QQ Mail's
 * and Coremail's; zh-TW 寄件者/寄件日期/收件者/主旨) and Korean (보낸 사람/보낸 날짜/받는 사람/제목), and since mail
 * round 11 Portuguese and Spanish (De/Enviado/Enviado em/Enviada em/Enviado el/Para/Assunto/Asunto), Italian
 * (Da/Inviato/Oggetto), Dutch (Van/Verzonden/Aan/Onderwerp), Danish (Fra/Sendt/Til/Emne) and Swedish
 * (Från/Skickat/Till/Ämne), and since session 51 Polish (Od/Wysłano/Do/DW/Temat) and Czech (Od/Odesláno/Komu/Kopie/
 * Předmět; crisp-oss/email-forward-parser's new_outlook_2019_pl/cs fixtures): Exchange writes a name without an
 * address on the From line, which no other rule reads. A block counts only with a From line and another label below
 * it. The bold marker (`*From:*`) takes its trailing
 * whitespace with it, so no two whitespace runs meet (quadratic on a long line of spaces).
 */
export const BLOCK_FROM = /^\s*(?:\*\s*)?(?:from|差出人|送信者|送信元|von|de|da|van|fra|från|od|发件人|寄件者|보낸\s?사람)\s*(?:\*\s*)?[:：]/i;
/** A header block's lines after its From line ({@link BLOCK_FROM}). */
export const BLOCK_NEXT =
  /^\s*(?:\*\s*)?(?:sent|date|to|cc|subject|送信日時|送信日|日付|日時|宛先|件名|gesendet|an|betreff|envoyé|objet|à|enviad[oa](?:\s(?:em|el))?|para|assunto|asunto|inviato|oggetto|verzonden|aan|onderwerp|sendt|til|emne|skickat|till|ämne|wysłano|do|dw|temat|odesláno|komu|kopie|předmět|发送时间|日期|收件人|抄送|主题|寄件日期|收件者|副本|主旨|보낸\s?날짜|날짜|받는\s?사람|참조|제목)\s*(?:\*\s*)?[:：]/i;

/**
 * A header block's recipient lines (To, Cc and their Outlook labels). A block of a From line and these alone, with no
 * date or subject and no address on its From line, is what a customer writes on top of a new mail ("De: Juan Pérez",
 * "Para: Soporte"; mail round 12), not a client's quote header.
 */
export const BLOCK_RECIPIENT =
  /^\s*(?:\*\s*)?(?:to|cc|宛先|an|à|para|aan|til|till|do|dw|komu|kopie|收件人|抄送|收件者|副本|받는\s?사람|참조)\s*(?:\*\s*)?[:：]/i;
/**
 * The date line some clients put first in their header block ("Date: Tue, 4 Mar 2025 09:12 +0000" over From/To/
 * Subject; "Sent: …" of Outlook's), in the Latin-script labels of {@link BLOCK_NEXT} and the clients' "Datum", "Fecha",
 * "Data", "Dato", with a digit of the date within its first 40 characters. Read as a block's start only with a From line
 * among the label lines right below it (src/mail/parse.ts).
 */
export const BLOCK_DATE_FIRST =
  /^\s{0,20}(?:\*\s{0,5})?(?:sent|date|datum|gesendet|envoyé|enviad[oa](?:\s(?:em|el))?|fecha|data|inviato|verzonden|sendt|dato|skickat|wysłano|odesláno)\s{0,5}(?:\*\s{0,5})?:[^\d\n]{0,40}\d/i;
/**
 * Labels of a header block written on one line ("Date: … From: … To: … Subject: …", as a client's block reads when its
 * line breaks were lost), each at the line's start or after white space: the sender's, the date's and the subject's.
 * A line counts as a block only with all three (src/mail/parse.ts), never a customer's "From: the Osaka office, to: …".
 */
export const INLINE_FROM_LABEL = /(?:^|\s)\*?(?:from|von|de|da|van|fra|från|od)\s?\*?:/i;
/**
 * The date label of a one-line header block ({@link INLINE_FROM_LABEL}); the parser looks for the date's digit right
 * after it. A bounded run to that digit in the pattern itself read as cubic to recheck on a line of labels.
 */
export const INLINE_DATE_LABEL = /(?:^|\s)\*?(?:sent|date|datum|gesendet|envoyé|enviad[oa](?:\s(?:em|el))?|fecha|inviato|verzonden|sendt|dato|skickat|wysłano|odesláno)\s?\*?:/i;
/** The subject label of a one-line header block ({@link INLINE_FROM_LABEL}). */
export const INLINE_SUBJECT_LABEL = /\s\*?(?:subject|betreff|objet|asunto|assunto|oggetto|onderwerp|emne|ämne|temat|předmět)\s?\*?:/i;

/**
 * A line quoted with a `|` mark (`| 山田様`, a bare `|`), as older Japanese mailers (and some ticket systems) quote the
 * mail replied to, also with the full-width `｜`. Read as a quote only in runs and in a reply (src/mail/parse.ts): a
 * `|` line alone is a customer's drawing, log or table as often as a quote.
 */
export const PIPE_QUOTE_LINE = /^[ \t]*[|｜](?:[ \t　]|$)/;
/**
 * A markdown or ASCII table row, never a quote mark: a `|` after the first (`| 項目 | 値 |`, `| 項目 | 値` without the
 * closing one, a row that ends in a full-width space; bug review 41b).
 */
export const PIPE_TABLE_ROW = /^[ \t]*[|｜].*[|｜]/;
