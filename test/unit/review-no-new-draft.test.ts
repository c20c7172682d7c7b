import { describe, expect, it } from 'vitest';
import { whyNoNewDraft } from '../../src/tickets/review.js';

// Why a ticket without a question gets no new draft, as the review page and `review rerun` say it: the operator
// must see what the mail held, not "empty subject and body" for a web form that named its sender (review 7 #9).
describe('whyNoNewDraft: a mail without a question', () => {
  it.each([
    ['nothing at all', '', 'The mail has no question for the agent (empty subject and body)'],
    ['empty form labels', 'お名前:\nお問い合わせ内容:', "(only form labels with nothing after them or the sender's own details (an empty web form))"],
    ['only the sender’s own details', '差出人: 松本 大輔 <d.matsumoto@matsumoto-tax.jp>\n題名:\nメッセージ本文:', "(only form labels with nothing after them or the sender's own details (an empty web form))"],
  ])('%s', (_what, question, said) => {
    expect(whyNoNewDraft({ history: [], question })).toContain(said);
  });

  it('a mail with a question gets a new draft', () => {
    expect(whyNoNewDraft({ history: [], question: '請求書を再発行できますか？' })).toBeUndefined();
  });
});
