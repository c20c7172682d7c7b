/**
 * Does a mail's own text say it is a mass mailing (a newsletter, a marketing mail, a survey invitation) though its
 * headers name no list? The poller records the answer with the ticket's reply signals and the agent worker parks
 * the draft of such mail (see `bulkMailDetail`): never ignored, since a customer's real question may look alike.
 *
 * Conservative by design: a customer writing about unsubscribing ("How do I unsubscribe?", 「配信停止の方法を教えて
 * ください」, "I clicked the unsubscribe link … but"), replying to or forwarding a newsletter, or sending from a mail app
 * that adds a tracking pixel, is no mass mailing. What counts:
 * 1. an unsubscribe link in the footer: a line after the first of the text that is only an unsubscribe label
 *    ("Unsubscribe", "Click here to unsubscribe", 「配信停止はこちら」, 「配信停止をご希望の方は下記URLより…」,
 *    「メールアドレスの変更・解除はマイページから」), with its
 *    link: a URL on that line or the next, or an HTML link on its words;
 * 2. a sentence in the wording only mass mail uses, on a line after the first: "You are receiving this email
 *    because…", "To unsubscribe…", 「このメールは…ご登録いただいた方にお送りしています」, 「今後…配信を希望されない場合は」…
 *    (an opt-out asking for a reply, without a link, under a mail that asks something: only beside a second sign);
 *    or, on any line, a newsletter's "View this email in your browser";
 * 3. an unsubscribe URL (in the text, or an HTML link's target) in a mail that also has many links or a tracking pixel
 *    (a 1×1 image) in its HTML;
 * 4. machine mail no one answers: a line after the first saying that no one reads replies (「このメールには返信しないで
 *    ください」, "Please do not reply to this email", "This mailbox is not monitored"), or a ticket system's reply
 *    marker (「##- このラインより上にご返信ください -##」) on any line. Replying would answer a payment service or a
 *    vendor's helpdesk.
 * Sentences in the first person (I, me, 私), asking something (ending in `?`) or reporting what the writer was told
 * (「…と伺いました」, 「…とのご案内をいただきました」, "we were told") are never evidence: they are a customer's (but
 * "Having trouble viewing this email?" asks the reader). A pitch's 「今後のご案内が不要な方は」 counts only when its subject
 * is the mailing (ご案内, メルマガ, 配信…, not 「紙の請求書の送付」) and its paragraph is no customer's own. Only the
 * mail's own part is read: the caller cuts quoted and forwarded history away, and leaves out the HTML (which holds the
 * quoted mail too) of a reply or a forward.
 *
 * Bounded: the text's first {@link HEADER_CHARS} and last {@link FOOTER_CHARS} characters, lines cut to
 * {@link MAX_LINE_CHARS}, and the HTML's last {@link MAX_HTML_SCAN_CHARS} characters are read, each with patterns that
 * do not backtrack (alternatives of literal words, bounded gaps anchored at the start of a sentence).
 */

/** What {@link massMailingEvidence} reads of a mail. */
export interface MassMailingInput {
  /** The mail's own text: without the quoted or forwarded history of a reply or a forward. */
  text: string;
  /** True when the mail quotes or forwards another (history was cut, or it has `>` lines): its HTML is not read. */
  quoted: boolean;
  /** The HTML body as sent, when there is one. */
  html?: string | undefined;
}

// The end of the text read for a footer: mass-mail footers run from a few lines to a few thousand characters.
const FOOTER_CHARS = 4_000;
// The start of the text read for "view this email in your browser", which newsletters put first.
const HEADER_CHARS = 1_000;
// Longer lines (a text without line breaks) are cut: a footer sentence is never this long.
const MAX_LINE_CHARS = 2_000;
// The end of the HTML read for links and images: the whole of most newsletters, and the footer of any.
const MAX_HTML_SCAN_CHARS = 256 * 1024;
// Links (distinct targets) that make a mail a catalogue or a newsletter rather than a note with a signature.
const MANY_LINKS = 10;
// The longest quote of the mail in the evidence.
const MAX_QUOTE_CHARS = 100;

