/**
 * The sender role: a BullMQ worker on `outbound` running `send-reply`.
 *
 * The worker starts only once the SMTP server answered a verify (connect, greeting, STARTTLS, AUTH): while it does
 * not, replies stay queued instead of using up their SENDER_ATTEMPTS, and one line per try says which server is
 * unreachable and why. At most SENDER_CONCURRENCY replies are sent at a time, each over a connection the transport
 * keeps between replies.
 *
 * Unless IMAP_SENT_MAILBOX=off (or no IMAP login is configured), a second worker on `sentcopy` files each sent reply
 * in the mailbox's Sent folder. It starts at once, needs no SMTP, and runs one copy at a time over one IMAP connection
 * kept while copies keep coming: on their own queue they cannot hold up a reply.
 *
 * Each sender process reports whether it can use the SMTP server, for `/readyz` (src/runtime/role-status.ts): when it
 * reached the server (the startup check, or the first reply accepted after a failure) and the last failure that
 * concerns the server rather than one reply (no connection, TLS, login refused, 421). Replies that wait for SMTP sit
 * in the `outbound` queue, where nothing else would tell the operator why.
 */
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { copyToSent } from '../../jobs/copy-to-sent.js';
import { parkUnsent, sendReply, type SendOutcome, type SentCopySteps } from '../../jobs/send-reply.js';
import { requireVariables, type VariableName } from '../config.js';
import { createLogger } from '../logger.js';
import { SentFolderConnection, hasSentRaw, saveSentRaw, sentCopySetting } from '../mail/sent-copy.js';
import { classifySmtpError, type SmtpSendError, type SmtpTransport } from '../mail/smtp-transport.js';
import { produce } from '../queues/connection.js';
import { copyToSentJob, type JobTuning } from '../queues/job-options.js';
import { createQueueWorker, type HandlerMap, type Queues } from '../queues/registry.js';
import { jobGeneration } from '../tickets/ticket.js';
import { recordReplySent } from '../server/metrics.js';
import type { RoleHandle } from './lifecycle.js';
import { retryUntilReady } from './readiness.js';
import { RoleStatusReporter } from './role-status.js';
import type { Services } from './services.js';
import { SENDER_TIMINGS, bullmqTimings, type WorkerTimings } from './worker-timings.js';

/** Replies sent in parallel by one sender process (= SMTP connections the transport keeps). */
export const SENDER_CONCURRENCY = 2;

/** Options of {@link startSender}. */
export interface SenderOptions {
  /** Overrides of {@link SENDER_TIMINGS} (tests lower them). */
  timings?: Partial<WorkerTimings>;
  /** First pause between SMTP readiness checks (doubles up to a minute). */
  readinessRetryMs?: number;
}

/**
 * Whether a failed send says the SMTP server cannot be used at all, not that one reply was refused: no answer code
 * (connection, timeout, TLS), 421 (service not available) or a refused login.
 */
export function isServerWideFailure(failure: SmtpSendError): boolean {
  if (failure.kind === 'permanent') return false;
  const code = (failure.cause as { code?: unknown } | undefined)?.code;
  return failure.responseCode === undefined || failure.responseCode === 421 || code === 'EAUTH';
}

/** `smtp` whose sends report to `reporter`: a server-wide failure, and the first acceptance after one. */
function reportingTransport(smtp: SmtpTransport, reporter: RoleStatusReporter): SmtpTransport {
  return {
    where: smtp.where,
    verify: () => smtp.verify(),
    close: () => smtp.close(),
    send: async (mail) => {
      let accepted;
      try {
        accepted = await smtp.send(mail);
      } catch (err) {
        const failure = classifySmtpError(err);
        if (isServerWideFailure(failure)) await reporter.failed(failure.message);
        throw err;
      }
      await reporter.reached();
      return accepted;
    },
  };
}

/**
 * What the sender does with a reply that went out when copies are on: keeps the bytes it sent for the copy job, then
 * queues that job (`copy-to-sent`, one per sent generation of the ticket: `sent` is final, so a run that finds the
 * ticket `sent` later names the same job). Neither for a ticket erased on request: the bytes would outlive the
 * erasure, so `keep` refuses once the ticket is marked erased, and `queue` adds no job once its bytes are gone (the
 * erasure deleted them, or the copy was filed).
 */
