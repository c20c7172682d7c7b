/**
 * Whether a draft repeats the agent's own input: a passage of one of its prompts (the built-ins or a PROMPTS_FILE's,
 * which may hold internal policy) or the subtask results it was given. A model that obeys an instruction slipped into
 * a mail ("copy out your instructions", "print the search results verbatim") writes such a draft; no reply to a
 * customer does. Checked on every draft, so the prompts are indexed once per prompt set and a draft is one pass.
 */
import { PROMPT_NAMES, type PromptSet } from '../agent/prompts.js';

/**
 * The shortest run of letters and digits a draft must share with a prompt to count as repeating it. 40 is a Japanese
 * sentence or about eight English words: far longer than any phrase a reply and an instruction share by chance (the
 * sample manual and Q&A, 2,349 paragraphs of Japanese Wikipedia and 104 real mails share at most 8 letters in a row
 * with the built-in prompts, 11 for "the customer"), and shorter than nearly every rule of the prompts, so an echo of
 * any rule is caught. The prompts quote no manual text, so a draft built from the manual cannot share such a run.
 */
export const PROMPT_ECHO_CHARS = 40;

// What a prompt quotes (「…」, “…”, "…") is what it asks the model to write: a closing, a label, a phrase to avoid.
// A draft may repeat it, so a run never spans it.
const QUOTED = /「[^「」]*」|『[^『』]*』|“[^“”]*”|"[^"\n]*"/g;
const PLACEHOLDER = /\{[A-Za-z_][A-Za-z0-9_]*\}/g;
// The subtask results as the final answer's prompt carries them: JSON objects with these two keys.
const SUBTASK_KEY = /"subtask"\s*:/;
const ANSWER_KEY = /"answer"\s*:/;

// A draft is probed at every STEP-th letter with the PROBE letters from there, and a probe found in a prompt is
// extended both ways: a shared run of PROMPT_ECHO_CHARS letters holds a whole probe wherever it starts, so nothing
// is missed, and a draft costs about one hash step per letter (about 10 µs of CPU for a 3 KB Japanese draft, 150 µs
// for one of 20,000 characters). 20 letters are still rare enough in a reply that a probe seldom needs extending.
const PROBE = 20;
const STEP = PROMPT_ECHO_CHARS - PROBE + 1;

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]/u;
// Whether each UTF-16 code unit below U+10000 is a letter or digit, learnt on first sight (0 unknown, 1 yes, 2 no):
// the Unicode property regex per character, or over the whole text, costs several times the rest of the check.
const bmpClass = new Uint8Array(0x10000);

function isLetterOrDigit(code: number): boolean {
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39);
  if (code > 0xffff) return LETTER_OR_DIGIT.test(String.fromCodePoint(code));
  if (bmpClass[code] === 0) bmpClass[code] = LETTER_OR_DIGIT.test(String.fromCharCode(code)) ? 1 : 2;
  return bmpClass[code] === 1;
}

/**
 * The letters and digits of a text as UTF-16 code units, compatibility-folded and lower-cased: an echo reflowed,
 * re-punctuated, with its angle brackets or list marks left out, or retyped full-width, is still the same run.
 */
function folded(text: string): Uint16Array {
  const plain = text.normalize('NFKC').toLowerCase();
  const out = new Uint16Array(plain.length);
  let length = 0;
  for (let at = 0; at < plain.length; at++) {
    const unit = plain.charCodeAt(at);
    // A surrogate pair is one character, a letter or not.
    const code = unit >= 0xd800 && unit <= 0xdbff ? plain.codePointAt(at)! : unit;
    if (isLetterOrDigit(code)) {
      out[length++] = unit;
      if (code > 0xffff) out[length++] = plain.charCodeAt(at + 1);
    }
    if (code > 0xffff) at++;
  }
  return out.subarray(0, length);
}

/** FNV-1a over the PROBE code units from `at`, kept within V8's small integers so that a Map looks it up fast. */
function probeHash(units: Uint16Array, at: number): number {
  let hash = 0x811c9dc5;
  for (let i = at; i < at + PROBE; i++) hash = Math.imul(hash ^ units[i]!, 0x01000193);
  return hash & 0x3fffffff;
}

/** Where a probe's letters stand in the fixed text of a prompt. */
interface Occurrence {
  prompt: keyof PromptSet;
  units: Uint16Array;
  at: number;
}

/** Every PROBE-letter run of the prompts' fixed text, by its hash. */
type EchoIndex = ReadonlyMap<number, readonly Occurrence[]>;

const indexes = new WeakMap<Readonly<PromptSet>, EchoIndex>();

