/**
 * `npm run check`'s line about PROMPTS_FILE: whether the roles can load it, and which fixed sentences it tells the
 * model to write outside 「」 or "". The echo check (src/tickets/prompt-echo.ts) parks any draft that repeats 40
 * letters of a prompt outside its quotes, so a file written before that check, giving its closing on a line of its own,
 * has every draft that obeys it parked, with no other sign than a growing parked list.
 */
import { loadPromptOverridesSync, PromptConfigError, type PromptSet } from '../agent/prompts.js';
import { unquotedTextToWrite } from '../tickets/prompt-echo.js';
import type { CheckOutcome } from './check.js';
import { terminalSafe } from './format.js';

/** How much of a sentence the line quotes: enough to find it in the file. */
const SHOWN_CHARS = 80;

const shown = (sentence: string) => terminalSafe(sentence.length > SHOWN_CHARS ? `${sentence.slice(0, SHOWN_CHARS)}…` : sentence);

/**
 * The check's line for PROMPTS_FILE `file`, or undefined when it is not set: failed when the roles would not start
 * with it (unreadable, not JSON, unknown names, unsafe placeholders), a warning naming each overridden prompt's
 * sentence the model is told to write outside quotes ({@link unquotedTextToWrite}), ok otherwise.
 */
export function promptsFileOutcome(file: string | undefined): CheckOutcome | undefined {
  if (!file) return undefined;
  const what = 'Prompts file';
  let overrides: Partial<PromptSet>;
  try {
    overrides = loadPromptOverridesSync(file);
  } catch (err) {
    const detail = err instanceof PromptConfigError ? err.problems.join('; ') : String(err);
    return { what, where: file, status: 'failed', detail: `the roles will not start with it: ${terminalSafe(detail)}` };
  }
  const names = Object.keys(overrides) as (keyof PromptSet)[];
  const unquoted = names.flatMap((name) => unquotedTextToWrite(overrides[name] ?? '').map((sentence) => `${name}: ${shown(sentence)}`));
  if (unquoted.length > 0) {
    return {
      what,
      where: file,
      status: 'warning',
      detail: `a draft that writes these is parked as an echo of the prompt: ${unquoted.join(' | ')} — put each sentence the model must write inside 「」 or ""`,
    };
  }
  return { what, where: file, status: 'ok', detail: `overrides ${names.join(', ')}` };
}
