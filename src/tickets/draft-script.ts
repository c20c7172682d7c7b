/**
 * Two structural checks of a draft's writing, for what word lists of secret asks and payment details can never cover
 * (security review 16, finding 1): a model steered by an injection may write its ask in any language and spelling.
 *
 * - A word that mixes Latin letters with those of another script (Cyrillic, Armenian, Cherokee, Greek ones that look
 *   Latin: `раsswоrd`, `passwօrd`, `Ρassword`) or an ASCII word spelled with a small capital or IPA letter
 *   (`passwᴏrd`): a look-alike spelling that slips past every word list, and that no reply needs. Greek letters used
 *   as symbols beside Latin ones (`μm`, `kΩ`, `ΔT`, `λmax`, `ρgh`) are left alone.
 * - A sentence of prose in a language, or a paragraph in a script, that is in neither the customer's mail nor the
 *   knowledge the agent found: the customer writes in their language and the reply goes out in it, and words quoted
 *   from the manual (a Japanese screen label in an English reply) are in the knowledge. A third language is what a
 *   model writes when a mail told it to (`…kèm mật khẩu và mã OTP` under a Japanese lead, to a Japanese customer).
 *   Scripts are told apart by Unicode's Script property; the languages that share the Latin script by their most
 *   frequent function words (and Vietnamese by its tone-marked vowels too), which names the language of a sentence
 *   and leaves product and screen names (`Settings`, `Microsoft Outlook`) in a Japanese sentence unread; a stretch of
 *   lower-case Latin words no list names (Swedish, Tagalog, Vietnamese without accents) is a language of its own
 *   unless its words come from the mail or the knowledge. Only the mail's main script and language count: the mail
 *   may be the attacker's.
 *
 * Pure functions: jobs/answer-ticket.ts chains {@link draftScriptProblem} with the other draft checks.
 */

/** What a draft's writing is compared with. */
export interface DraftScriptContext {
  /** The customer's words: the subject and the question (their mail and what it forwards). */
  customer: readonly string[];
  /** What the agent's searches returned for this answer, and our earlier replies of the thread. */
  knowledge: readonly string[];
}

// A word: a run of letters and the marks that combine with them (NFD-written accents stay inside the word).
const WORD = /[\p{L}\p{M}]+/gu;
const LATIN = /\p{Script=Latin}/u;
// A letter of a script no Latin word may hold: any but Latin, Greek (below), the Japanese, Chinese and Korean ones a
// word runs into without a space (`Wi-Fiルーター`, `SMSで`), and the letters every script shares (`ー`). Cyrillic,
// Armenian (`օ`), Cherokee (`Ꭺ`), Georgian and the rest are look-alikes or words of their own, never a Latin word's.
const FOREIGN_LETTER =
  /[^\P{L}\p{Script=Latin}\p{Script=Greek}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Common}\p{Script=Inherited}]/u;
// Greek letters that pass for Latin ones (Unicode's confusables, UTS #39): capitals that are Latin capitals, and
// small letters that read as a, i, k, o, p, u, v, x, y, c, j. μ, Ω, Δ, λ, π and the rest look like no Latin letter:
// they are the units and symbols a manual writes next to Latin letters. A small one counts only between Latin letters:
// at a word's edge it is a symbol too (`ρgh`, `γGTP`, `CuKα線`), while a capital passes for a Latin one anywhere.
const GREEK_CAPITAL_LOOKALIKE = /[ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϒϹϿ]/u;
const GREEK_SMALL_LOOKALIKE_INSIDE = /\p{Script=Latin}\p{M}*[αγικνορυχϲϳ]\p{M}*\p{Script=Latin}/u;
// Latin letters no language writes in its words (small capitals ᴏ ᴀ, IPA ɑ ɡ ȷ ɪ ʀ) and the mathematical alphabets
// (`𝐨`, Common script), each a look-alike of an ASCII letter: in a word of ASCII letters otherwise (`passwᴏrd`) they
// spell it past the word lists. The Turkish dotless ı is Turkish's own letter, so it is no look-alike here.
const LATIN_LOOKALIKE = /[\u1D00-\u1D2B\u0251\u0261\u0237\u0262\u026A\u0269\u0274\u0280\u028F\u0299\u029C\u029F\u{1D400}-\u{1D7FF}]/u;
const ASCII_WITH_LOOKALIKES = /^[A-Za-z\u1D00-\u1D2B\u0251\u0261\u0237\u0262\u026A\u0269\u0274\u0280\u028F\u0299\u029C\u029F\u{1D400}-\u{1D7FF}]+$/u;
const ASCII_LETTER = /[A-Za-z]/;

