/**
 * The desk's decision settings as the poller records them and an agent worker compares them with its own: which
 * differences stop the worker, which do not, and what it says about them.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig, VARIABLES } from '../../src/config.js';
import {
  DESK_SETTING_NAMES,
  deskSettingsMismatch,
  deskSettingsOf,
  describeDeskSettingsMismatch,
  describeReplacedDeskSettings,
  differingSettings,
  type DeskSettingsConfig,
  type RecordedDeskSettings,
} from '../../src/runtime/desk-settings.js';
import { agentCheck } from '../../src/server/health.js';

/** A machine's configuration with only `env` set beyond the defaults. */
const machine = (env: Record<string, string> = {}): DeskSettingsConfig =>
  parseConfig({ REDIS_URL: 'redis://127.0.0.1:6379', MAIL_FROM: 'XYZ Support <support@example.com>', ...env });

const recorded = (env: Record<string, string> = {}, host = 'main-host'): RecordedDeskSettings => ({ host, pid: 4242, at: 0, settings: deskSettingsOf(machine(env)) });

describe('differingSettings', () => {
  const rows: Array<{ name: string; poller: Record<string, string>; worker: Record<string, string>; differ: string[] }> = [
    { name: 'the same .env', poller: {}, worker: {}, differ: [] },
    { name: 'the default beside auto (the newcomer’s second machine)', poller: { REVIEW_MODE: 'auto' }, worker: {}, differ: ['REVIEW_MODE'] },
    { name: 'the default beside always (unreviewed replies)', poller: { REVIEW_MODE: 'always' }, worker: {}, differ: ['REVIEW_MODE'] },
    { name: 'a reply limit', poller: { AUTO_REPLY_LIMIT_PER_HOUR: '10' }, worker: {}, differ: ['AUTO_REPLY_LIMIT_PER_HOUR'] },
    { name: 'a run limit and a trust setting', poller: { AGENT_RUN_LIMIT_TOTAL_PER_HOUR: '50', TRUST_MIN_AS_IS: '0.95' }, worker: {}, differ: ['TRUST_MIN_AS_IS', 'AGENT_RUN_LIMIT_TOTAL_PER_HOUR'] },
    { name: 'trusted domains only on the poller', poller: { TRUSTED_LINK_DOMAINS: 'example.com' }, worker: {}, differ: ['TRUSTED_LINK_DOMAINS'] },
    { name: 'trusted domains in another order, one twice', poller: { TRUSTED_LINK_DOMAINS: 'a.example,b.example' }, worker: { TRUSTED_LINK_DOMAINS: 'b.example,a.example,a.example' }, differ: [] },
    { name: 'another reply address', poller: {}, worker: { MAIL_FROM: 'Other <help@example.net>' }, differ: ['MAIL_FROM'] },
    { name: 'spam header set, and set empty', poller: { SPAM_HEADER: 'X-Rspamd-Action' }, worker: { SPAM_HEADER: '' }, differ: ['SPAM_HEADER'] },
    { name: 'the same spam header', poller: { SPAM_HEADER: 'X-Rspamd-Action' }, worker: { SPAM_HEADER: 'X-Rspamd-Action' }, differ: [] },
    { name: 'authserv-id', poller: { AUTHSERV_ID: 'mx.google.com' }, worker: {}, differ: ['AUTHSERV_ID'] },
    { name: 'the product name', poller: { PRODUCT_NAME: 'ABC' }, worker: {}, differ: ['PRODUCT_NAME'] },
    // Not a decision setting: the model, concurrency and search settings may differ per machine.
    { name: 'model, concurrency and search settings', poller: { OPENAI_MODEL: 'a', AGENT_CONCURRENCY: '2' }, worker: { OPENAI_MODEL: 'b', AGENT_CONCURRENCY: '16' }, differ: [] },
    // Spellings that mean the same: domains and addresses compare without case, MAIL_FROM by its display name as
    // written and its address without case (the name is the reply's From line; quoting it changes nothing).
    { name: 'a trusted link domain in capitals', poller: { TRUSTED_LINK_DOMAINS: 'Docs.Example.com' }, worker: { TRUSTED_LINK_DOMAINS: 'docs.example.com' }, differ: [] },
    { name: 'a trusted Reply-To domain in capitals', poller: { TRUSTED_REPLY_TO_DOMAINS: 'Partner.Example' }, worker: { TRUSTED_REPLY_TO_DOMAINS: 'partner.example' }, differ: [] },
    { name: 'a support alias in capitals', poller: { SUPPORT_ADDRESSES: 'Help@Example.com' }, worker: { SUPPORT_ADDRESSES: 'help@example.com' }, differ: [] },
    { name: 'a support group in capitals', poller: { SUPPORT_GROUP_ADDRESSES: 'Support-Group@Example.com' }, worker: { SUPPORT_GROUP_ADDRESSES: 'support-group@example.com' }, differ: [] },
    { name: 'MAIL_FROM’s address in capitals', poller: { MAIL_FROM: 'XYZ Support <Support@Example.com>' }, worker: {}, differ: [] },
    { name: 'MAIL_FROM’s display name quoted', poller: { MAIL_FROM: '"XYZ Support" <support@example.com>' }, worker: {}, differ: [] },
    { name: 'MAIL_FROM’s display name changed (the reply’s From line)', poller: { MAIL_FROM: 'XYZ Helpdesk <support@example.com>' }, worker: {}, differ: ['MAIL_FROM'] },
    { name: 'MAIL_FROM’s display name in other capitals', poller: { MAIL_FROM: 'xyz support <support@example.com>' }, worker: {}, differ: ['MAIL_FROM'] },
    { name: 'another trusted link domain still differs', poller: { TRUSTED_LINK_DOMAINS: 'docs.example.com' }, worker: { TRUSTED_LINK_DOMAINS: 'Docs.Example.net' }, differ: ['TRUSTED_LINK_DOMAINS'] },
  ];
  it.each(rows)('$name', ({ poller, worker, differ }) => {
    expect(differingSettings(deskSettingsOf(machine(worker)), deskSettingsOf(machine(poller)))).toEqual(DESK_SETTING_NAMES.filter((n) => differ.includes(n)));
  });

  it('counts only the variables both sides know, and nothing without a record', () => {
    const own = deskSettingsOf(machine());
    const { REVIEW_MODE: _left, ...olderPoller } = deskSettingsOf(machine({ REVIEW_MODE: 'auto' }));
    expect(differingSettings(own, olderPoller)).toEqual([]);
    expect(differingSettings(own, { ...own, SOME_LATER_SETTING: '"x"' })).toEqual([]);
    expect(differingSettings(own, undefined)).toEqual([]);
  });
});

