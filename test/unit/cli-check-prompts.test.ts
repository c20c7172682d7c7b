/**
 * What `npm run check` says about PROMPTS_FILE (review 5, #4): a file the roles would refuse fails the check, and a
 * fixed sentence the model is told to write outside 「」 or "" is named, since every draft that obeys would be parked
 * as an echo of the prompt.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultPrompts } from '../../src/agent/prompts.js';
import { promptsFileOutcome } from '../../src/cli/check-prompts.js';

const dir = mkdtempSync(path.join(tmpdir(), 'check-prompts-'));
const CLOSING = '本メールの内容に関するお問い合わせは、XYZサポートセンター（平日9時から18時）までお電話ください。';
const base = defaultPrompts.createLastAnswerSystemPrompt;

function file(name: string, text: string): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

describe('promptsFileOutcome', () => {
  it('says nothing without PROMPTS_FILE', () => {
    expect(promptsFileOutcome(undefined)).toBeUndefined();
  });

  it.each<[string, string, { status: string; detail: RegExp }]>([
    ['a sentence to write outside quotes', JSON.stringify({ createLastAnswerSystemPrompt: `${base}\n\n回答の最後には必ず次の一文を入れてください:\n${CLOSING}` }), { status: 'warning', detail: new RegExp(`createLastAnswerSystemPrompt: ${CLOSING.replace(/[()（）]/g, '.')}.*「」`) }],
    ['the same sentence in 「」', JSON.stringify({ createLastAnswerSystemPrompt: `${base}\n\n回答の最後には必ず「${CLOSING}」と書いてください。` }), { status: 'ok', detail: /createLastAnswerSystemPrompt/ }],
    ['a file the roles refuse', '{"createLastAnswerSystemPrompt": "あなたは回答担当です。"', { status: 'failed', detail: /not valid JSON/ }],
    ['an unknown prompt name', JSON.stringify({ finalPrompt: 'x' }), { status: 'failed', detail: /unknown prompt name/ }],
  ])('%s', (name, text, expected) => {
    const at = file(`${name.replace(/\W+/g, '-')}.json`, text);
    const outcome = promptsFileOutcome(at);
    expect(outcome).toMatchObject({ what: 'Prompts file', where: at, status: expected.status });
    expect(outcome?.detail).toMatch(expected.detail);
  });

  it('fails on a file that cannot be read', () => {
    expect(promptsFileOutcome(path.join(dir, 'missing.json'))).toMatchObject({ status: 'failed', detail: expect.stringMatching(/ENOENT/) });
  });
});