/** Whether a word (a run of letters and marks) with a Latin letter is spelled with a look-alike of another script. */
function spelledWithLookalikes(word: string): boolean {
  if (FOREIGN_LETTER.test(word) || GREEK_CAPITAL_LOOKALIKE.test(word)) return true;
  if (GREEK_SMALL_LOOKALIKE_INSIDE.test(word)) return true;
  return LATIN_LOOKALIKE.test(word) && ASCII_LETTER.test(word) && ASCII_WITH_LOOKALIKES.test(word);
}

// Phonetic notation: a short run without spaces between slashes or square brackets (`/ɡet/`, `[ɡɪft]`, `［bɪɡ］`), as
// a dictionary or a language course writes pronunciations (R3a item 5). Its IPA letters (ɑ ɡ ɢ ɪ ɴ ʀ ʏ ʙ ʜ ʟ) are the
// notation's own; a small capital or a mathematical letter in it, or an IPA letter in a word outside it, still counts.
const PHONETIC_NOTATION = /\/[^\s/]{1,30}\/|[[［][^\s[\]［］]{1,30}[\]］]/gu;
const IPA_LOOKALIKES = /[\u0251\u0261\u0262\u026A\u0274\u0280\u028F\u0299\u029C\u029F]/gu;
const IPA_LOOKALIKE = new RegExp(IPA_LOOKALIKES.source, 'u');

/**
 * The words of `text` that mix Latin letters with letters of another script (Cyrillic, Armenian, Cherokee, …; of
 * Greek only those that look like Latin ones), or that spell an ASCII word with a small capital, an IPA letter or a
 * mathematical letter, each once, in order. Han, kana and Hangul run into Latin words without a space and stay; IPA
 * letters in phonetic notation (`/bɪɡ/`) stay too.
 */
export function mixedScriptWords(text: string): string[] {
  const found = new Set<string>();
  const normalized = text.normalize('NFC');
  const notation = Array.from(normalized.matchAll(PHONETIC_NOTATION), (m) => [m.index, m.index + m[0].length] as const);
  for (const m of normalized.matchAll(WORD)) {
    const word = m[0];
    if (!LATIN.test(word)) continue;
    // Only a word with an IPA letter looks for its notation: a long draft's words are not each held against every span.
    const inNotation = IPA_LOOKALIKE.test(word) && notation.some(([start, end]) => m.index >= start && m.index + word.length <= end);
    if (spelledWithLookalikes(inNotation ? word.replace(IPA_LOOKALIKES, '') : word)) found.add(word);
  }
  return [...found];
}

