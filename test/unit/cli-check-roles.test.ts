/**
 * `npm run check -- --role ROLE` (newcomer's walk, finding 5): a machine running only agent workers has no mailbox,
 * SMTP server or dashboard of its own, so checking them there failed every run. Each role's checks are what it uses.
 */
import { describe, expect, it } from 'vitest';
import { CHECK_ROLES, checksOfRole, type CheckName, type CheckRole } from '../../src/cli/check-roles.js';
import type { SentCopyConfig } from '../../src/mail/sent-copy.js';

const mailbox: SentCopyConfig = {
  IMAP_HOST: 'imap.example.com',
  IMAP_PORT: 993,
  IMAP_SECURE: true,
  IMAP_ALLOW_PLAIN_LOGIN: false,
  IMAP_USER: 'support@example.com',
  IMAP_PASSWORD: 'secret',
  IMAP_SENT_MAILBOX: undefined,
};
const noMailbox: SentCopyConfig = { ...mailbox, IMAP_HOST: undefined, IMAP_USER: undefined, IMAP_PASSWORD: undefined };
const sentCopyOff: SentCopyConfig = { ...mailbox, IMAP_SENT_MAILBOX: 'off' };

describe('checksOfRole', () => {
  it.each<[CheckRole, SentCopyConfig, CheckName[]]>([
    ['all', noMailbox, ['timeZone', 'redis', 'oauth2', 'imap', 'ownGroup', 'prompts', 'model', 'search', 'smtp', 'dashboard']],
    ['agent-worker', mailbox, ['timeZone', 'redis', 'prompts', 'model', 'search']],
    ['poller', noMailbox, ['timeZone', 'redis', 'oauth2', 'imap', 'ownGroup']],
    // The sender files each reply in the Sent folder over IMAP when it has a login and the copy is not switched off.
    ['sender', mailbox, ['timeZone', 'redis', 'oauth2', 'smtp', 'imap']],
    ['sender', noMailbox, ['timeZone', 'redis', 'oauth2', 'smtp']],
    ['sender', sentCopyOff, ['timeZone', 'redis', 'oauth2', 'smtp']],
    ['scheduler', mailbox, ['timeZone', 'redis', 'model', 'search']],
    ['dashboard', mailbox, ['timeZone', 'redis', 'dashboard']],
  ])('%s with %o checks %j', (role, config, checks) => {
    expect([...checksOfRole(role, config)].sort()).toEqual([...checks].sort());
  });

  it('knows the long-running roles of infra/entrypoint.sh, and all of them together', () => {
    expect([...CHECK_ROLES].sort()).toEqual(['agent-worker', 'all', 'dashboard', 'poller', 'scheduler', 'sender']);
  });
});
