// Mail that a machine sends for a person, and words of languages the reply decision ({@link ./classify.ts}) did not
// know: read here so that classify.ts only splices them in (mail audit round 7, tmp/mailaudit7/REPORT.md).
// - Notices a person must act on though they come from a machine: a voicemail or fax delivered by mail, and a
//   marketplace's notice that a buyer asked something. A reply goes to the service and reaches no one; ignoring them
//   drops a customer's call, fax or question.
// - Out-of-office names and absence words, thanks-only phrases and read-receipt prefixes in es/de/pt/fr/it/vi/th.

/** A notice a person must act on, as {@link serviceNoticeOf} found it in the parsed mail. */
export interface ServiceNotice {
  /** `voicemail/fax`: a call or fax delivered by mail; `marketplace inquiry`: a marketplace says a buyer asked us. */
  kind: 'voicemail/fax' | 'marketplace inquiry' | 'read receipt';
  /** The words that showed it, for the reason a person reads. */
  evidence: string;
}

/** What {@link serviceNoticeOf} reads of a parsed mail. */
export interface NoticeMail {
  subject?: string | undefined;
  text?: string | undefined;
  question?: string | undefined;
  from?: { address: string } | undefined;
  attachments?: ReadonlyArray<{ contentType: string; filename?: string | undefined }> | undefined;
}

// How much of the text is read: a notice says what it is at the top.
const NOTICE_SCAN_CHARS = 2_000;

// A voicemail or fax service's subject: "New voicemail from (415) 555-0132", "New Voice Message from WIRELESS CALLER",
// "eFax message from "0312345678" - 2 page(s)", "You have received a 2 page fax", 【faximo】FAX受信のお知らせ,
// 【留守番電話】新しいメッセージ. A customer's subject may say the same words ("New voicemail feature"), so a subject
// alone decides nothing: the body's notice shape or a telephony sender must stand beside it.
const PHONE_SUBJECT =
  /^(?:\s*(?:[【\[［][^】\]］\n]{0,20}[】\]］]|fwd?:|wg:|tr:|転送:))*\s*(?:new voice ?(?:mail|message)s? from\b|voice ?(?:mail|message) from\b|missed call (?:with|and) voice ?mail\b|efax message from\b|you have (?:received )?an? (?:new )?(?:voice ?mail|voice message|\d+[- ]page fax|fax)\b|fax (?:received|message) from\b)|(?:FAX|ＦＡＸ|ファクス|ファックス)受信(?:のお知らせ|通知|しました)|【留守番電話】|留守番電話(?:の)?(?:お知らせ|通知)|新着(?:留守番電話|ボイスメール)|ボイスメール(?:のお知らせ|通知|が届きました)/iu;
// What a voicemail or fax notice says at its top: "You have a new voice message", "You have received a 2 page fax",
// "Transcription:", "Play message", 「FAXを受信しました」, 「留守番電話に新しいメッセージがあります」.
const PHONE_BODY =
  /\byou have (?:received )?(?:a |an )?new (?:voice ?mail|voice message|fax)\b|\byou have received an? (?:\d+[- ]page )?fax\b|^[^\S\r\n\u2028\u2029]*transcription(?: \(beta\))?\s*:|\bvoice ?mail transcript(?:ion)?\b|^[^\S\r\n\u2028\u2029]*play message\s*$|(?:FAX|ＦＡＸ|ファクス|ファックス)(?:を)?受信(?:しました|いたしました)|留守番電話(?:サービス)?(?:に|へ|で)?(?:新しい|新着の?)?(?:メッセージ|伝言|録音)|ボイスメールが届きました/imu;
// Telephony and fax-to-mail services (their own domains, never a shared mail provider's).
const PHONE_SERVICE_DOMAINS = ['ringcentral.com', 'efax.com', 'j2.com', 'myfax.com', 'metrofax.com', 'faximo.jp', 'dialpad.com', '8x8.com', 'vonage.com', 'nextiva.com', 'aircall.io', 'grasshopper.com', 'ooma.com', 'fax.plus', 'sfax.com'];
// The voicemail sender of Google Voice (google.com sends much else).
const PHONE_SERVICE_MAILBOXES = ['voice-noreply@google.com', 'voice-noreply@voice.google.com'];
// The local part of a phone system's or fax machine's own mailbox (voicemail@, pbx@, fax-server@), no person's.
const PHONE_MACHINE_LOCAL_PART = /^(?:voice-?mail|vmail|vm|pbx|ipbx|fax|efax|ifax|fax-?server|fax-?mail|telephony|voice)(?:$|[-_.+\d])/iu;
// A fax as its machine attaches it: TIFF or the G3 fax type, or a file named as one.
const FAX_IMAGE = /^image\/(?:tiff|g3fax)$|^application\/(?:x-)?fax$/iu;