// The scripts a paragraph's prose is told apart by, beyond Latin. Japanese writes Han, Hiragana and Katakana in one
// sentence, and Chinese shares Han with it: they are one group (the finer question is draftProblem's, in
// jobs/answer-ticket.ts). A script not listed here counts as `other`.
const SCRIPT_GROUPS: ReadonlyArray<readonly [name: string, letter: RegExp]> = [
  ['Japanese or Chinese', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u],
  ['Korean', /\p{Script=Hangul}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Arabic', /\p{Script=Arabic}/u],
  ['Hebrew', /\p{Script=Hebrew}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Devanagari', /\p{Script=Devanagari}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Georgian', /\p{Script=Georgian}/u],
];
const OTHER_SCRIPT = 'other';
const SHARED_LETTER = /[\p{Script=Common}\p{Script=Inherited}]/u;

/** The script group of a letter: `Latin`, one of {@link SCRIPT_GROUPS}, or `other`. */
function scriptGroupOf(letter: string): string {
  if (LATIN.test(letter)) return 'Latin';
  for (const [name, test] of SCRIPT_GROUPS) if (test.test(letter)) return name;
  return OTHER_SCRIPT;
}

/**
 * Letters per script group of `text` beyond Latin, counting runs of two letters and more of one script: a letter alone
 * is a symbol (`Ω`, `π`, a list's `α`, the `μ` of `μm`), and the single letters of a word that mixes scripts are
 * {@link mixedScriptWords}' business. Japanese runs into Latin without a space (`コードがSMSで届きません`), so a run
 * is cut where the script changes, not at spaces only.
 */
function scriptLetters(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  let group: string | undefined;
  let run = 0;
  const close = () => {
    if (group !== undefined && group !== 'Latin' && run >= 2) counts.set(group, (counts.get(group) ?? 0) + run);
    group = undefined;
    run = 0;
  };
  for (const ch of text) {
    if (!LETTER.test(ch)) {
      // A combining mark (Bengali and Devanagari vowel signs, NFD accents) belongs to the letter before it.
      if (!MARK.test(ch)) close();
      continue;
    }
    // A letter every script writes (the prolonged sound mark ー) continues the run it is in.
    if (SHARED_LETTER.test(ch)) {
      if (group !== undefined) run++;
      continue;
    }
    const g = scriptGroupOf(ch);
    if (g !== group) close();
    group = g;
    run++;
  }
  close();
  return counts;
}
const LETTER = /\p{L}/u;
const MARK = /\p{M}/u;

// The most frequent function words of the languages a help desk meets in the Latin script. A word several languages
// share (`para`, `de`, `la`) counts a share to each, so a sentence is named by the words only its language has.
const FUNCTION_WORDS: Readonly<Record<string, string>> = {
  English:
    'the and you your is are to of for with this that please will have has can not be it we our if from by or an at was would should which does there what when how into then also any all my me i us they them their these those been on',
  Portuguese:
    'a você vocês com não sua seu suas seus uma um para por favor este esta isso isto também são está estão ao às pelo pela dos das nos nas em do da que é mais como ou se obrigado obrigada olá atenciosamente caso sobre pode podem após de',
  Spanish:
    'a usted ustedes el los las del con su sus una un para por favor este esta esto eso también es está están son que y o en se al muy más como pero gracias hola saludos cordiales le les nos puede pueden sobre cuando si mi tu la de',
  French:
    'je mon ma à vous votre vos nous notre le la les des du un une et est sont pour avec dans sur pas ne que qui ce cette ces au aux en merci bonjour cordialement veuillez il elle si ou mais par leur très de',
  German:
    'der die das und ist sind nicht sie ihr ihre ihren ihrem wir uns unser mit für auf von zu den dem des ein eine einen bitte danke wenn oder auch werden wird können kann haben hat bei nach im zum zur sehr geehrte geehrter freundlichen grüßen',
  Italian:
    'a il lo la gli le di del della dei delle che è e per con non sono una un questo questa suo sua vostro vostra grazie buongiorno cordiali saluti può anche come se ma si mi ti ci nel nella al alla',
  Dutch:
    'de het een en van is niet wij we u uw jullie met voor op aan dat dit deze ook zijn wordt kunt kunnen naar bij hebben heeft graag bedankt groet vriendelijke alstublieft of te',
  Vietnamese:
    'và của là không có được này các cho với để một những trong bạn quý khách vui lòng xin hãy vào tôi chúng đã sẽ từ theo khi nếu thì mà cũng như hoặc cảm ơn',
  Indonesian: 'yang dan di ke dari untuk dengan ini itu anda kami tidak akan ada atau juga bisa dapat terima kasih silakan mohon',
  Turkish: 've bir bu için ile da de çok ne mi değil lütfen teşekkür ederiz sizin bizim olarak gibi daha',
  Polish: 'i w z na się nie jest to że do jak po od dla przez pan pani proszę dziękujemy oraz lub jeśli',
};
// Each function word's languages and the share each gets.
const WORD_LANGUAGES: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const [language, words] of Object.entries(FUNCTION_WORDS)) {
    for (const w of words.split(' ')) map.set(w, [...(map.get(w) ?? []), language]);
  }
  return map;
})();
// Vietnamese's own vowels (ơ, ư and the tone-marked vowels of Latin Extended Additional): a word with one is half a
// function word's evidence, since names (`Nguyễn`, `Hồ Chí Minh`) have them too.
const VIETNAMESE_LETTER = /[\u1EA0-\u1EF9ơưƠƯ]/u;
const VIETNAMESE_LETTER_WEIGHT = 0.5;

