import { describe, expect, it } from 'vitest';
import { formatReport, loadEvaluationInput, runEvaluation, type Comparison } from '../../src/search/evaluate.js';

// The eval sets are written against data/manuals/xyz-manual.md and data/qa/xyz-qa.csv; the Q&A side runs with the
// local hashed embedder, so this measures the lexical machinery (tokenizer, weighting, BM25 + vector fusion).
describe('retrieval quality against the plain-bigram baseline', () => {
  it('ours ≥ baseline on hit@3 and MRR@10 for manual keyword, manual natural and Q&A', async () => {
    const input = await loadEvaluationInput({
      manual: 'data/manuals/xyz-manual.md',
      manualEval: 'test/fixtures/eval/manual.json',
      qa: 'data/qa/xyz-qa.csv',
      qaEval: 'test/fixtures/eval/qa.json',
    });
    const report = await runEvaluation(input);
    console.log(`\n${formatReport(report)}\n`);

    const sets: [string, Comparison | undefined][] = [
      ['manual keyword', report.manual.keyword],
      ['manual natural', report.manual.natural],
      ['qa', report.qa],
    ];
    for (const [name, c] of sets) {
      expect(c, `${name} evaluated`).toBeDefined();
      expect(c!.ours.queries, `${name} has queries`).toBeGreaterThan(0);
      expect(c!.ours.hitAt3, `${name} hit@3`).toBeGreaterThanOrEqual(c!.baseline.hitAt3);
      expect(c!.ours.mrrAt10, `${name} MRR@10`).toBeGreaterThanOrEqual(c!.baseline.mrrAt10);
    }
  }, 120_000);
});