// A marketplace's or shop system's notice that a buyer asked something: 「お客様から新しいお問い合わせが届きました」,
// 「お客様から商品に関する質問が届きました」, 「お問い合わせがありました」, "You have a new message from a buyer".
// The verb is required: 「お客様からのお問い合わせが増えています」 is a newsletter's.
const INQUIRY_ARRIVED =
  /(?:お客様|購入者|ご購入者様?|バイヤー)から[^。\n]{0,20}?(?:お問い?合わ?せ|問い?合わ?せ|ご?質問|メッセージ)が(?:届きました|届いています|ありました|あります)|(?:新しい|新着の?)(?:お問い?合わ?せ|ご?質問|メッセージ)が(?:届きました|届いています|あります)|(?:お問い?合わ?せ|ご?質問)が(?:届きました|ありました)|\b(?:you have (?:received )?)?an? new (?:message|inquiry|enquiry|question) from (?:a |an |the |your )?(?:buyer|customer|shopper|guest)\b|\b(?:a |the )?(?:buyer|customer|shopper) (?:has )?(?:sent you a (?:message|question)|asked (?:you )?a question)\b/iu;

/**
 * A voicemail or fax notice, a marketplace's notice of a buyer's inquiry, or a read receipt's text, or undefined.
 * `machineSender` says whether the sender is a no-reply mailbox (the caller knows its rules). A voicemail or fax
 * notice needs two signs: its subject's or body's notice shape ({@link PHONE_SUBJECT}, {@link PHONE_BODY}), and a
 * machine's: a telephony service's address, a no-reply sender, the recording (audio/*) or the fax ({@link FAX_IMAGE})
 * attached. Both shapes stand for a machine's sign only from a phone system's own mailbox
 * ({@link PHONE_MACHINE_LOCAL_PART}): a person writes 「FAX受信しましたが…」 or forwards a voicemail notice to ask
 * about it.
 * A marketplace inquiry needs a no-reply sender and the words that an inquiry arrived ({@link INQUIRY_ARRIVED}).
 */