/** How much each language's function words weigh in `words` (Latin words, lower case). */
function languageScores(words: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  const add = (language: string, weight: number) => scores.set(language, (scores.get(language) ?? 0) + weight);
  for (const w of words) {
    const languages = WORD_LANGUAGES.get(w);
    if (languages) for (const l of languages) add(l, 1 / languages.length);
    else if (VIETNAMESE_LETTER.test(w)) add('Vietnamese', VIETNAMESE_LETTER_WEIGHT);
  }
  return scores;
}

// A run of Latin letters: a word, or the Latin part of one that runs into Japanese (`SMSで`).
const LATIN_WORD = /\p{Script=Latin}[\p{Script=Latin}\p{M}]*/gu;

// A URL or a mail address is no prose (`…/how-to-reset-your-password`): its words are not read. Each starts at a
// boundary its own letters cannot precede, so a run without one is scanned once.
const URL_OR_ADDRESS = /(?:https?:\/\/|(?<![\w.-])www\.)\S+|(?<![\w.%+-])[\w.%+-]+@[\w.-]+/giu;
// A letter before a hyphen that starts a word (`e-mail`, `E-Mail`, `x-ray`) is no word (Italian's `e`, Portugal's `a`).
const LETTER_PREFIX = /(?<![\p{L}\p{M}\p{N}-])\p{L}-(?=\p{L})/gu;

/** The Latin words of `text` outside URLs and mail addresses, in lower case. */
function latinWords(text: string): string[] {
  return Array.from(text.normalize('NFC').replace(URL_OR_ADDRESS, ' ').replace(LETTER_PREFIX, '').matchAll(LATIN_WORD), ([word]) => word.toLowerCase());
}

