/**
 * `npm run check -- --role ROLE`: which of the check's lines a machine running only that role needs. A machine with
 * only agent workers (docker-compose.worker.yml) has no mailbox, SMTP server or dashboard of its own; checking them
 * there failed every run, and an admin learned to ignore the exit code that was to tell them the worker can run.
 * The roles are those of `npm start`'s process (`all`) and of `docker run IMAGE ROLE` (infra/entrypoint.sh).
 */
import { sentCopySetting, type SentCopyConfig } from '../mail/sent-copy.js';

/** The roles `--role` takes: each long-running process of infra/entrypoint.sh, `all` being `npm start`. */
export const CHECK_ROLES = ['all', 'agent-worker', 'poller', 'sender', 'scheduler', 'dashboard'] as const;

/** A role whose servers `npm run check` reaches. */
export type CheckRole = (typeof CHECK_ROLES)[number];

/** One group of the check's lines: a server reached, or a setting read. */
export type CheckName = 'redis' | 'oauth2' | 'imap' | 'ownGroup' | 'smtp' | 'prompts' | 'model' | 'search' | 'dashboard' | 'timeZone';

const EVERY_CHECK: readonly CheckName[] = ['timeZone', 'redis', 'oauth2', 'imap', 'ownGroup', 'prompts', 'model', 'search', 'smtp', 'dashboard'];

/**
 * What each role reaches. Every role queues or takes its work in Redis and writes times in TZ. The poller logs in to
 * the mailbox (with the OAuth2 token when MAIL_AUTH=oauth2) and classifies the mail, which reads the group settings;
 * the agent worker loads PROMPTS_FILE, asks the model and searches the indexes this machine serves; the scheduler
 * rebuilds them from MANUALS_DIR/QA_DIR with the model (embeddings, the personal-data scrub); the sender mails over
 * SMTP and files a copy in the mailbox's Sent folder (see {@link checksOfRole}); the dashboard listens.
 */
const ROLE_CHECKS: Record<Exclude<CheckRole, 'all'>, readonly CheckName[]> = {
  poller: ['timeZone', 'redis', 'oauth2', 'imap', 'ownGroup'],
  'agent-worker': ['timeZone', 'redis', 'prompts', 'model', 'search'],
  sender: ['timeZone', 'redis', 'oauth2', 'smtp', 'imap'],
  scheduler: ['timeZone', 'redis', 'model', 'search'],
  dashboard: ['timeZone', 'redis', 'dashboard'],
};

/**
 * The checks `role` needs with `config`. The sender logs in to IMAP only to file its Sent copies: without an IMAP
 * login (or with IMAP_SENT_MAILBOX=off) it runs without one, so the mailbox is not checked for it then.
 */
export function checksOfRole(role: CheckRole, config: SentCopyConfig): ReadonlySet<CheckName> {
  if (role === 'all') return new Set(EVERY_CHECK);
  const checks = ROLE_CHECKS[role].filter((name) => !(role === 'sender' && name === 'imap' && sentCopySetting(config).mode === 'off'));
  return new Set(checks);
}