// Bullets, marks and brackets that frame a footer line: before its words, and (one character each) after them.
const LEADING_FRAME = /^[\s■□▼▽▲△▶▷►●○◆◇・※*＊>〉》【\[［(（「『-]+/u;
const TRAILING_FRAME_CHAR = /[\s】\]］)）」』。．.!！:：▼▽▲△◀◁]/u;
const URL = /(?:https?:\/\/|www\.)[^\s<>"'）)」】\]]+/giu;
// What ends a sentence rather than the URL before it (one character each).
const URL_TRAILER_CHAR = /[.,;:!?。、]/u;
const QUOTED_LINE = /^\s*[>＞]/;
// A sentence of the customer's: in the first person (URLs and addresses, whose `i` or `me` say nothing, aside), or a
// question.
const FIRST_PERSON = /\b(?:i|i'm|i’m|i've|i’ve|i'd|i’d|me)\b|私|わたし|わたくし|僕/iu;
const QUESTION = /[?？]\s*$/u;
// A sentence reporting what its writer was told or read (「…管理画面で切り替えられると伺いました」, 「…その旨ご連絡くださいとの
// ご案内をいただきました」, "…we were told"): a customer's, quoting someone else's wording, which no mailing does of its own.
// Not "you told us": a newsletter's "You are receiving this email because you told us…" is its own footer.
const REPORTED = /と(?:の(?:ご案内|ご説明|ご連絡|こと)を?)?(?:伺い|お伺いし|お聞きし|聞き|言われ|書かれ|記載され|案内され|説明され|いただき|頂き|受け)(?:まし|てい|てお)|\bwe (?:were|have been|'ve been|’ve been) (?:told|informed|advised)\b/iu;
// A Japanese question often ends in か。 and no question mark (「どこで配信を止められますか。」, 「オフにできるのでしょうか。」),
// after a verb or copula (ます, ません, です, でしょう, る, た, ない, の); a word that merely ends in か (ほか, いくつか,
// わずか) does not follow one of those. 教えて and できますか ask wherever they stand. No mass mail's footer asks its
// reader a question; it directs them (こちらから, 下記までご連絡ください).
const JA_QUESTION_END = /(?:ます|ません|です|でしょう|ましょう|ました|でした|ない|る|た|の)か[。．.]?\s*$/u;
const JA_ASKING = /教えて|ご教示|できますか|できませんか/u;

// What an unsubscribe label says, alone on its line (bar-separated footers: "Unsubscribe | Update preferences").
const EN_LABEL = new RegExp(
  String.raw`^(?:(?:click|tap) here to |to )?(?:unsubscribe|opt[- ]?out|manage (?:your )?(?:e-?mail |subscription |notification )?(?:preferences|settings|subscriptions?)|update (?:your )?(?:e-?mail |subscription )?preferences)(?: (?:here|now|instantly|below|from (?:this|these|our|all)(?: [\w-]+){0,3}))?$`,
  'iu',
);
const OTHER_LABEL = /^(?:(?:newsletter )?(?:abmelden|abbestellen)|(?:se )?(?:désinscrire|désabonner)|darse de baja|(?:cancelar|anular) (?:la )?suscripci[oó]n)$/iu;
// 配信停止はこちら, メルマガの配信解除, and a member site's 「メールアドレスの変更・解除はマイページから」: a bare 解除 only
// beside a 変更, and a member page only as where to go, so that the label says nothing but where to unsubscribe.
const JA_LABEL = new RegExp(
  String.raw`^(?:(?:メルマガ|メールマガジン|ニュースレター|メール|本メール|メールアドレス|登録内容|登録情報|配信先)の?)?(?:配信停止|配信解除|登録解除|購読解除|購読停止|配信設定|受信設定|配信の停止|(?:変更|登録変更|設定変更)[・/／、]解除|解除(?=[・/／、]変更))(?:[・/／、](?:変更|登録変更|登録情報の?変更|配信先変更|アドレス変更|設定変更))*(?:の?お?手続き)?(?:(?:は|の方は|を(?:ご)?希望(?:の方|される方|の場合)は)?(?:こちら|下記|以下|マイページ|会員ページ|会員サイト|マイアカウント)(?:の?URL)?(?:から|より|へ|で)?(?:お手続き(?:ください|下さい))?)?$`,
  'u',
);

// Wording only mass mail uses, at the start of a sentence.
const EN_FOOTER = new RegExp(
  `^(?:${[
    String.raw`you(?:'re|’re| are| were| have been) (?:(?:receiving|getting|sent) (?:this|these)|subscribed to|signed up (?:for|to)|opted in)\b`,
    String.raw`you (?:have )?received this (?:e-?mail|message|newsletter|mailing|communication|notification|update)\b`,
    // "This email was sent to taro@customer.example": the recipient's address, which a company's disclaimer ("This
    // message was sent to you by ACME") does not name.
    String.raw`(?:this|the) (?:e-?mail|message|newsletter|mailing) (?:was|is|has been) (?:sent|delivered|addressed) to [^\s@]+@`,
    String.raw`if you (?:no longer |do not |don't |don’t )?(?:wish|want|would like|'d like|’d like|prefer) to (?:unsubscribe|opt[- ]?out|be removed from|stop receiving)\b`,
    String.raw`if you (?:no longer|do not|don't|don’t|would rather not) (?:wish|want|would like|care) to receive (?:(?:these|this|our|further|future|any|such) )?(?:e-?mails?|messages|mailings|newsletters?|communications|updates|offers|notifications)\b`,
    String.raw`to (?:unsubscribe|opt[- ]?out|stop receiving|be removed)\b`,
    String.raw`you (?:can|may) (?:always )?(?:unsubscribe|opt[- ]?out|update your (?:e-?mail )?preferences|manage your (?:e-?mail )?(?:preferences|subscriptions?)|change your (?:e-?mail )?preferences)\b`,
    String.raw`(?:click|tap) here to (?:unsubscribe|opt[- ]?out|be removed|stop receiving|update your (?:e-?mail )?preferences)\b`,
  ].join('|')})`,
  'iu',
);
// Anywhere in a sentence: "Any customer may unsubscribe from the list at any time…".
const EN_UNSUBSCRIBE_FROM = /\b(?:unsubscribe|opt[- ]?out|be removed) (?:from|of) (?:this|these|the|our|all|future) (?:list|mailing list|mailings?|newsletters?|e-?mails?|messages|communications)\b/iu;
const JA_FOOTER = new RegExp(
  `^(?:${[
    // このメールは、○○にご登録いただいた方にお送りしています / 本メールは配信専用アドレスから送信しています
    String.raw`(?:この|本)(?:メール|メッセージ|メールマガジン|メルマガ|ニュースレター)は.{0,80}?(?:ご登録|ご購読|お申し?込み|皆様|皆さま|配信専用|送信専用).{0,40}?(?:配信|お送り|送信|お届け|送付)`,
    // 今後このようなメールの配信を希望されない場合は / ご案内の送付をご希望でない方は
    String.raw`(?:今後|以後)?.{0,30}?(?:メール|メルマガ|メールマガジン|ご案内|お知らせ|ニュースレター)の?(?:配信|送付|受信|お届け)(?:を|が)?(?:ご希望|希望され)(?:ない|でない|されない|ません)`,
    // 配信停止をご希望の方は…
    String.raw`(?:配信停止|配信解除|登録解除|購読解除|購読停止)(?:を|は)?(?:ご希望|希望される)`,
  ].join('|')})`,
  'u',
);
// 今後のご案内が不要な方は / メールの配信が不要な場合は / 最新情報が不要な方は: a seminar invitation or a pitch sent
// without list software. What is not needed is the mailing itself: a mailing's word (ご案内, お知らせ, メール, メルマガ…)
// after any words, or a bare 配信, 送付 or 情報 right after 今後; 「紙の請求書の送付が不要な場合は」 is a customer's invoice.
const JA_NOT_NEEDED_FOOTER = new RegExp(
  String.raw`^(?:今後|以後)?[の、]?(?:.{0,20}?(?:ご案内|お知らせ|メールマガジン|メール|メルマガ|ニュースレター|ダイレクトメール|DM)(?:の?(?:配信|送付|お届け|受信))?|配信|送付|(?:最新|各種|お得な|キャンペーン|セミナー|イベント)?情報)(?:が|は)?(?:ご)?不要(?:な|の)(?:方|場合|お客様|際)は`,
  'u',
);
// A footer's opt-out that asks for a reply or a word (「配信停止をご希望の方はお手数ですがご返信ください」, 「…その旨ご連絡
// ください」, "…please reply"): no list software behind it, and the line Japanese sales staff carry in their own signature.
const OPT_OUT_BY_REPLY = /(?:ご?返信|ご連絡|ご一報|お知らせ)(?:ください|下さい|いただ|頂|を?お願い)|その旨|\breply\b/iu;
// 「※本メールは名刺交換をさせていただいた方にお送りしております」: the mailing names whom it goes to, which no customer's
// own mail does. Only a second sign beside an opt-out by reply ({@link footerWording}).
const AUDIENCE_LINE = /^(?:この|本)(?:メール|メッセージ|ご案内)は.{0,80}?(?:方|皆様|皆さま|お客様|関係者様)(?:に|へ|を対象に)(?:お送り|配信|送信|お届け|送付|ご案内)/u;
// Machine mail saying that no one reads replies to it (a payment service's notice, a shop's order mail): 「このメールには
// 返信しないでください」, 「本メールは送信専用のため…」, "Please do not reply to this email", "This mailbox is not
// monitored". A customer asking 「このメールに返信しても大丈夫ですか？」 is a question, and never evidence.
// 「このメールは送信専用アドレスから送信されています」: only that the From reads no replies, as rule 4 counts it, not a
// mailing to subscribers (JA_FOOTER's 「…ご登録いただいた皆様にお送りしています」), which names its readers.
const SEND_ONLY_SENTENCE = /^(?:なお|尚|また)?[、，]?(?:この|本)(?:メール|メッセージ)は(?:配信専用|送信専用)/u;
const NAMES_SUBSCRIBERS = /ご登録|ご購読|お申し?込み|皆様|皆さま/u;
const DO_NOT_REPLY = new RegExp(
  `^(?:${[
    String.raw`${SEND_ONLY_SENTENCE.source.slice(1)}(?:の(?:メール)?アドレス|アドレス)?(?:から|より)?.{0,20}?(?:配信|お送り|送信|お届け|送付)`,
    String.raw`(?:なお|尚|また)?[、，]?(?:この|本)(?:メール|メッセージ)(?:に|へ)(?:は)?(?:ご|お)?返信(?:しないで|なさらないで|されないよう|をしないで|はご遠慮)`,
    String.raw`(?:なお|尚|また)?[、，]?(?:この|本)(?:メール|メールアドレス|アドレス)は送信専用(?:です|のため|となって|の(?:メール)?アドレス)`,
    String.raw`(?:ご|お)?返信(?:いただいても|頂いても|されても)(?:お答え|ご?回答|ご?対応|お返事)(?:でき|いたしかね|致しかね)`,
    String.raw`(?:please )?(?:do not|don't|don’t) reply(?: directly)? to this (?:e-?mail|message|notification)\b`,
    String.raw`(?:this|the) (?:mailbox|e-?mail address|address|inbox) is (?:not monitored|unmonitored|not checked)\b`,
    String.raw`replies to this (?:e-?mail|message|address) (?:are|will) not (?:be )?(?:monitored|read|answered)\b`,
  ].join('|')})`,
  'iu',
);
// A ticket system's line above which a reply is to be typed (Zendesk's and Freshdesk's 「##- このラインより上にご返信
// ください -##」, "##- Please type your reply above this line -##"), whole on its line: a vendor's helpdesk wrote it.
const REPLY_ABOVE_MARKER =
  /^#{0,3}-?\s*(?:(?:please\s+)?(?:type\s+|write\s+|enter\s+)?(?:your\s+)?(?:reply|response)\s+above\s+this\s+line|(?:この|こちらの)?(?:ライン|行|線)より(?:上|上部)に(?:ご)?返信(?:を(?:入力|記入))?(?:して)?(?:ください|下さい))\s*-?#{0,3}$/iu;
// "View this email in your browser", and the Japanese "このメールが正しく表示されない場合は": newsletters' first line.
const VIEW_IN_BROWSER = new RegExp(
  `^(?:${[
    String.raw`(?:view|read|open|see) (?:this|the|our|it)(?: (?:e-?mail|message|newsletter|issue))? (?:in|on|with) (?:your|a) (?:web )?browser\b`,
    String.raw`view (?:this (?:e-?mail|message|newsletter) )?(?:online|in browser)\b`,
    String.raw`(?:having )?trouble (?:viewing|reading|seeing) this (?:e-?mail|message|newsletter)\b`,
    String.raw`(?:この|本)?(?:メール|メルマガ|メールマガジン|ニュースレター)が(?:正しく|うまく)?表示されない(?:場合|方)は`,
  ].join('|')})`,
  'iu',
);
// An unsubscribe link's target: …/unsubscribe, …/optout, …/remove, Japanese sites' …/kaijo (解除), …/teishi (停止).
const UNSUBSCRIBE_TARGET = /unsub|opt[-_]?out|remov|kaijo|teishi/iu;

// HTML: an anchor's start tag, an image's tag. `[^<>]*` stops at the next tag, so no attempt reads past it.
const ANCHOR = /<a\b([^<>]*)>/giu;
const IMAGE = /<img\b[^<>]*>/giu;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/iu;
// width=1, width="1", width: 1px (and 0, which some senders write).
const ONE_PIXEL_WIDTH = /\bwidth\s*(?:=\s*["']?|:\s*)[01](?:px)?(?![\d.])/iu;
const ONE_PIXEL_HEIGHT = /\bheight\s*(?:=\s*["']?|:\s*)[01](?:px)?(?![\d.])/iu;
// The visible words of an anchor are read up to this far after its start tag, of this many anchors at most (a
// newsletter has a few hundred links; the rest are counted as links all the same).
const MAX_ANCHOR_CHARS = 500;
const MAX_ANCHORS = 2_000;

interface Anchor {
  href: string;
  /** Its words as a reader sees them, lower-case, spaces collapsed. */
  text: string;
}

/** What the HTML of a mail shows of links and tracking. */
interface HtmlSigns {
  anchors: Anchor[];
  /** Distinct http(s) link targets. */
  links: number;
  trackingPixel: boolean;
}

/**
 * Why a mail's own text reads as a mass mailing, as the reason a person reads: `an unsubscribe link in the footer
 * (“Unsubscribe” https://…)`, `a mass-mail footer line (“You are receiving this email because…”)`, `a mass-mail line
 * (“View this email in your browser”)`, `an unsubscribe link (https://…) among 14 links`; undefined for mail that
 * does not (see the module's comment for what counts).
 */
export function massMailingEvidence(input: MassMailingInput): string | undefined {
  const html = input.quoted || !input.html ? undefined : htmlSigns(input.html);
  const { head, footer } = windows(input.text);
  return unsubscribeLabel(footer, html) ?? footerWording(head, footer) ?? unsubscribeUrl(footer, html) ?? machineOnlyLine(head, footer);
}

/** A line of the text, whether the text's first line (its main text, never a footer) is above it, and its paragraph. */
interface Line {
  text: string;
  afterMain: boolean;
  /** Where its paragraph (the lines between blank lines) starts in the text: the same number for each of its lines. */
  paragraph: number;
}

/** The lines of the text's start and of its end (quoted lines left out), each cut to {@link MAX_LINE_CHARS}. */
function windows(text: string): { head: Line[]; footer: Line[] } {
  const firstLineEnd = text.indexOf('\n', Math.max(0, text.search(/\S/u)));
  const toLines = (part: string, start: number): Line[] => {
    const lines: Line[] = [];
    let offset = start;
    let paragraph = start;
    for (const line of part.split('\n')) {
      const begins = offset;
      offset += line.length + 1;
      if (line.trim() === '') paragraph = offset;
      if (line.trim() === '' || QUOTED_LINE.test(line)) continue;
      lines.push({ text: line.slice(0, MAX_LINE_CHARS).trim(), afterMain: firstLineEnd >= 0 && begins > firstLineEnd, paragraph });
    }
    return lines;
  };
  const footerStart = Math.max(0, text.length - FOOTER_CHARS);
  // A window that starts mid-line begins at the next line, if there is one.
  const nextLine = footerStart === 0 ? 0 : text.indexOf('\n', footerStart) + 1;
  const cut = nextLine > 0 ? nextLine : footerStart;
  return { head: toLines(text.slice(0, HEADER_CHARS), 0), footer: toLines(text.slice(cut), cut) };
}

/** The sentences of a line: split after `.`, `!` or `?` and a space, and after `。！？`. */
function sentences(line: string): string[] {
  return line.split(/(?<=[.!?])\s+|(?<=[。！？])/u).map((s) => s.trim()).filter((s) => s !== '');
}

function isFirstPerson(sentence: string): boolean {
  const words = sentence.split(/\s+/u).filter((word) => !word.includes('@') && !/^\W*(?:https?:|www\.)/iu.test(word));
  return FIRST_PERSON.test(words.join(' '));
}

function isCustomers(sentence: string): boolean {
  return isFirstPerson(sentence) || asksSomething(sentence) || REPORTED.test(sentence);
}

/**
 * True when a sentence asks something: it ends in a question mark, or in a Japanese question's か (with or without 。),
 * or asks to be told (教えて, ご教示, できますか). Links are left out, whose query may hold a `?`.
 */
export function asksSomething(sentence: string): boolean {
  const words = sentence.replace(/(?:https?:\/\/|www\.)\S*/giu, ' ');
  return QUESTION.test(words) || JA_QUESTION_END.test(words) || JA_ASKING.test(words);
}

/** The sentences of `text` that ask something ({@link asksSomething}), line by line. */
export function questionSentences(text: string): string[] {
  return text.split('\n').flatMap(sentences).filter(asksSomething);
}

/** `text` without its framing marks and brackets, spaces collapsed. */
function unframed(text: string): string {
  return withoutTrailing(shown(text), TRAILING_FRAME_CHAR);
}

/** `text` without the characters of `chars` at its end: a loop, where a pattern `[…]+$` retries from every position. */
function withoutTrailing(text: string, chars: RegExp): string {
  let end = text.length;
  while (end > 0 && chars.test(text.charAt(end - 1))) end -= 1;
  return text.slice(0, end);
}

/** `text` as the evidence quotes it: without the marks before it, spaces collapsed. */
function shown(text: string): string {
  return text.replace(LEADING_FRAME, '').replace(/\s+/gu, ' ').trim();
}

/** The URLs in `text`, without the punctuation that ends its sentence. */
function urlsIn(text: string): string[] {
  return (text.match(URL) ?? []).map((url) => withoutTrailing(url, URL_TRAILER_CHAR));
}

function isLabel(text: string): boolean {
  return text.length <= 60 && (EN_LABEL.test(text) || OTHER_LABEL.test(text) || JA_LABEL.test(text));
}

/** Rule 1: an unsubscribe label alone on a footer line, with its link. */
function unsubscribeLabel(footer: readonly Line[], html: HtmlSigns | undefined): string | undefined {
  for (let i = 0; i < footer.length; i++) {
    const line = footer[i]!;
    if (!line.afterMain || isCustomers(line.text)) continue;
    for (const segment of line.text.split(/\s[|｜·•／/]\s|\s*[｜]\s*/u)) {
      const label = unframed(segment.replace(URL, ' '));
      if (!isLabel(label)) continue;
      const nextLine = footer[i + 1]?.text ?? '';
      const nextUrl = /^[<(（]?(?:https?:\/\/|www\.)/iu.test(nextLine) ? urlsIn(nextLine)[0] : undefined;
      // The link on the label's words: the anchor whose words are the label, else one whose words are in it ("here").
      const words = label.toLowerCase();
      const anchors = html?.anchors.filter((a) => a.text.length >= 2 && words.includes(a.text)) ?? [];
      const anchor = anchors.find((a) => a.text === words) ?? anchors.find((a) => UNSUBSCRIBE_TARGET.test(a.href)) ?? anchors[0];
      const target = urlsIn(segment)[0] ?? nextUrl ?? anchor?.href;
      if (target !== undefined) return `an unsubscribe link in the footer (“${label}” ${quote(target)})`;
    }
  }
  return undefined;
}

/**
 * Rule 2: a sentence in the wording only mass mail uses (in a footer, after the first line of the text). An opt-out
 * by reply without a link ({@link OPT_OUT_BY_REPLY}) under a mail that asks something of its own is a salesperson's
 * signature line as often as a mailing's: it counts only beside a second footer line, or a line naming the mailing's
 * audience ({@link AUDIENCE_LINE}). Rules 1, 3 and 4 are signs of their own.
 */
function footerWording(head: readonly Line[], footer: readonly Line[]): string | undefined {
  let optOutByReply: string | undefined;
  let otherSigns = 0;
  for (const line of footer) {
    if (!line.afterMain) continue;
    for (const sentence of sentences(line.text)) {
      if (isCustomers(sentence)) continue;
      const start = unframed(sentence);
      if (AUDIENCE_LINE.test(start)) otherSigns += 1;
      if (SEND_ONLY_SENTENCE.test(start) && !NAMES_SUBSCRIBERS.test(start)) continue;
      const notNeeded = JA_NOT_NEEDED_FOOTER.test(start) && !inCustomersParagraph(line, footer);
      if (!(EN_FOOTER.test(start) || JA_FOOTER.test(start) || notNeeded || EN_UNSUBSCRIBE_FROM.test(sentence))) continue;
      const evidence = `a mass-mail footer line (“${quote(shown(sentence))}”)`;
      if (!OPT_OUT_BY_REPLY.test(sentence) || urlsIn(sentence).length > 0) return evidence;
      if (optOutByReply === undefined) optOutByReply = evidence;
      else otherSigns += 1;
    }
  }
  if (optOutByReply !== undefined && (otherSigns > 0 || !asksOwnQuestion([...head, ...footer]))) return optOutByReply;
  // "Having trouble viewing this email?" asks the reader, not us.
  for (const line of [...head, ...footer]) {
    for (const sentence of sentences(line.text)) {
      if (!isFirstPerson(sentence) && VIEW_IN_BROWSER.test(unframed(sentence))) return `a mass-mail line (“${quote(shown(sentence))}”)`;
    }
  }
  return undefined;
}

/**
 * How the evidence of a do-not-reply line ({@link DO_NOT_REPLY}) begins: the one sign that says only that the From
 * reads no replies, which a form or CRM service sending for a person in Reply-To writes too (see `bulkMailDetail`).
 */
export const DO_NOT_REPLY_EVIDENCE = 'a do-not-reply line';

// A mailing's invitation or pitch put as a question (「ぜひご参加いただけませんでしょうか？」, 「ご検討いただけますか」,
// "Would you like to join?"): it asks the reader to come or to buy, which a customer asking us never does.
const INVITATION = /ご参加|ご検討|ご出席|ご来場|お申し?込み(?:いただけ|ください|頂け|を?お待ち)|\bwould you (?:like|be interested) (?:to )?(?:join|attend|register|sign up|in (?:joining|attending))\b/iu;

/**
 * Whether a sentence of `lines` asks something of its own ({@link asksSomething}): a customer's question, not an
 * invitation's ({@link INVITATION}).
 */
function asksOwnQuestion(lines: readonly Line[]): boolean {
  return lines.some((line) => sentences(line.text).some((sentence) => asksSomething(sentence) && !INVITATION.test(sentence)));
}

/**
 * Whether `line` stands in a customer's own paragraph: one of its lines asks something of its own ({@link asksOwnQuestion})
 * or speaks in the first person. A pitch's 「今後のご案内が不要な方は」 is a footer line, set apart from its text or
 * under its sender's name; in a paragraph that goes on 「解約の方法を教えてください。」 it is the customer's words.
 */
function inCustomersParagraph(line: Line, lines: readonly Line[]): boolean {
  const paragraph = lines.filter((other) => other.paragraph === line.paragraph);
  return asksOwnQuestion(paragraph) || paragraph.some((other) => sentences(other.text).some(isFirstPerson));
}

/**
 * Rule 4: a line saying that no one reads replies ({@link DO_NOT_REPLY}, in a footer, after the first line of the
 * text), or a ticket system's reply marker on any line ({@link REPLY_ABOVE_MARKER}).
 */
function machineOnlyLine(head: readonly Line[], footer: readonly Line[]): string | undefined {
  for (const line of [...head, ...footer]) {
    if (REPLY_ABOVE_MARKER.test(line.text)) return `a ticket system's reply marker (“${quote(line.text)}”)`;
  }
  for (const line of footer) {
    if (!line.afterMain) continue;
    for (const sentence of sentences(line.text)) {
      if (!isCustomers(sentence) && DO_NOT_REPLY.test(unframed(sentence))) return `${DO_NOT_REPLY_EVIDENCE} (“${quote(shown(sentence))}”)`;
    }
  }
  return undefined;
}

/** Rule 3: an unsubscribe URL in a mail with many links or a tracking pixel. */
function unsubscribeUrl(footer: readonly Line[], html: HtmlSigns | undefined): string | undefined {
  if (!html || (html.links < MANY_LINKS && !html.trackingPixel)) return undefined;
  const own = footer.flatMap((line) => sentences(line.text).filter((s) => !isCustomers(s)));
  const inText = own.flatMap(urlsIn).find((url) => UNSUBSCRIBE_TARGET.test(url));
  // A link's target counts when its words stand in a footer sentence that is no customer's.
  const words = own.map((s) => s.toLowerCase());
  const target = inText ?? html.anchors.find((a) => UNSUBSCRIBE_TARGET.test(a.href) && a.text.length >= 2 && words.some((s) => s.includes(a.text)))?.href;
  if (target === undefined) return undefined;
  return `an unsubscribe link (${quote(target)}) ${html.links >= MANY_LINKS ? `among ${html.links} links` : 'and a tracking pixel (a 1×1 image)'}`;
}

/** The links and tracking images in the end of an HTML body. */
function htmlSigns(fullHtml: string): HtmlSigns {
  const html = fullHtml.length > MAX_HTML_SCAN_CHARS ? fullHtml.slice(-MAX_HTML_SCAN_CHARS) : fullHtml;
  const anchors: Anchor[] = [];
  const targets = new Set<string>();
  for (const match of html.matchAll(ANCHOR)) {
    const href = HREF.exec(match[1] ?? '');
    const target = decodeEntities((href?.[1] ?? href?.[2] ?? href?.[3] ?? '').trim());
    if (/^https?:\/\//iu.test(target)) targets.add(target);
    if (anchors.length >= MAX_ANCHORS || target === '' || target.startsWith('#')) continue;
    const after = match.index + match[0].length;
    const close = html.slice(after, after + MAX_ANCHOR_CHARS).search(/<\/a\s*>/iu);
    const inner = html.slice(after, close < 0 ? after : after + close);
    const text = decodeEntities(inner.replace(/<[^<>]*>/gu, ' ')).replace(/\s+/gu, ' ').trim().toLowerCase();
    anchors.push({ href: target, text });
  }
  let trackingPixel = false;
  for (const [tag] of html.matchAll(IMAGE)) {
    if (ONE_PIXEL_WIDTH.test(tag) && ONE_PIXEL_HEIGHT.test(tag)) {
      trackingPixel = true;
      break;
    }
  }
  return { anchors, links: targets.size, trackingPixel };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|nbsp);/giu, (_m, name: string) => ENTITIES[name.toLowerCase()] ?? '');
}

/** `text` cut to {@link MAX_QUOTE_CHARS} characters (never half a surrogate pair), with `…` when cut. */
function quote(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_QUOTE_CHARS ? text : `${chars.slice(0, MAX_QUOTE_CHARS).join('').trimEnd()}…`;
}