// A sentence is prose in a language when its function words weigh this much, and a seventh of its Latin words: fewer
// is a screen or product name (`Sign in to your account` weighs 2), or English words in a Japanese sentence.
const PROSE_SCORE = 2.5;
const PROSE_SHARE = 0.15;
const MIN_PROSE_WORDS = 3;
// Languages within this share of a sentence's best are named with it: Spanish and Portuguese share many words.
const CLOSE_SCORE_SHARE = 0.6;
// The customer's mail or the knowledge holds a language when its function words weigh this much in all of it.
const HELD_SCORE = 1.5;
// A paragraph is in a script with this many letters of it (in runs of two letters and more); the knowledge holds a
// script with two letters of it in a row.
const PROSE_SCRIPT_LETTERS = 10;
// The customer's mail is in a script with this share of its letters: the mail may be the attacker's, and a stray word
// (`да`, `và của`) in it must not make its script or language one the reply may be written in. Its main script beyond
// Latin counts with a sentence's letters ({@link PROSE_SCRIPT_LETTERS}) too: a form's or a list's English frame
// around a Japanese message outweighs the message, and the reply is in Japanese.
const MAIL_SCRIPT_SHARE = 1 / 3;
// A stretch of Latin words of a sentence with this many words in lower case, that the function words of no language
// name, is prose in a Latin-script language the lists do not know (Swedish, Tagalog, Vietnamese without its accents)
// unless half of them are in the customer's mail or the knowledge (a screen text or error message quoted from there).
// Names, titles and addresses (`Royal Architectural Institute of Canada`) are capitalised; host names, commands and
// hex strings are words glued to dots, hyphens or digits.
const UNKNOWN_PROSE_WORDS = 6;
const PROSE_WORD = /(?<![\p{L}\p{M}\p{N}'’.@\/_-])[\p{Ll}\p{M}]{2,}(?![\p{L}\p{M}\p{N}'’@\/_-]|\.[\p{L}\p{N}])/gu;
const UNKNOWN_PROSE_KNOWN_SHARE = 0.5;
// A language the conversation holds names a stretch with half the share of function words prose needs: its lists miss
// many a word (`as`, `os` of Portuguese), and a sentence with a few of them is its prose.
const HELD_STRETCH_SHARE = PROSE_SHARE / 2;
// Where a stretch of Latin prose ends within a sentence: at a letter of another script, a quotation bracket, an arrow,
// anything but Latin letters, digits, spaces and the punctuation inside a sentence.
const LATIN_STRETCH_END = /[^\p{Script=Latin}\p{M}\p{N}\s,;:'’"().\/-]+/u;
// The knowledge may be hundreds of kilobytes: whether it holds a script is one scan for two letters of it in a row.
const HELD_SCRIPT: ReadonlyArray<readonly [group: string, pair: RegExp]> = [
  ...SCRIPT_GROUPS.map(([name, letter]) => [name, new RegExp(`${letter.source}{2}`, 'u')] as const),
  [OTHER_SCRIPT, /[^\P{L}\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Thai}\p{Script=Devanagari}\p{Script=Armenian}\p{Script=Georgian}]{2}/u],
];

// Sentences end at 。！？!?, a line break, or a full stop before a space.
const SENTENCE_END = /(?<=[。！？!?])|\n+|(?<=\.)\s+/;
const PARAGRAPH_END = /\n[^\S\n]*\n/;

/** The languages the knowledge holds: each one whose function words weigh {@link HELD_SCORE} in it. */
function languagesHeld(text: string): Set<string> {
  const scores = [...languageScores(latinWords(text))];
  return new Set(scores.filter(([, score]) => score >= HELD_SCORE).map(([language]) => language));
}

/** Letters per script group of `text`, Latin included, letters every script shares aside. */
function lettersPerScript(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const ch of text) {
    if (!LETTER.test(ch) || SHARED_LETTER.test(ch)) continue;
    const g = scriptGroupOf(ch);
    counts.set(g, (counts.get(g) ?? 0) + 1);
  }
  return counts;
}

/** What the customer's mail holds: its main scripts, and its Latin languages (`all` when it names none). */
interface MailHolds {
  scripts: Set<string>;
  languages: Set<string> | 'all';
}

/**
 * The customer's mail holds only its main script (a third of its letters, or more) and, when that is Latin, its main
 * language: the one its function words weigh most in, when they weigh {@link HELD_SCORE} (with those close to it, as
 * Spanish is to Portuguese: {@link CLOSE_SCORE_SHARE}). A mail whose words name no
 * language (`Passwort vergessen`, `Mot de passe oublié`, `Password reset?`) holds every Latin one: the reply may be in
 * the customer's language the lists cannot tell from so few words. A mail in another script with Latin words that
 * name no language holds English.
 */