describe('deskSettingsOf', () => {
  it('records every decision setting, each a variable config.ts declares', () => {
    const settings = deskSettingsOf(machine({ REVIEW_MODE: 'auto', TRUSTED_REPLY_TO_DOMAINS: 'b.example, a.example' }));
    expect(Object.keys(settings)).toEqual([...DESK_SETTING_NAMES]);
    for (const name of DESK_SETTING_NAMES) expect(VARIABLES).toHaveProperty(name);
    expect(settings.REVIEW_MODE).toBe('"auto"');
    expect(settings.TRUSTED_REPLY_TO_DOMAINS).toBe('["a.example","b.example"]');
    expect(settings.AUTO_REPLY_LIMIT_PER_HOUR).toBe('5');
    expect(settings.SPAM_HEADER).toBe('null');
  });

  it('records a sensitive variable as a digest only (none of the decision settings is one today)', () => {
    const sensitive = DESK_SETTING_NAMES.filter((name) => VARIABLES[name].sensitive);
    expect(sensitive).toEqual([]);
    // The rule itself, through a variable the table marks sensitive, by swapping it in for one name.
    const spec = VARIABLES.MAIL_FROM as { sensitive: boolean };
    spec.sensitive = true;
    try {
      const a = deskSettingsOf(machine({ MAIL_FROM: 'secret-one@example.com' }));
      const b = deskSettingsOf(machine({ MAIL_FROM: 'secret-two@example.com' }));
      expect(a.MAIL_FROM).toMatch(/^sha256:[0-9a-f]{32}$/);
      expect(a.MAIL_FROM).not.toContain('secret');
      expect(differingSettings(a, b)).toEqual(['MAIL_FROM']);
      const said = describeDeskSettingsMismatch(deskSettingsMismatch(a, { host: 'main-host', pid: 1, at: 0, settings: b })!, { who: 'this agent worker', where: 'this machine' });
      expect(said).not.toContain('secret');
      expect(said).toContain('MAIL_FROM (not shown: sensitive)');
    } finally {
      spec.sensitive = false;
    }
  });
});