export function serviceNoticeOf(mail: NoticeMail, machineSender: boolean): ServiceNotice | undefined {
  const subject = mail.subject ?? '';
  const text = (mail.text ?? mail.question ?? '').slice(0, NOTICE_SCAN_CHARS);
  const subjectShape = PHONE_SUBJECT.exec(subject)?.[0];
  const bodyShape = PHONE_BODY.exec(text)?.[0]?.trim();
  const address = mail.from?.address.toLowerCase() ?? '';
  const service = PHONE_SERVICE_MAILBOXES.includes(address) || PHONE_SERVICE_DOMAINS.some((domain) => address.endsWith(`@${domain}`) || address.endsWith(`.${domain}`));
  // The recording or the fax image itself; a PDF beside fax words may as well be a customer's scan.
  const recording = (mail.attachments ?? []).some(({ contentType }) => /^audio\//iu.test(contentType) || FAX_IMAGE.test(contentType));
  const machine = service || machineSender || recording;
  const phoneMailbox = PHONE_MACHINE_LOCAL_PART.test(address.slice(0, address.lastIndexOf('@')));
  if ((subjectShape && bodyShape && phoneMailbox) || ((subjectShape || bodyShape) && machine)) return { kind: 'voicemail/fax', evidence: (subjectShape ? subject : bodyShape!).slice(0, 120) };
  const receipt = readReceiptTextOf(text);
  if (receipt) return { kind: 'read receipt', evidence: receipt };
  const inquiry = machineSender ? (INQUIRY_ARRIVED.exec(text) ?? INQUIRY_ARRIVED.exec(subject))?.[0] : undefined;
  return inquiry ? { kind: 'marketplace inquiry', evidence: inquiry.slice(0, 120) } : undefined;
}

/** The park reason of a {@link ServiceNotice} of kind voicemail/fax or marketplace inquiry. */
export function serviceNoticeParkReason(notice: ServiceNotice, sender: string | undefined): string | undefined {
  if (notice.kind === 'voicemail/fax') {
    return `voicemail/fax notice (“${notice.evidence}”) from ${sender ?? 'a telephony service'}: a person listens/reads and calls back; a reply would go to the service`;
  }
  if (notice.kind === 'marketplace inquiry') {
    return `a marketplace's notice from the no-reply address ${sender ?? '(none)'} says a customer's inquiry has arrived (“${notice.evidence}”): a person answers it in the marketplace's own tool; a reply to this address reaches no one`;
  }
  return undefined;
}

// Outlook's plain-text read receipt, as each language writes it: the first line names the mail, a line below says it
// was read ("Your message … was read on …", "Su mensaje … fue leído el …", "Sua mensagem … foi lida em …", "Ihre
// Nachricht … wurde am … gelesen", "Votre message … a été lu le …", "Il messaggio … è stato letto il …"), in a short text.
const READ_RECEIPT_OPENING = /^[^\S\r\n\u2028\u2029]*(?:your message|su mensaje|sua mensagem|ihre nachricht|votre message|il (?:suo )?messaggio|uw bericht)\s*$/imu;
const READ_RECEIPT_READ =
  /^[^\S\r\n\u2028\u2029]*(?:was read on|fue leído el|foi lid[ao] (?:em|a)|wurde am .{1,80} gelesen|a été lu le|è stato letto (?:il|in data)|is gelezen op)\b/imu;
const MAX_READ_RECEIPT_CHARS = 800;
// The receipt's line naming the subject of the mail that was read, which may ask ("Asunto: Re: ¿Cómo exporto?").
// Security review 14 (LOW 3): every pattern of this file that starts a line under /m reads the blanks before its
// words without line breaks. `^\s*` tried at each of n line starts ran over every blank line after it: 100 KB of
// newlines took 10 s here.
const RECEIPT_SUBJECT_LINE = /^[^\S\r\n\u2028\u2029]*(?:subject|asunto|assunto|betreff|objet|oggetto|onderwerp|ämne|主题|主題|제목|件名)\s*[:：].*$/gimu;

/** The read line of an Outlook read receipt's text ({@link READ_RECEIPT_OPENING}, {@link READ_RECEIPT_READ}), or undefined. */
function readReceiptTextOf(text: string): string | undefined {
  if (text.length > MAX_READ_RECEIPT_CHARS || !READ_RECEIPT_OPENING.test(text) || asksBesideReceipt(text)) return undefined;
  return READ_RECEIPT_READ.exec(text)?.[0]?.trim();
}

/**
 * Whether a mail under a read-receipt subject asks something: a `?`, `？` or `¿` outside the receipt's own subject line
 * ({@link RECEIPT_SUBJECT_LINE}). No receipt asks; a customer whose subject begins "Lu :" may.
 */
export function asksBesideReceipt(text: string): boolean {
  return /[?？¿]/u.test(text.replace(RECEIPT_SUBJECT_LINE, ''));
}

/**
 * Read-receipt subject prefixes beside 開封済み/既読/Read (Outlook's, localized): es Leído, pt Lida/Lido, de Gelesen,
 * fr Lu, it Letto, nl Gelezen, sv Läst, zh 已读/已讀, ko 읽음. Only with a colon, and only on a reply or over a receipt's
 * text: a customer's subject may begin with the word.
 */
export const READ_RECEIPT_PREFIXES = [String.raw`le[íi]do`, 'lida', 'lido', 'gelesen', 'lu', 'letto', 'gelezen', 'läst', '已读', '已讀', '읽음'];

/** Out-of-office subject names in Vietnamese and Thai, as Outlook writes them before the answered subject. */
export const MORE_AUTO_REPLY_NAMES = [String.raw`tr[ảa] l[ờo]i t[ựu] [đd][ộo]ng`, 'ตอบกลับอัตโนมัติ'];

/**
 * That the writer is away now, in Vietnamese and Thai: nghỉ phép (on leave), không có mặt tại văn phòng (not in the
 * office), đi công tác (on a business trip); ไม่อยู่ที่สำนักงาน / ไม่อยู่ (not in), ลาพักร้อน (on vacation leave), ลาพัก.
 * Thai writes no spaces between words, so no word boundaries.
 */
export const MORE_ABSENCE = [
  String.raw`(?:đang|hiện đang|sẽ) (?:nghỉ phép|đi công tác|vắng mặt)|(?:hiện )?không có mặt (?:tại|ở) văn phòng`,
  String.raw`ไม่อยู่(?:ที่สำนักงาน|ที่ออฟฟิศ|ในสำนักงาน)|ลาพักร้อน|ลาพักผ่อน|เดินทางไปต่างประเทศ`.normalize('NFKC'),
];

/**
 * A notice's own phrasings beside the absence in Vietnamese and Thai: when the writer answers (sẽ trả lời … khi quay
 * lại), for urgent matters (trường hợp khẩn cấp vui lòng, หากมีเรื่องด่วนกรุณา) before the contact, until when
 * (จนถึงวันที่). The Vietnamese contact word (liên hệ) is left in the line: the residue rule
 * ({@link saysMoreThanAwayNotice}) takes out a colleague's name only right after it. The Thai urgent phrase takes its
 * contact and a คุณ name with it: anywhere else 「ติดต่อคุณเรื่องเงินคืน」 is the writer's "contacting you about the refund"
 * (bug review 41d).
 */
export const MORE_ABSENCE_NOTICE_PHRASES = [
  String.raw`sẽ (?:trả lời|phản hồi|liên hệ lại)[^.]{0,30}?khi (?:quay lại|trở lại|trở về)|(?:trường hợp|nếu có (?:việc|vấn đề)) (?:khẩn cấp|gấp)[, ]*(?:xin )?(?:vui lòng )?(?=liên hệ)`.normalize('NFKC'),
  String.raw`(?:หากมี|ถ้ามี|กรณี)เรื่อง(?:ด่วน|เร่งด่วน)(?:กรุณา|โปรด)?ติดต่อ(?:คุณ[\p{Script=Thai}]{1,15}(?=\s|$))?|จนถึงวันที่|ตั้งแต่วันที่`.normalize('NFKC'),
];

/**
 * Something asked of us in Vietnamese and Thai, which an out-of-office notice never asks outside its own phrasings:
 * please (vui lòng, làm ơn, xin, nhờ, giúp), the imperative hãy, cancel (hủy), when / how (khi nào, bao giờ, làm sao, thế nào), not yet or
 * a question's closing particle (chưa, a sentence ending không); กรุณา, รบกวน, ช่วย, โปรด (please), ต้องการ, อยาก
 * (want), ยกเลิก (cancel), ไหม, มั้ย, หรือไม่, หรือเปล่า (question particles), เมื่อไร, อย่างไร, ยังไง (when, how),
 * ยังไม่ (not yet). Vietnamese words are read between letters (`\b` knows no ư or ơ); Thai writes no spaces. `xin` is
 * not the one of xin chào (hello), xin cảm ơn (thank you) or xin lỗi (sorry).
 */
export const MORE_ABSENCE_REQUEST = [
  String.raw`(?<!\p{L})(?:vui lòng|làm ơn|xin(?! chào| cảm ơn| cám ơn| lỗi)|nhờ|giúp|hãy|hủy|khi nào|bao giờ|làm sao|thế nào|chưa)(?!\p{L})|(?<!\p{L})không\s*$`.normalize('NFKC'),
  String.raw`กรุณา|รบกวน|ช่วย|โปรด|ต้องการ|อยาก|ยกเลิก|ไหม|มั้ย|หรือไม่|หรือเปล่า|เมื่อไร|เมื่อไหร่|อย่างไร|ยังไง|ยังไม่`.normalize('NFKC'),
];

/**
 * The trouble a customer names in Vietnamese and Thai, which no notice writes: lỗi (error; not xin lỗi, sorry),
 * không được, không thể (cannot; not "cannot read email" of a notice), vỡ, hỏng (broken), sai (wrong), thiếu (missing),
 * chưa nhận, không nhận (not received; not a notice's "not receiving email"); ไม่ได้ (cannot), ผิดพลาด (error),
 * ปัญหา (problem).
 */
export const MORE_CUSTOMER_TROUBLE = [
  String.raw`(?<!xin )(?<!\p{L})lỗi(?!\p{L})|(?<!\p{L})không được(?!\p{L})|(?<!\p{L})không thể(?! (?:trả lời|kiểm tra|đọc|truy cập|phản hồi) (?:email|e-mail|thư))(?!\p{L})|(?<!\p{L})(?:vỡ|hỏng|sai|thiếu|chưa nhận|không nhận(?! (?:được )?(?:email|e-mail|thư)))(?!\p{L})`.normalize('NFKC'),
  String.raw`ไม่ได้|ผิดพลาด|ปัญหา`.normalize('NFKC'),
];

// What a Thai notice line holds beside its absence and notice phrases: who (ผม, ดิฉัน…), now (ขณะนี้, ตอนนี้…), the
// dates (months, ถึง "to", วันที่ "the day", พ.ศ.), polite particles and thanks. Not the contact word: a colleague's
// name is read only inside the urgent phrase ({@link MORE_ABSENCE_NOTICE_PHRASES}); a ติดต่อคุณ… elsewhere is the
// writer's own clause (bug review 41d). Thai writes no sentence marks, so a line is one sentence: what is left once these are taken out is the
// writer's own, and a notice leaves almost nothing.
const THAI_NOTICE_FILLER = new RegExp(
  String.raw`ขณะนี้|ตอนนี้|ปัจจุบัน|ช่วงนี้|สัปดาห์นี้|วันนี้|กระผม|ผม|ดิฉัน|ฉัน|เรา|ถึง|วันที่|และ|พ\.ศ\.|มกราคม|กุมภาพันธ์|มีนาคม|เมษายน|พฤษภาคม|มิถุนายน|กรกฎาคม|สิงหาคม|กันยายน|ตุลาคม|พฤศจิกายน|ธันวาคม|ครับ|ค่ะ|นะ|ขอบคุณ`.normalize('NFKC'),
  'gu',
);
// The most Thai letters a notice line may keep beyond its phrases and {@link THAI_NOTICE_FILLER}.
const MAX_THAI_NOTICE_LEFTOVER = 3;

/**
 * Whether a line of Thai says more than a notice: what is left of `rest` (the line without its notice phrases) once
 * the absence (`absence`, global) and {@link THAI_NOTICE_FILLER} are taken out holds more than
 * {@link MAX_THAI_NOTICE_LEFTOVER} Thai letters. False for text without Thai.
 */
function saysMoreThanThaiNotice(rest: string, absence: RegExp): boolean {
  if (!/\p{Script=Thai}/u.test(rest)) return false;
  const left = rest.replace(absence, ' ').replace(THAI_NOTICE_FILLER, ' ').replace(/[^\p{Script=Thai}]/gu, '');
  return left.length > MAX_THAI_NOTICE_LEFTOVER;
}

// A Vietnamese word: lower case and holding a letter no other Latin language the desk meets writes (ă, đ, ơ, ư, ạ…ỹ).
// A colleague's name alone (Trần Thị Lan) in an English notice does not make its sentence Vietnamese.
const VIETNAMESE_WORD = /(?<!\p{L})\p{Ll}*(?=\p{Ll})[ăđơư\u1EA0-\u1EF9]\p{Ll}*(?!\p{L})/u;
// The contact word and the colleague named right after it, by title or capitals: liên hệ chị Lan, liên hệ anh Nguyễn
// Văn Nam. Case-sensitive, so that only a name is taken.
const VIETNAMESE_CONTACT = new RegExp(String.raw`[Ll]iên hệ(?:\s+với)?(?:\s+(?:anh|chị|ông|bà|cô|bạn|em))?(?:\s+\p{Lu}\p{L}*){0,4}`.normalize('NFKC'), 'gu');
// What a Vietnamese notice sentence holds beside its absence and notice phrases: who (tôi, chúng tôi, anh, chị…), the
// dates (từ ngày 1 đến hết ngày 5 tháng 12, tuần sau, thứ Hai), how to reach them (qua số, điện thoại, email), greetings,
// thanks and particles. Whole words only: a customer's "hàng giao đến bị vỡ" keeps its own.
const VIETNAMESE_NOTICE_FILLER = new RegExp(
  String.raw`(?<!\p{L})(?:chúng tôi|chúng em|tôi|mình|em|anh|chị|ông|bà|bạn|quý khách|hiện nay|hiện tại|hiện giờ|hiện|bây giờ|lúc này|hôm nay|ngày mai|cho đến|đến hết|đến|tới|từ|hết|ngày|tháng|năm|tuần|này|sau|mai|thứ (?:hai|ba|tư|năm|sáu|bảy)|chủ nhật|đầu|cuối|vào|trong|thời gian|kỳ nghỉ|và|sẽ|qua|số|điện thoại|sđt|e-?mail|hoặc|xin chào|chào|xin cảm ơn|cảm ơn|cám ơn|thanks|thank you|ạ|nhé|trân trọng)(?!\p{L})`.normalize('NFKC'),
  'giu',
);
// The most letters a Vietnamese notice sentence may keep beyond its phrases and {@link VIETNAMESE_NOTICE_FILLER}.
const MAX_VIETNAMESE_NOTICE_LEFTOVER = 3;

/**
 * Whether a Vietnamese sentence says more than a notice: what is left of `rest` once the absence (`absence`, global),
 * a contact and its colleague's name ({@link VIETNAMESE_CONTACT}) and {@link VIETNAMESE_NOTICE_FILLER} are taken out
 * holds more than {@link MAX_VIETNAMESE_NOTICE_LEFTOVER} letters. False for a sentence without a Vietnamese word.
 */
function saysMoreThanVietnameseNotice(rest: string, absence: RegExp): boolean {
  if (!VIETNAMESE_WORD.test(rest)) return false;
  const left = rest.replace(absence, ' ').replace(VIETNAMESE_CONTACT, ' ').replace(VIETNAMESE_NOTICE_FILLER, ' ').replace(/[^\p{L}]/gu, '');
  return left.length > MAX_VIETNAMESE_NOTICE_LEFTOVER;
}

/**
 * Whether a Thai line or a Vietnamese sentence of an away notice says more than a notice does: `rest` is it without its
 * notice phrases, `absence` the away phrases of every language (global). A notice leaves almost nothing once its
 * absence, phrases and filler (who, when, whom to contact, thanks) are taken out; a customer's complaint or request
 * beside "I'm on leave" leaves their own words. False for text in neither language.
 */
export function saysMoreThanAwayNotice(rest: string, absence: RegExp): boolean {
  return saysMoreThanThaiNotice(rest, absence) || saysMoreThanVietnameseNotice(rest, absence);
}

/**
 * Thanks and acknowledgements in es/de/pt/fr/vi/th, each whole phrase (read as the Japanese and English lists are, in
 * NFKC, lower case): thanks, "it works now", "problem solved", "understood". Nothing that asks or reports a fault.
 */
export const MORE_ACKNOWLEDGING_PHRASES: readonly RegExp[] = [
  // es: muchas gracias, gracias por la ayuda, ya funciona perfectamente, problema solucionado, entendido
  /^(?:(?:muchas|muchísimas|mil) )?gracias(?: (?:de nuevo|otra vez|a (?:ti|usted|ustedes)))?(?: por (?:la|su|tu) (?:ayuda|respuesta|rápida respuesta|pronta respuesta|información|atención))?(?: de nuevo)?$/u,
  /^(?:ya |ahora )?(?:funciona|está funcionando)(?: (?:perfectamente|bien|correctamente))?(?: ahora)?$|^(?:problema )?(?:resuelto|solucionado)$|^(?:perfecto|entendido|de acuerdo|todo claro)$/u,
  // de: vielen dank, danke schön, hat funktioniert, funktioniert jetzt, alles klar, problem gelöst
  /^(?:(?:vielen|herzlichen|besten|tausend) )?dank(?: (?:dir|ihnen|euch))?(?: (?:für|fur) (?:die|ihre|deine|eure) (?:hilfe|antwort|schnelle antwort|rasche antwort|unterstützung))?$|^danke(?: (?:schön|sehr|vielmals|nochmals))?(?: (?:für|fur) (?:die|ihre|deine|eure) (?:hilfe|antwort|schnelle antwort|rasche antwort|unterstützung))?$/u,
  /^(?:es )?(?:hat|hat jetzt|hat nun) (?:funktioniert|geklappt)$|^(?:es )?funktioniert (?:jetzt|wieder|nun)(?: (?:einwandfrei|problemlos))?$|^(?:problem )?gelöst$|^alles klar$|^verstanden$/u,
  // pt: obrigado, muito obrigada pela ajuda, deu certo, funcionou, resolvido
  /^(?:muito )?obrigad[oa](?: (?:pela|pelo) (?:ajuda|resposta|retorno|suporte|atenção))?$|^(?:valeu|agradeço)$/u,
  /^(?:deu certo|funcionou|(?:já |agora )?(?:está funcionando|funciona)|(?:problema )?resolvido|entendido|perfeito)$/u,
  // fr: merci beaucoup, merci pour votre réponse, c'est réglé, ça marche, problème résolu
  /^merci(?: (?:beaucoup|bien|infiniment|encore))?(?: (?:pour|de) (?:votre|ton|ta|la|l'|vos) ?(?:aide|réponse|retour|rapidité))?$/u,
  /^(?:c'est (?:réglé|bon|parfait)|ça (?:marche|fonctionne)(?: maintenant)?|cela fonctionne(?: maintenant)?|(?:problème )?résolu|parfait|compris|entendu)$/u,
  // vi: cảm ơn bạn nhiều, xin cảm ơn, cảm ơn anh chị, mình làm được rồi ạ, được rồi. No word after cảm ơn is two
  // words of the list ("anh chị" is " anh" then " chị"): such a pair read either way made the test exponential (review 15).
  new RegExp(String.raw`^(?:xin )?(?:cảm ơn|cám ơn)(?: (?:bạn|anh|chị|em|các bạn|nhiều|rất nhiều|nhé|ạ))*$|^(?:mình|tôi|em|anh|chị) (?:đã )?làm được rồi(?: (?:ạ|nhé|nha))?$|^(?:đã )?(?:được|ổn|xong) rồi(?: (?:ạ|nhé))?$`.normalize('NFKC'), 'u'),
  // th: ขอบคุณมากครับ, ขอบคุณค่ะ, ทำได้แล้วครับ, ใช้ได้แล้วค่ะ; never คะ, the particle that ends a question
  new RegExp(String.raw`^ขอบคุณ(?:มาก|มากๆ|มาก ๆ|ครับ|ค่ะ|นะ|ค่า| )*$|^(?:ทำได้แล้ว|ใช้ได้แล้ว|แก้ได้แล้ว|เรียบร้อยแล้ว)(?:ครับ|ค่ะ|นะ| )*$`.normalize('NFKC'), 'u'),
];

/** Greetings and closings in es/de/pt/fr/vi/th: allowed beside a thanks, never enough alone. */
export const MORE_COURTESY_PHRASES: readonly RegExp[] = [
  /^(?:hola|buenos días|buenas tardes|buenas)$|^(?:un saludo|saludos|saludos cordiales|atentamente|un abrazo)$/u,
  /^(?:hallo|guten (?:tag|morgen|abend))$|^(?:mit freundlichen|viele|beste|liebe|freundliche) (?:grüßen|grüße|grüssen|grüsse)$|^(?:gruß|lg|mfg)$/u,
  /^(?:olá|oi|bom dia|boa tarde|boa noite)$|^(?:abraços?|um abraço|att|atenciosamente|cumprimentos)$/u,
  /^(?:bonjour|bonsoir|salut)$|^(?:bonne (?:journée|soirée|fin de journée)|cordialement|bien cordialement|bien à vous)$/u,
  new RegExp(String.raw`^(?:xin chào|chào (?:bạn|anh|chị|em))$|^(?:trân trọng|thân mến|thân ái)$`.normalize('NFKC'), 'u'),
  new RegExp(String.raw`^(?:เรียน\S*|สวัสดี(?:ครับ|ค่ะ)?)$`.normalize('NFKC'), 'u'),
];