function mailHolds(mail: string): MailHolds {
  const letters = lettersPerScript(mail);
  const total = [...letters.values()].reduce((a, b) => a + b, 0);
  const scripts = new Set([...letters].filter(([, n]) => n >= MAIL_SCRIPT_SHARE * total).map(([g]) => g));
  const mainBeyondLatin = [...letters].filter(([g]) => g !== 'Latin').sort((a, b) => b[1] - a[1])[0];
  if (mainBeyondLatin && mainBeyondLatin[1] >= PROSE_SCRIPT_LETTERS) scripts.add(mainBeyondLatin[0]);
  const scores = [...languageScores(latinWords(mail))].sort((a, b) => b[1] - a[1]);
  const top = scores[0]?.[1] ?? 0;
  if (!scripts.has('Latin')) {
    // A mail in another script whose few Latin words name no language (`ISO/TS 16949 とは`) may be answered with the
    // English its terms are written in, as before; a stray Latin language in it is no more held.
    return { scripts, languages: latinWords(mail).length > 0 && top < HELD_SCORE ? new Set(['English']) : new Set() };
  }
  if (top < HELD_SCORE) return { scripts, languages: 'all' };
  return { scripts, languages: new Set(scores.filter(([, s]) => s >= CLOSE_SCORE_SHARE * top).map(([l]) => l)) };
}

/**
 * Whether a stretch of Latin words is prose in a language the function-word lists do not know: long enough, named by
 * no language's function words, and mostly words neither the customer's mail nor the knowledge has.
 */
function unknownLatinProse(stretch: string, held: ReadonlySet<string>, knownWords: ReadonlySet<string>): boolean {
  const words = latinWords(stretch);
  if (words.length < UNKNOWN_PROSE_WORDS) return false;
  // A stretch a language's words name (a screen label, `Sign in to your account`) is that language's: proseLanguages
  // parks it when it is prose in one nobody holds.
  for (const [language, score] of languageScores(words)) {
    if (score >= (held.has(language) ? HELD_STRETCH_SHARE : PROSE_SHARE) * words.length) return false;
  }
  const prose = Array.from(stretch.normalize('NFC').matchAll(PROSE_WORD), ([w]) => w);
  if (prose.length < UNKNOWN_PROSE_WORDS) return false;
  return prose.filter((w) => knownWords.has(w)).length < UNKNOWN_PROSE_KNOWN_SHARE * prose.length;
}

// The desk's signature below a `--` delimiter or the closing line may be in another language than the reply (an English
// footer with the opening hours under a Japanese answer, R3a item 7): it is ours, not the model's prose. Only a block
// that reads as a signature is passed over — a few lines, each short — so prose put below a closing is still read.
const SIGNATURE_DELIMITER = /^--\s?$/;
const CLOSING_LINE =
  /^(?:(?:best|kind|warm)\s+)?regards,?$|^(?:best|many thanks|thanks|thank you|sincerely|yours sincerely|yours truly|cheers|all the best)[,!.]?$|^以上[。.]?$|^(?:以上[、,]?\s*)?(?:(?:今後とも|引き続き|何卒|なにとぞ|どうぞ)\s*)?(?:よろしく|宜しく)お願い(?:いた|致|申し上げ)?し?ます[。.]?$/i;
const SIGNATURE_LINES = 6;
const SIGNATURE_LINE_CHARS = 80;

/** `draft` without the signature block below its last `--` delimiter or closing line, when it reads as one. */
function withoutSignature(draft: string): string {
  const lines = draft.split('\n');
  let at = lines.findLastIndex((l) => SIGNATURE_DELIMITER.test(l.trimEnd()));
  if (at < 0) at = lines.findLastIndex((l) => CLOSING_LINE.test(l.trim()));
  if (at < 0) return draft;
  const block = lines.slice(at + 1).filter((l) => l.trim() !== '');
  if (block.length > SIGNATURE_LINES || block.some((l) => [...l.trim()].length > SIGNATURE_LINE_CHARS)) return draft;
  return lines.slice(0, at).join('\n');
}

/** The languages a sentence is prose in (its best and those close to it), or none when it is no prose of one. */
function proseLanguages(sentence: string): string[] {
  const words = latinWords(sentence);
  if (words.length < MIN_PROSE_WORDS) return [];
  const scores = [...languageScores(words)].sort((a, b) => b[1] - a[1]);
  const best = scores[0]?.[1] ?? 0;
  if (best < PROSE_SCORE || best < PROSE_SHARE * words.length) return [];
  return scores.filter(([, s]) => s >= CLOSE_SCORE_SHARE * best).map(([l]) => l);
}

