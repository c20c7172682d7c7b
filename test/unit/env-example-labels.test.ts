/**
 * `.env.example`'s labels (newcomer's walk, finding 6): a variable with no default that a role will not start without
 * reads "(empty by default)", not "(optional)" beside its own "(required by the poller)"; "(optional)" stays for what
 * truly is.
 */
import { describe, expect, it } from 'vitest';
import { renderEnvExample } from '../../src/config.js';
import { POLLER_VARIABLES } from '../../src/runtime/poller.js';
import { SENDER_VARIABLES } from '../../src/runtime/sender.js';

/** The comment line `.env.example` gives `name`: the one right above its `NAME=` or `# NAME=` line. */
function label(name: string): string {
  const lines = renderEnvExample().split('\n');
  const at = lines.findIndex((line) => line === `${name}=` || line.startsWith(`${name}=`) || line === `# ${name}=`);
  expect(at, name).toBeGreaterThan(0);
  return lines[at - 1]!;
}

describe('.env.example labels', () => {
  it.each([...POLLER_VARIABLES, ...SENDER_VARIABLES, 'DASHBOARD_PASSWORD', 'MAIL_OAUTH2_TOKEN_URL', 'MAIL_OAUTH2_CLIENT_ID', 'MAIL_OAUTH2_CLIENT_SECRET'])(
    '%s, which a role will not start without, is empty by default',
    (name) => {
      expect(label(name)).toMatch(/\((?:empty by default)(?:, sensitive)?\)$/);
      expect(label(name)).not.toContain('(optional');
    },
  );

  it.each(['OPENAI_BASE_URL', 'MEILI_HOST', 'QDRANT_URL', 'SMTP_USER', 'IMAP_SENT_MAILBOX', 'METRICS_TOKEN', 'MAIL_OAUTH2_REFRESH_TOKEN'])('%s stays optional', (name) => {
    expect(label(name)).toMatch(/\(optional(?:, sensitive)?\)$/);
  });

  it.each([
    ['IMAP_HOST', '# IMAP server of the support mailbox (required by the poller) (empty by default)'],
    ['IMAP_PASSWORD', '# IMAP password of the support mailbox (not used with MAIL_AUTH=oauth2) (empty by default, sensitive)'],
  ])('labels %s as a newcomer reads it', (name, line) => {
    expect(label(name)).toBe(line);
  });
});
