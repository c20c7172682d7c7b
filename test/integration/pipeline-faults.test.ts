/**
 * Faults the pipeline must survive without losing a mail or answering one twice: an agent worker SIGKILLed in the
 * middle of a ticket, Redis restarting while mail arrives, and `npm start` stopped with SIGTERM while it works.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { startAgentWorker } from '../../src/runtime/agent-worker.js';
import { ticketIdFor } from '../../src/tickets/ticket.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import {
  FAST_TIMINGS,
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  spawnChild,
  spawnTsx,
  startPipelineServers,
  startRoles,
  waitFor,
  waitForState,
  type ChildRole,
  type PipelineServers,
} from '../support/pipeline.js';

let servers: PipelineServers;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  servers = await startPipelineServers({ imap: true });
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.llm.setHandler(scriptedModel());
  servers.llm.reset();
});
afterAll(async () => {
  await servers?.stop();
});

function track(child: ChildRole): ChildRole {
  cleanups.push(async () => {
    child.killAll();
    await child.exited;
  });
  return child;
}

function repliesTo(messageId: string) {
  return servers.smtp.messages.filter((m) => m.parsed.inReplyTo === messageId);
}

async function unseenCleared(): Promise<void> {
  const imap = servers.imap!;
  await waitFor(async () => (await imap.doveadm(['search', '-u', imap.user, 'mailbox', 'INBOX', 'UNSEEN'])).trim() === '', 'the mailbox to be fully polled', 20_000);
}

const question = (n: number) => buildMail({ messageId: customerMessageId(`m${n}`), from: `c${n}@customer.example`, subject: `質問${n}`, body: '二段階認証を認証アプリで設定する手順を教えてください。' });

describe('faults', () => {
  it('an agent worker SIGKILLed mid-ticket: another worker resumes it and exactly one reply goes out', async () => {
    const env = pipelineEnv(servers, { LOG_LEVEL: 'info' });
    const config = parseConfig(env);
    const running = await startRoles(config, { agent: false });
    cleanups.push(async () => {
      await running.stop();
      await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
    });
    // The first worker's LLM calls hang long enough to kill it in the middle of the run.
    servers.llm.setHandler(scriptedModel({ delayMs: 5_000 }));
    const child = track(spawnTsx('test/support/pipeline.ts', ['agent-worker', JSON.stringify({ timings: FAST_TIMINGS })], env));
    await child.waitForOutput(/Agent worker waiting for tickets/);

    const raw = buildMail({ messageId: customerMessageId('kill'), from: 'kill@customer.example', subject: '二段階認証', body: '二段階認証を認証アプリで設定する手順を教えてください。' });
    const { ticketId } = await ingest(running, raw);
    await waitForState(running.store, ticketId, ['processing']);
    await waitFor(() => servers.llm.chatRequests().length > 0, 'the killed worker to be waiting for the LLM');
    child.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');

    servers.llm.setHandler(scriptedModel());
    const second = await startAgentWorker(running.services, { timings: FAST_TIMINGS });
    cleanups.push(() => second.stop());
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked'], 20_000);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(ticket.history.filter((h) => h.to === 'processing').map((h) => h.from)).toEqual(['received', 'processing']);
    // Nothing else is on its way: both jobs are done and the receiver got one copy.
    const queues = await running.services.queues();
    await waitFor(async () => (await queues.outbound.getJobCounts('active', 'waiting', 'delayed')).active === 0, 'the outbound queue to drain');
    expect(await queues.tickets.getJobCounts('active', 'waiting', 'delayed', 'failed')).toEqual({ active: 0, waiting: 0, delayed: 0, failed: 0 });
    expect(repliesTo(ticket.messageId)).toHaveLength(1);
    // A child process under tsx takes seconds to start on a loaded machine.
  }, 90_000);

  it('Redis restarted while mail arrives: every mail answered once', async () => {
    const config = parseConfig(pipelineEnv(servers));
    const running = await startRoles(config, { poller: true });
    cleanups.push(async () => {
      await running.stop();
      await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
    });
    const mails = [1, 2, 3].map(question);
    const ids = mails.map((m) => /^Message-ID: (\S+)/m.exec(m.toString('utf8'))![1]!);
    await servers.imap!.deliver(mails[0]!);
    await waitForState(running.store, ticketIdFor(ids[0]!), ['sent'], 20_000);

    // Slow the agent so the restart lands while the second mail is being answered, and deliver the third meanwhile.
    servers.llm.setHandler(scriptedModel({ delayMs: 300 }));
    await servers.imap!.deliver(mails[1]!);
    await waitForState(running.store, ticketIdFor(ids[1]!), ['processing'], 20_000);
    await Promise.all([servers.redis.restart(), servers.imap!.deliver(mails[2]!)]);
    servers.llm.setHandler(scriptedModel());

    for (const id of ids) {
      const ticket = await waitForState(running.store, ticketIdFor(id), ['sent', 'parked', 'failed', 'ignored'], 30_000);
      expect(ticket.state, `${id}: ${ticket.reason ?? ''}`).toBe('sent');
    }
    await unseenCleared();
    expect((await running.store.list({ limit: 10 })).total).toBe(3);
    for (const id of ids) expect(repliesTo(id)).toHaveLength(1);
  }, 60_000);

  // The signal goes to npm itself, as an operator's Ctrl-C or `kill` would. npm 11 signals only its direct child, so
  // the script `exec`s node: without that, npm would exit 143 at once and leave the roles running orphaned.
  it('SIGTERM to the npm start process lets the running ticket finish and exits 0 within 30 s', async () => {
    // No dashboard password: the dashboard refuses to start, and the mail pipeline goes on without it.
    const env = pipelineEnv(servers, { LOG_LEVEL: 'info', DASHBOARD_AUTH: 'on' });
    const config = parseConfig(env);
    cleanups.push(() => removePrefix(servers.redis.url, config.QUEUE_PREFIX));
    servers.llm.setHandler(scriptedModel({ delayMs: 400 }));
    const app = track(spawnChild('npm', ['start'], env));
    await app.waitForOutput(/dashboard not started: [^"]*DASHBOARD_PASSWORD/);
    await app.waitForOutput(/Sender waiting for replies/);
    await app.waitForOutput(/Agent worker waiting for tickets/);

    const messageId = customerMessageId('term');
    await servers.imap!.deliver(buildMail({ messageId, from: 'term@customer.example', subject: '二段階認証', body: '二段階認証を認証アプリで設定する手順を教えてください。' }));
    await waitFor(() => servers.llm.chatRequests().length > 0, 'the agent to be working on the mail', 20_000);
    const started = Date.now();
    app.kill('SIGTERM');
    const exit = await app.exited;
    expect(exit, app.output().slice(-3000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(30_000);

    // The job in progress was finished, not abandoned: its ticket moved on from `processing`.
    const { Redis } = await import('ioredis');
    const { TicketStore } = await import('../../src/tickets/ticket-store.js');
    const redis = new Redis(servers.redis.url);
    cleanups.push(async () => void redis.disconnect());
    const ticket = await new TicketStore(redis, { prefix: config.QUEUE_PREFIX }).require(ticketIdFor(messageId));
    expect(['drafted', 'sent']).toContain(ticket.state);
  }, 90_000);
});