describe('deskSettingsMismatch and what is said about it', () => {
  const words = { who: 'this agent worker', where: 'this machine' };
  const rows: Array<{ name: string; poller: Record<string, string>; worker: Record<string, string>; said: string | undefined }> = [
    { name: 'nothing differs', poller: {}, worker: {}, said: undefined },
    {
      name: 'REVIEW_MODE',
      poller: { REVIEW_MODE: 'auto' },
      worker: {},
      said:
        'this agent worker takes no tickets: its decision settings differ from those of main-host (the poller\'s machine): REVIEW_MODE is "learn" here and "auto" there; ' +
        'make them the same — on this machine, or on main-host and restart its poller; the mail waits in the queue',
    },
    {
      name: 'two, one of them empty there',
      poller: { REVIEW_MODE: 'always' },
      worker: { TRUSTED_LINK_DOMAINS: 'example.com' },
      said:
        'this agent worker takes no tickets: its decision settings differ from those of main-host (the poller\'s machine): REVIEW_MODE is "learn" here and "always" there, TRUSTED_LINK_DOMAINS is "example.com" here and empty there; ' +
        'make them the same — on this machine, or on main-host and restart its poller; the mail waits in the queue',
    },
    {
      // A poller alone with its IMAP settings recorded the defaults: neither side is named the one to follow.
      name: 'a worker set to auto beside a poller on the defaults',
      poller: {},
      worker: { REVIEW_MODE: 'auto' },
      said:
        'this agent worker takes no tickets: its decision settings differ from those of main-host (the poller\'s machine): REVIEW_MODE is "auto" here and "learn" there; ' +
        'make them the same — on this machine, or on main-host and restart its poller; the mail waits in the queue',
    },
  ];
  it.each(rows)('$name', ({ poller, worker, said }) => {
    const mismatch = deskSettingsMismatch(deskSettingsOf(machine(worker)), recorded(poller));
    expect(mismatch && describeDeskSettingsMismatch(mismatch, words)).toBe(said);
  });

  it('is none without a record (no poller started yet)', () => {
    expect(deskSettingsMismatch(deskSettingsOf(machine({ REVIEW_MODE: 'never' })), undefined)).toBeUndefined();
  });

  it('shows a long value cut short', () => {
    const domains = Array.from({ length: 40 }, (_, i) => `d${i}.example`).join(',');
    const mismatch = deskSettingsMismatch(deskSettingsOf(machine()), recorded({ TRUSTED_LINK_DOMAINS: domains }))!;
    expect(mismatch.differing[0]!.there!.length).toBe(121);
    expect(mismatch.differing[0]!.there!.endsWith('…')).toBe(true);
  });
});

describe('describeReplacedDeskSettings: what the poller warns when it records other settings', () => {
  const rows: Array<{ name: string; before: Record<string, string> | undefined; now: Record<string, string>; said: string | undefined }> = [
    { name: 'the first record', before: undefined, now: { REVIEW_MODE: 'auto' }, said: undefined },
    { name: 'the same settings again', before: { REVIEW_MODE: 'auto' }, now: { REVIEW_MODE: 'auto' }, said: undefined },
    { name: 'the same, spelled otherwise', before: { TRUSTED_LINK_DOMAINS: 'Docs.Example.com' }, now: { TRUSTED_LINK_DOMAINS: 'docs.example.com' }, said: undefined },
    {
      name: 'a poller alone with its IMAP settings, after one set to auto',
      before: { REVIEW_MODE: 'auto', TRUSTED_LINK_DOMAINS: 'example.com' },
      now: {},
      said:
        'this poller\'s decision settings replace those main-host recorded: REVIEW_MODE "learn" (was "auto"), TRUSTED_LINK_DOMAINS empty (was "example.com"). ' +
        "Expected once after they changed in this machine's .env; agent workers whose own differ take no tickets until they agree. " +
        "If this machine's .env lacks them (a poller with only its IMAP settings records the defaults), set them here as on the agent workers' machines and restart this poller.",
    },
  ];
  it.each(rows)('$name', ({ before, now, said }) => {
    expect(describeReplacedDeskSettings(before && recorded(before), recorded(now, 'poller-host'))).toBe(said);
  });
});

describe('agentCheck with a worker whose decision settings differ', () => {
  const now = new Date('2026-11-29T05:00:00Z');
  const mismatch = deskSettingsMismatch(deskSettingsOf(machine()), recorded({ REVIEW_MODE: 'auto' }));
  const rows = [
    { name: 'only that worker', reports: [{ process: 'worker-b#7', seenAt: now, reachedAt: now, deskSettings: mismatch! }], status: 'fail' },
    { name: 'beside a worker that agrees', reports: [{ process: 'main-host#1', seenAt: now, reachedAt: now }, { process: 'worker-b#7', seenAt: now, reachedAt: now, deskSettings: mismatch! }], status: 'fail' },
    { name: 'none differs', reports: [{ process: 'main-host#1', seenAt: now, reachedAt: now }], status: 'ok' },
  ];
  it.each(rows)('$name', ({ reports, status }) => {
    const check = agentCheck(reports, now);
    expect(check.status).toBe(status);
    if (status === 'fail') {
      expect(check.detail).toContain('agent worker worker-b#7 takes no tickets: its decision settings differ from those of main-host');
      expect(check.detail).toContain('REVIEW_MODE is "learn" here and "auto" there');
      expect(check.detail).toContain('make them the same — on that machine, or on main-host and restart its poller');
    } else expect(check.detail).not.toContain('decision settings');
  });
});
