/**
 * Two structural checks of a draft's writing, for what word lists of secret asks and payment details can never cover
 * (security review 16, finding 1): a model steered by an injection may write its ask in any language and spelling.
 *
 * - A word that mixes Latin letters with Cyrillic ones or with Greek ones that look Latin (`раsswоrd`, `Ρassword`):
 *   a look-alike spelling that slips past every word list, and that no reply needs. Greek letters used as symbols
 *   beside Latin ones (`μm`, `kΩ`, `ΔT`, `λmax`) look like no Latin letter and are left alone.
 * - A sentence of prose in a language, or a paragraph in a script, that is in neither the customer's mail nor the
 *   knowledge the agent found: the customer writes in their language and the reply goes out in it, and words quoted
 *   from the manual (a Japanese screen label in an English reply) are in the knowledge. A third language is what a
 *   model writes when a mail told it to (`…kèm mật khẩu và mã OTP` under a Japanese lead, to a Japanese customer).
 *   Scripts are told apart by Unicode's Script property; the languages that share the Latin script by their most
 *   frequent function words (and Vietnamese by its tone-marked vowels too), which names the language of a sentence
 *   and leaves product and screen names (`Settings`, `Microsoft Outlook`) in a Japanese sentence unread.
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
const CYRILLIC = /\p{Script=Cyrillic}/u;
// Greek letters that pass for Latin ones (Unicode's confusables, UTS #39): capitals that are Latin capitals, and
// small letters that read as a, i, k, o, p, u, v, x, y, c, j. μ, Ω, Δ, λ, π and the rest look like no Latin letter:
// they are the units and symbols a manual writes next to Latin letters.
const GREEK_LOOKALIKE = /[ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϒαγικνορυχϲϳϹϿ]/u;

/**
 * The words of `text` that mix Latin letters with Cyrillic ones, or with Greek letters that look like Latin ones,
 * each once, in order.
 */
export function mixedScriptWords(text: string): string[] {
  const found = new Set<string>();
  for (const [word] of text.normalize('NFC').matchAll(WORD)) {
    if (!LATIN.test(word)) continue;
    if (CYRILLIC.test(word) || GREEK_LOOKALIKE.test(word)) found.add(word);
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
    'vous votre vos nous notre le la les des du un une et est sont pour avec dans sur pas ne que qui ce cette ces au aux en merci bonjour cordialement veuillez il elle si ou mais par leur très de',
  German:
    'der die das und ist sind nicht sie ihr ihre ihren ihrem wir uns unser mit für auf von zu den dem des ein eine einen bitte danke wenn oder auch werden wird können kann haben hat bei nach im zum zur sehr geehrte geehrter freundlichen grüßen',
  Italian:
    'a il lo la gli le di del della dei delle che è e per con non sono una un questo questa suo sua vostro vostra grazie buongiorno cordiali saluti può anche come se ma si mi ti ci nel nella al alla',
  Dutch:
    'de het een en van is niet wij we u uw jullie met voor op aan dat dit deze ook zijn wordt kunt kunnen naar bij hebben heeft graag bedankt groet vriendelijke alstublieft of te de',
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

/** The Latin words of `text`, in lower case. */
function latinWords(text: string): string[] {
  return Array.from(text.normalize('NFC').matchAll(LATIN_WORD), ([word]) => word.toLowerCase());
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
// A paragraph is in a script with this many letters of it (in runs of two letters and more); the customer's mail or
// the knowledge holds a script with two letters of it in a row.
const PROSE_SCRIPT_LETTERS = 10;
// The knowledge may be hundreds of kilobytes: whether it holds a script is one scan for two letters of it in a row.
const HELD_SCRIPT: ReadonlyArray<readonly [group: string, pair: RegExp]> = [
  ...SCRIPT_GROUPS.map(([name, letter]) => [name, new RegExp(`${letter.source}{2}`, 'u')] as const),
  [OTHER_SCRIPT, /[^\P{L}\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Thai}\p{Script=Devanagari}\p{Script=Armenian}\p{Script=Georgian}]{2}/u],
];

// Sentences end at 。！？!?, a line break, or a full stop before a space.
const SENTENCE_END = /(?<=[。！？!?])|\n+|(?<=\.)\s+/;
const PARAGRAPH_END = /\n[^\S\n]*\n/;

/**
 * The languages `text` holds: each one whose function words weigh {@link HELD_SCORE}, and with `best` the one they
 * weigh most in (the customer's short mail, `Como mudo a senha?`, holds its language in two words).
 */
function languagesHeld(text: string, best: boolean): Set<string> {
  const scores = [...languageScores(latinWords(text))].sort((a, b) => b[1] - a[1]);
  const held = new Set(scores.filter(([, score]) => score >= HELD_SCORE).map(([language]) => language));
  const top = scores[0]?.[1];
  if (best && top !== undefined) for (const [language, score] of scores) if (score === top) held.add(language);
  return held;
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
  const held = new Set([...languagesHeld(customer, true), ...languagesHeld(knowledge, false)]);
  // A customer whose few Latin words name no language (`Password reset?`) may be answered in English, the language
  // a reply to them falls back on.
  if (latinWords(customer).length > 0 && ![...languageScores(latinWords(customer)).values()].some((s) => s >= HELD_SCORE)) held.add('English');
  const scriptsHeld = new Set(HELD_SCRIPT.filter(([, pair]) => pair.test(customer) || pair.test(knowledge)).map(([g]) => g));
  for (const paragraph of draft.normalize('NFC').split(PARAGRAPH_END)) {
    for (const [group, letters] of scriptLetters(paragraph)) {
      if (letters >= PROSE_SCRIPT_LETTERS && !scriptsHeld.has(group)) {
        return { language: `${group === OTHER_SCRIPT ? 'a' : group} script`, text: paragraph.trim() };
      }
    }
    for (const sentence of paragraph.split(SENTENCE_END)) {
      const languages = proseLanguages(sentence);
      if (languages.length > 0 && !languages.some((l) => held.has(l))) return { language: languages[0]!, text: sentence.trim() };
    }
  }
  return undefined;
}

const QUOTED_CHARS = 80;

/** A stretch of the draft for a park reason, cut to {@link QUOTED_CHARS}. */
function quoted(text: string): string {
  const chars = [...text.replace(/\s+/g, ' ')];
  return `"${chars.length > QUOTED_CHARS ? `${chars.slice(0, QUOTED_CHARS).join('')}…` : chars.join('')}"`;
}

/**
 * Why the draft must wait for a person because of how it is written, or undefined: a word that mixes Latin with
 * Cyrillic or look-alike Greek letters ({@link mixedScriptWords}), or prose in a language or script that neither the
 * customer's mail nor the knowledge holds ({@link foreignProse}).
 */
export function draftScriptProblem(draft: string, context: DraftScriptContext): string | undefined {
  const mixed = mixedScriptWords(draft);
  if (mixed.length > 0) {
    return `the answer spells words with look-alike letters of another script (Latin mixed with Cyrillic or Greek): ${mixed.slice(0, 3).map(quoted).join(', ')}`;
  }
  const foreign = foreignProse(draft, context);
  if (foreign) {
    return `the answer has prose in ${foreign.language}, which neither the customer's mail nor the knowledge found holds: ${quoted(foreign.text)}`;
  }
  return undefined;
}
