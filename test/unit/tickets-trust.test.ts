/**
 * Trust of knowledge sources (REVIEW_MODE=learn): which sources a draft cited, how a record is judged, and what the
 * CLI prints.
 */
import { describe, expect, it } from 'vitest';
import type { Subtask } from '../../src/agent/types.js';
import { formatTrust } from '../../src/cli/knowledge-trust.js';
import { ConfigError, parseConfig } from '../../src/config.js';
import { citedSources, judgeTrust, reviewEntry, unsourcedSubtasks, type Review, type TrustSettings } from '../../src/tickets/trust.js';
import { subtaskWithHits } from '../support/search-subtask.js';

const SETTINGS: TrustSettings = { TRUST_MIN_REVIEWS: 5, TRUST_MIN_AS_IS: 0.9, TRUST_WINDOW: 20, TRUST_MAX_EDIT_RATIO: 0.2 };

const subtask = subtaskWithHits;

describe('citedSources', () => {
  it('names each section or pair by where it came from and a hash of its text; a changed text is a new source', () => {
    const before = citedSources({
      subtasks: [
        subtask([
          { tool: 'search_xyz_manual', fileName: 'guide/login.md', content: '二段階認証は設定画面から。' },
          { tool: 'search_xyz_manual', fileName: 'guide/login.md', content: 'パスワードは8文字以上。' },
          { tool: 'search_xyz_qa', fileName: 'faq.csv#12', content: 'Q: … A: …' },
        ]),
        subtask([{ tool: 'search_xyz_manual', fileName: 'guide/login.md', content: '二段階認証は設定画面から。\r\n' }]),
        // A subtask that fell back relied on nothing it found.
        subtask([{ tool: 'search_xyz_manual', fileName: 'guide/other.md', content: 'x' }], false),
      ],
    });
    expect(before.map((s) => s.kind)).toEqual(['manual', 'manual', 'qa']);
    expect(before[0]!.key).toMatch(/^manual:guide\/login\.md#[0-9a-f]{12}$/);
    expect(new Set(before.map((s) => s.key)).size).toBe(3);
    const after = citedSources({ subtasks: [subtask([{ tool: 'search_xyz_manual', fileName: 'guide/login.md', content: '二段階認証は設定画面の「セキュリティ」から。' }])] });
    expect(after[0]!.key).not.toBe(before[0]!.key);
  });
});

describe('judgeTrust', () => {
  const asIs: Review = { kind: 'approved_as_is', editRatio: 0, ticketId: 't' };
  const light: Review = { kind: 'approved_edited', editRatio: 0.15, ticketId: 't' };
  const heavy: Review = { kind: 'approved_edited', editRatio: 0.35, ticketId: 't' };
  const rejected: Review = { kind: 'rejected', ticketId: 't' };
  const legacy: Review = { kind: 'approved_edited', ticketId: 't' };
  it.each([
    ['no reviews', [], false, '0 of 5 reviews'],
    ['four as-is reviews', [asIs, asIs, asIs, asIs], false, '4 of 5 reviews'],
    ['five as-is reviews', [asIs, asIs, asIs, asIs, asIs], true, undefined],
    ['light edits count as as-is', [light, asIs, light, asIs, asIs], true, undefined],
    ['a heavy edit after five', [heavy, asIs, asIs, asIs, asIs, asIs], false, '5 of its last 6 reviews approved as is, needs 90 %'],
    ['a rejection after five', [rejected, asIs, asIs, asIs, asIs, asIs], false, '5 of its last 6 reviews approved as is, needs 90 %'],
    ['an edit of unknown ratio', [legacy, asIs, asIs, asIs, asIs, asIs], false, '5 of its last 6 reviews approved as is, needs 90 %'],
    ['one bad in ten', [heavy, ...Array<Review>(9).fill(asIs)], true, undefined],
    ['a bad review drops out of the window', [...Array<Review>(20).fill(asIs), heavy, heavy, heavy], true, undefined],
  ] as const)('%s', (_name, reviews, trusted, missing) => {
    const record = judgeTrust('s', reviews, SETTINGS);
    expect(record.trusted).toBe(trusted);
    expect(record.missing).toBe(missing);
  });

  it('reads back what the store writes', () => {
    expect(reviewEntry({ kind: 'approved_edited', editRatio: 0.25 }, 'abc')).toBe('approved_edited 0.25 abc');
    expect(reviewEntry({ kind: 'rejected' }, 'abc')).toBe('rejected - abc');
  });
});

describe('settings and output', () => {
  it('refuses a minimum of reviews the window can never hold', () => {
    expect(() => parseConfig({ TRUST_MIN_REVIEWS: '30', TRUST_WINDOW: '20' })).toThrow(ConfigError);
    expect(() => parseConfig({ TRUST_MIN_AS_IS: '1.5' })).toThrow(/TRUST_MIN_AS_IS/);
    expect(parseConfig({ REVIEW_MODE: 'learn' }).REVIEW_MODE).toBe('learn');
  });

  it('lists trusted sources first with what the others miss', () => {
    const text = formatTrust(
      [
        { sourceId: 'manual:guide/login.md#aaaaaaaaaaaa', reviews: 3, approvedAsIs: 3, trusted: false, missing: '3 of 5 reviews' },
        { sourceId: 'qa:faq.csv#12#bbbbbbbbbbbb', reviews: 7, approvedAsIs: 7, trusted: true },
      ],
      SETTINGS,
    );
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^STATUS\s+AS IS\s+SOURCE\s+MISSING$/);
    expect(lines[1]).toMatch(/^trusted\s+7\/7\s+qa:faq\.csv#12#b+$/);
    expect(lines[2]).toMatch(/^not yet\s+3\/3\s+manual:guide\/login\.md#a+\s+3 of 5 reviews$/);
    expect(text).toContain('1 of 2 sources trusted.');
    expect(formatTrust([], SETTINGS)).toMatch(/^No source has been reviewed yet\./);
  });
});

describe('unsourcedSubtasks', () => {
  const hit = { tool: 'search_xyz_manual', fileName: 'guide/login.md', content: '二段階認証は設定画面から。' };
  const named = (name: string, s: Subtask): Subtask => ({ ...s, taskName: name });
  it.each([
    ['every completed subtask found something', [named('a', subtask([hit])), named('b', subtask([hit]))], []],
    ['a completed subtask that searched nothing', [named('a', subtask([hit])), named('b', subtask([]))], ['b']],
    ['a subtask that fell back is not an unsourced answer (auto already parks it)', [named('a', subtask([hit])), named('b', subtask([], false))], []],
    ['all unsourced', [named('a', subtask([])), named('b', subtask([]))], ['a', 'b']],
  ] as const)('%s', (_name, subtasks, expected) => {
    expect(unsourcedSubtasks({ subtasks: [...subtasks] })).toEqual(expected);
  });
});