/** Prose of a draft in a language or script that neither the customer's mail nor the knowledge holds. */
export interface ForeignProse {
  /** The language (`Portuguese`) or script (`Cyrillic script`) it is written in. */
  language: string;
  /** The sentence or paragraph, as the draft has it. */
  text: string;
}

/**
 * The first sentence of `draft` in a Latin-script language, or paragraph in another script, that neither the
 * customer's mail nor the knowledge holds; undefined when there is none.
 */
export function foreignProse(draft: string, context: DraftScriptContext): ForeignProse | undefined {
  const customer = context.customer.join('\n');
  const knowledge = context.knowledge.join('\n');
  const mail = mailHolds(customer);
  const held = mail.languages === 'all' ? 'all' : new Set([...mail.languages, ...languagesHeld(knowledge)]);
  const knowledgeScripts = HELD_SCRIPT.filter(([, pair]) => pair.test(knowledge)).map(([g]) => g);
  const scriptsHeld = new Set([...mail.scripts, ...knowledgeScripts]);
  let knownWords: Set<string> | undefined;
  for (const paragraph of withoutSignature(draft.normalize('NFC')).split(PARAGRAPH_END)) {
    for (const [group, letters] of scriptLetters(paragraph)) {
      if (letters >= PROSE_SCRIPT_LETTERS && !scriptsHeld.has(group)) {
        return { language: `${group === OTHER_SCRIPT ? 'a' : group} script`, text: paragraph.trim() };
      }
    }
    if (held === 'all') continue;
    for (const sentence of paragraph.split(SENTENCE_END)) {
      const languages = proseLanguages(sentence);
      if (languages.length > 0) {
        if (!languages.some((l) => held.has(l))) return { language: languages[0]!, text: sentence.trim() };
        continue;
      }
      for (const stretch of sentence.replace(URL_OR_ADDRESS, ' ').split(LATIN_STRETCH_END)) {
        if (latinWords(stretch).length < UNKNOWN_PROSE_WORDS) continue;
        knownWords ??= new Set(latinWords(`${customer}\n${knowledge}`));
        if (unknownLatinProse(stretch, held, knownWords)) {
          return { language: UNKNOWN_LATIN_LANGUAGE, text: sentence.trim() };
        }
      }
    }
  }
  return undefined;
}

/** What {@link ForeignProse} names a Latin-script language the function-word lists do not know. */
const UNKNOWN_LATIN_LANGUAGE = 'a Latin-script language';

const QUOTED_CHARS = 80;

/** A stretch of the draft for a park reason, cut to {@link QUOTED_CHARS}. */
function quoted(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ')];
  return `"${chars.length > QUOTED_CHARS ? `${chars.slice(0, QUOTED_CHARS).join('')}…` : chars.join('')}"`;
}

/**
 * Why the draft must wait for a person because of how it is written, or undefined: a word that mixes Latin with
 * letters of another script, or spells an ASCII word with look-alikes ({@link mixedScriptWords}), or prose in a
 * language or script that neither the customer's mail nor the knowledge holds ({@link foreignProse}).
 */
export function draftScriptProblem(draft: string, context: DraftScriptContext): string | undefined {
  const mixed = mixedScriptWords(draft);
  if (mixed.length > 0) {
    return `the answer spells words with look-alike letters of another script (Latin mixed with another script's letters, or with small capitals or IPA letters): ${mixed.slice(0, 3).map(quoted).join(', ')}`;
  }
  const foreign = foreignProse(draft, context);
  if (foreign) {
    return `the answer has prose in ${foreign.language}, which neither the customer's mail nor the knowledge found holds: ${quoted(foreign.text)}`;
  }
  return undefined;
}