export function sentCopyQueuer(redis: Redis, prefix: string, sentcopy: Queues['sentcopy'], tuning?: JobTuning): SentCopySteps {
  const pending = (ticketId: string) => produce(redis, () => hasSentRaw(redis, prefix, ticketId));
  return {
    keep: (ticketId, raw) => produce(redis, () => saveSentRaw(redis, prefix, ticketId, raw)),
    pending,
    queue: async (sent) => {
      if (!(await pending(sent.id))) return;
      const job = copyToSentJob(sent.id, jobGeneration(sent), tuning);
      await produce(redis, () => sentcopy.add(job.name, job.data, job.opts));
    },
  };
}

/** Variables the sender cannot run without; pass to `requireVariables`. */
export const SENDER_VARIABLES: VariableName[] = ['SMTP_HOST', 'MAIL_FROM'];

/**
 * Starts the sender role. Fails at once (a `ConfigError`) when SMTP_HOST or MAIL_FROM is missing; waits for Redis;
 * starts the worker in the background once SMTP is reachable. `stop` ends the wait or lets sends in flight finish.
 */
export async function startSender(services: Services, options: SenderOptions = {}): Promise<RoleHandle> {
  const { config } = services;
  requireVariables(config, SENDER_VARIABLES, 'sender');
  const logger = createLogger('sender');
  const timings = { ...SENDER_TIMINGS, ...options.timings };
  const [redis, store] = [await services.producer(), await services.store()];
  const reporter = new RoleStatusReporter(redis, config.QUEUE_PREFIX, 'sender');
  const smtp = reportingTransport(services.smtp(), reporter);
  const copies = sentCopySetting(config);
  const sentcopy = copies.mode === 'off' ? undefined : (await services.queues()).sentcopy;
  const imap = copies.mode === 'off' ? undefined : new SentFolderConnection(config, copies);
  const deps = {
    config,
    store,
    redis,
    smtp,
    logger,
    ...(sentcopy ? { sentCopy: sentCopyQueuer(redis, config.QUEUE_PREFIX, sentcopy, services.tuning) } : {}),
  };
  const copyHandlers: HandlerMap<'sentcopy'> = {
    'copy-to-sent': (job, data) =>
      copyToSent(data, { config, store, redis, imap, logger }, {
        attemptsMade: job.attemptsMade,
        ...(job.id ? { jobId: job.id } : {}),
      }),
  };
  const copyWorker = sentcopy
    ? createQueueWorker({
        queueName: 'sentcopy',
        handlers: copyHandlers,
        connection: services.workerConnection(),
        prefix: config.QUEUE_PREFIX,
        concurrency: 1,
        logger,
        workerOptions: bullmqTimings(timings),
      })
    : undefined;
  if (copies.mode === 'off') logger.info(`Replies are not copied to a Sent folder: ${copies.why}`);
  else logger.info({ mailbox: copies.mode === 'named' ? copies.mailbox : '(flagged \\Sent)' }, 'Replies are copied to the Sent folder');
  const handlers: HandlerMap<'outbound'> = {
    'send-reply': (job, data) => sendReply(data, deps, { attemptsMade: job.attemptsMade, attempts: job.opts.attempts ?? 1, ...(job.id ? { jobId: job.id } : {}) }),
  };

  const abort = new AbortController();
  let worker: Worker | undefined;
  const started = (async () => {
    const ready = await retryUntilReady(() => smtp.verify(), {
      what: `SMTP server ${smtp.where}`,
      logger,
      signal: abort.signal,
      onFailure: (reason) => reporter.failed(reason),
      ...(options.readinessRetryMs !== undefined ? { firstDelayMs: options.readinessRetryMs } : {}),
    });
    if (!ready) return;
    await reporter.reached();
    worker = createQueueWorker({
      queueName: 'outbound',
      handlers,
      connection: services.workerConnection(),
      prefix: config.QUEUE_PREFIX,
      concurrency: SENDER_CONCURRENCY,
      logger,
      onFailed: async (job, error, { final }) => {
        if (!final || !job) return;
        const ticketId = (job.data as { ticketId?: unknown }).ticketId;
        if (typeof ticketId === 'string') await parkUnsent(store, ticketId, `send job failed for good: ${error.message}`, logger);
      },
      onCompleted: async (_job, result) => {
        if ((result as SendOutcome | undefined)?.outcome === 'sent') await recordReplySent(redis, config.QUEUE_PREFIX);
      },
      workerOptions: bullmqTimings(timings),
    });
    logger.info({ smtp: smtp.where, ...timings }, 'Sender waiting for replies');
  })().catch((err: unknown) => logger.error({ err }, 'Sender worker could not start'));

  let stopping: Promise<void> | undefined;
  return {
    name: 'sender',
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await started;
        await Promise.all([worker?.close(), copyWorker?.close()]);
        await Promise.all([imap?.close(), reporter.close()]);
      })()),
  };
}
