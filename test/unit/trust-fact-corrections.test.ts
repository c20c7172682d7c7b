/**
 * An approval that corrects a fact — a number, a date, a URL or e-mail address, an error code — is a correction,
 * however few characters it changed: a reviewer who changes 「7 日間」 to 「3 日間」 on every draft has not seen the
 * agent be right. Such an approval never counts as "approved as is" towards a source's trust.
 */
import { describe, expect, it } from 'vitest';
import { approvalRecord, changedFacts, outcomeOnEntering } from '../../src/tickets/outcome.js';
import { judgeTrust, reviewEntry, type Review, type TrustSettings } from '../../src/tickets/trust.js';
import { readReviewEntry } from '../../src/tickets/trust.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 5, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };
const BODY = '各利用者は 7 日間の猶予期間内に設定を済ませる必要があります。詳しくは https://help.xyz.example/2fa をご覧ください。';

describe('changedFacts', () => {
  it.each([
    ['a number', BODY, BODY.replace('7 日間', '3 日間'), ['number']],
    ['a full-width number written half-width is no change', '料金は１，０００円です。', '料金は1,000円です。', []],
    ['a decimal', '前後 0.5 秒まで', '前後 1.5 秒まで', ['number']],
    ['a date', '2025年4月1日から変わります。', '2025年5月1日から変わります。', ['date']],
    ['a date in ISO form', 'Effective 2025-04-01.', 'Effective 2025-04-10.', ['date']],
    ['a month and day', '4月1日から受け付けます。', '4月10日から受け付けます。', ['date']],
    ['a URL', BODY, BODY.replace('https://help.xyz.example/2fa', 'https://help.xyz.example/security/2fa'), ['url']],
    ['an e-mail address', 'support@xyz.example までご連絡ください。', 'billing@xyz.example までご連絡ください。', ['email']],
    ['an error code', 'エラー E1023 が表示された場合', 'エラー E1032 が表示された場合', ['error code']],
    ['an error code with a dash', 'Error XYZ-404 means the file is missing.', 'Error XYZ-410 means the file is missing.', ['error code']],
    ['a number removed with its sentence', `${BODY}\n返金は 14 日以内に行います。`, BODY, ['number']],
    ['wording only', BODY, BODY.replace('済ませる必要があります', '完了してください'), []],
    ['the same facts in another order', '手順は 1 と 2 です。', '手順は 2 と 1 です。', []],
    ['greeting and signature are not the answer', '山田様\n\n' + BODY + '\n\nよろしくお願いいたします。\nTel 03-1234-5678', '鈴木様\n\n' + BODY + '\n\nよろしくお願いいたします。\nTel 03-9999-0000', []],
  ] as const)('%s', (_name, draft, sent, kinds) => {
    expect(changedFacts(draft, sent)).toEqual(kinds);
  });
});

describe('an approval that corrects a fact', () => {
  const at = '2026-11-26T10:00:00.000Z';
  it('is recorded on the approval and the outcome, whatever its edit ratio', () => {
    const record = approvalRecord(BODY, BODY.replace('7 日間', '3 日間'));
    expect(record.editRatio).toBeLessThan(0.05);
    expect(record.factsChanged).toEqual(['number']);
    const outcome = outcomeOnEntering({ outbound: { messageId: '<m@x>', autoSubmitted: false }, approval: record, history: [] }, 'sent', at);
    expect(outcome).toEqual({ kind: 'approved_edited', at, editRatio: record.editRatio, factsChanged: ['number'] });
    expect(approvalRecord(BODY, BODY.replace('済ませる必要があります', '完了してください')).factsChanged).toBeUndefined();
  });

  it.each([
    ['five light wording edits', Array<Review>(5).fill({ kind: 'approved_edited', editRatio: 0.01, ticketId: 't' }), true, undefined],
    ['five one-digit corrections', Array<Review>(5).fill({ kind: 'approved_edited', editRatio: 0.0013, ticketId: 't', factsChanged: true }), false, '0 of its last 5 reviews approved as is, needs 90 %'],
    [
      'one correction among five as is',
      [{ kind: 'approved_edited', editRatio: 0.0013, ticketId: 't', factsChanged: true }, ...Array<Review>(5).fill({ kind: 'approved_as_is', editRatio: 0, ticketId: 't' })],
      false,
      '5 of its last 6 reviews approved as is, needs 90 %',
    ],
  ] as const)('%s: trusted %s', (_name, reviews, trusted, missing) => {
    const record = judgeTrust('s', reviews, SETTINGS);
    expect(record.trusted).toBe(trusted);
    expect(record.missing).toBe(missing);
  });

  it('is written to and read back from a source list', () => {
    const entry = reviewEntry({ kind: 'approved_edited', editRatio: 0.0013, factsChanged: ['number'] }, 'abc');
    expect(entry).toBe('approved_edited 0.0013 abc facts');
    expect(readReviewEntry(entry)).toEqual({ kind: 'approved_edited', editRatio: 0.0013, ticketId: 'abc', factsChanged: true });
    // Entries written before facts were recorded read as they did.
    expect(readReviewEntry('approved_edited 0.01 abc')).toEqual({ kind: 'approved_edited', editRatio: 0.01, ticketId: 'abc' });
  });
});

describe('changedFacts on a long run of letters', () => {
  // The approval handler compares the draft and the reply before it answers: an e-mail pattern tried from every
  // position of a 20,000-letter run without '@' (Japanese without punctuation) took 25 s there, blocking the dashboard.
  // Linear patterns take milliseconds; the bound is far above that, far below the quadratic time.
  it('compares in one pass, not one per starting position', () => {
    const run = 'あ'.repeat(20_000);
    const started = performance.now();
    expect(changedFacts(run, `${run}1`)).toEqual(['number']);
    expect(changedFacts('1'.repeat(20_000), `${'1'.repeat(20_000)}x`)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