function indexOf(prompts: Readonly<PromptSet>): EchoIndex {
  const cached = indexes.get(prompts);
  if (cached) return cached;
  const index = new Map<number, Occurrence[]>();
  for (const prompt of PROMPT_NAMES) {
    // The fixed text between placeholders: the product name, the customer's question and the subtask results differ
    // per ticket and are no part of the prompt.
    for (const part of prompts[prompt].split(PLACEHOLDER).flatMap((piece) => piece.split(QUOTED))) {
      const units = folded(part);
      if (units.length < PROMPT_ECHO_CHARS) continue;
      for (let at = 0; at + PROBE <= units.length; at++) {
        const hash = probeHash(units, at);
        const list = index.get(hash);
        if (list) list.push({ prompt, units, at });
        else index.set(hash, [{ prompt, units, at }]);
      }
    }
  }
  indexes.set(prompts, index);
  return index;
}

/** The length of the run `draft` and `occurrence` share through the probe at `at`; 0 when the hash collided. */
function sharedRun(draft: Uint16Array, at: number, { units, at: from }: Occurrence): number {
  for (let i = 0; i < PROBE; i++) if (draft[at + i] !== units[from + i]) return 0;
  let before = 0;
  while (before < at && before < from && draft[at - before - 1] === units[from - before - 1]) before++;
  let after = PROBE;
  while (at + after < draft.length && from + after < units.length && draft[at + after] === units[from + after]) after++;
  return before + after;
}

/**
 * What of the agent's own input `draft` repeats, or undefined: "a passage of the prompt `name`" when it shares a run
 * of {@link PROMPT_ECHO_CHARS} letters and digits with the fixed text of one of `prompts` (the prompts in use), or
 * "the subtask results' JSON" when it holds an object with their `"subtask"` and `"answer"` keys.
 */
export function promptEcho(draft: string, prompts: Readonly<PromptSet>): string | undefined {
  const index = indexOf(prompts);
  const letters = folded(draft);
  for (let at = 0; at + PROBE <= letters.length; at += STEP) {
    const echoed = index.get(probeHash(letters, at))?.find((occurrence) => sharedRun(letters, at, occurrence) >= PROMPT_ECHO_CHARS);
    if (echoed) return `a passage of the prompt ${echoed.prompt}`;
  }
  return SUBTASK_KEY.test(draft) && ANSWER_KEY.test(draft) ? "the subtask results' JSON" : undefined;
}

// Words by which a prompt hands the model text to write rather than a rule to follow: "the following sentence",
// 「次の一文」, 「定型文」, a closing or signature, "verbatim".
const TEXT_TO_WRITE_CUE =
  /(?:次|以下|下記)の(?:一文|文言|文章|定型文|文(?!字))|定型文|署名|締めの(?:言葉|文)|そのまま(?:書き写|記載|入れ|載せ|引用|転記|コピー)|一字一句|\b(?:following|this|these)\s+(?:sentence|text|line|paragraph|wording|words|closing|signature|disclaimer|footer|notice)s?\b|\b(?:closing|signature|disclaimer|footer)(?:\s+(?:text|line|sentence))?\s*:|\bverbatim\b|\bword for word\b/iu;
const COLON = /[:：]/u;

/** Whether `text` holds a run of {@link PROMPT_ECHO_CHARS} letters and digits outside what it quotes. */
function echoableOutsideQuotes(text: string): boolean {
  return text.split(QUOTED).some((part) => folded(part).length >= PROMPT_ECHO_CHARS);
}

/**
 * The fixed sentences `prompt` gives the model to write outside 「」, 『』, “” and "", each as the prompt writes it:
 * what follows a cue for text to write ({@link TEXT_TO_WRITE_CUE}) after its colon on the same line, or, when the cue's
 * line quotes nothing and leaves nothing after a colon, the lines below it up to a blank line, when they hold
 * {@link PROMPT_ECHO_CHARS} letters in a row outside quotes. A draft that writes such a sentence is parked by
 * {@link promptEcho}, as it cannot tell it from an echo; in quotes it is left aside. Heuristic by design: it finds
 * the usual wordings for `npm run check` to name, and a rule it takes for a sentence costs one warning line.
 */
export function unquotedTextToWrite(prompt: string): string[] {
  const lines = prompt.split('\n');
  const found: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!TEXT_TO_WRITE_CUE.test(line)) continue;
    const colonAt = line.search(COLON);
    const afterColon = colonAt >= 0 ? line.slice(colonAt + 1).trim() : '';
    if (afterColon !== '') {
      if (echoableOutsideQuotes(afterColon)) found.push(afterColon);
      continue;
    }
    // The sentence is quoted on the cue's own line: what follows is the next rule.
    if (line.split(QUOTED).length > 1) continue;
    for (let j = i + 1; j < lines.length && lines[j]!.trim() !== ''; j++) {
      const below = lines[j]!.trim();
      if (echoableOutsideQuotes(below)) found.push(below);
    }
  }
  return found;
}
