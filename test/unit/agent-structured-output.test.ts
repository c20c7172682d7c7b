/**
 * structuredOutput: the reply of the model read as JSON, also inside a markdown fence.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { structuredOutput } from '../../src/agent/agent.js';

const schema = z.object({ a: z.number() });

describe('structuredOutput', () => {
  it('reads plain JSON and JSON in a fence, with or without its language', () => {
    expect(structuredOutput('{"a":1}', schema)).toEqual({ a: 1 });
    expect(structuredOutput('```json\n{"a":1}\n```', schema)).toEqual({ a: 1 });
    expect(structuredOutput('  ```\n{"a":\n2}\n```  \n', schema)).toEqual({ a: 2 });
    expect(structuredOutput('```json\n\n{"a":3}\n\n```\n', schema)).toEqual({ a: 3 });
    expect(structuredOutput('```json {"a":1}```', schema)).toBeUndefined();
    expect(structuredOutput('```json\n{"a":"x"}\n```', schema)).toBeUndefined();
  });

  // Not a speed target: a model that loops on newlines (or is told to by a mail) wrote a reply the fence pattern took
  // cubic time on (security review 15: a fence and 2 x 5,000 newlines took 224 s). The model's output has no length cap
  // of ours. The bound is far from both a linear read (milliseconds) and the blow-up, so a busy machine does not fail it.
  it('reads a reply of a fence and thousands of newlines at once', { timeout: 120_000 }, () => {
    const newlines = '\n'.repeat(3_000);
    const started = performance.now();
    expect(structuredOutput(`\`\`\`\n${newlines}\u0000${newlines}`, schema)).toBeUndefined();
    expect(structuredOutput(`\`\`\`json\n${newlines}{"a":1}${newlines}\`\`\``, schema)).toEqual({ a: 1 });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
