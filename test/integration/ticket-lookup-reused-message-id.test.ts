/**
 * A ticket named by its mail's Message-ID (`npm run review -- show|approve <Message-ID>`, the review page's search and
 * `/tickets/<Message-ID>`, all through `ticketsByReference`) when a second customer's mail reused that id (a web form
 * or script that writes one fixed id; ingest keys it apart on purpose): every ticket holding the id is named, and the
 * CLI refuses it as ambiguous, as a short id several tickets share, so the reply an operator wrote for Bob, whose mail
 * they copied the id from, is never sent to Ann (security review 19, finding 3). The first mail's ticket may be gone
 * (archived, erased) while the later ones stay: they are still found. Real redis-server, SMTP receiver and the
 * scripted model, the CLI spawned as an operator runs it.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { rawKey } from '../../src/mail/raw-store.js';
import { ticketsByReference } from '../../src/server/ticket-search.js';
import { AmbiguousMessageIdError } from '../../src/tickets/ticket-store.js';
import { buildMail, customerMessageId, ingest, pipelineEnv, removePrefix, runNpm, startPipelineServers, startRoles, waitForState, type PipelineServers, type RunningRoles } from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  servers = await startPipelineServers();
  servers.llm.setHandler(scriptedModel({ tools: 'both', judgeRelevance: true }));
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  running = await startRoles(parseConfig(env));
  dir = await mkdtemp(path.join(tmpdir(), 'lookup-reused-id-'));
}, 120_000);
afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Nothing in the knowledge covers it: every draft is parked for a person.
const QUESTION = '領収書の宛名変更はできますか？';

const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env, 60_000);

/** A customer's mail under `messageId`, ingested as the poller does, once it waits for a person. */
async function parkedMail(messageId: string, from: string, date: string): Promise<string> {
  const { ticketId } = await ingest(running, buildMail({ messageId, from, subject: '領収書', body: QUESTION, date }));
  await waitForState(running.store, ticketId, ['parked'], 60_000);
  return ticketId;
}

describe("two customers' mails under one Message-ID, looked up by it", () => {
  it('names both tickets, oldest first, with and without the angle brackets, and the store will not pick one', async () => {
    const shared = customerMessageId('form-fixed-id');
    const ann = await parkedMail(shared, 'Ann <ann@customer.example>', 'Mon, 2 Mar 2026 10:00:00 +0900');
    const bob = await parkedMail(shared, 'Bob <bob@other.example>', 'Mon, 2 Mar 2026 11:00:00 +0900');
    expect(bob).not.toBe(ann);

    for (const typed of [shared, shared.slice(1, -1), ` ${shared} `]) {
      const found = await ticketsByReference(running.store, typed);
      expect({ typed, kind: found?.kind, named: found?.tickets.map((t) => t.id), more: found?.more }).toEqual({ typed, kind: 'message-id', named: [ann, bob], more: false });
    }
    const capped = await ticketsByReference(running.store, shared, 1);
    expect({ named: capped?.tickets.map((t) => t.id), more: capped?.more }).toEqual({ named: [ann], more: true });
    await expect(running.store.findByMessageId(shared)).rejects.toBeInstanceOf(AmbiguousMessageIdError);
  }, 180_000);

  it('`review show` and `review approve` refuse the Message-ID as ambiguous, naming both, and nothing goes to Ann', async () => {
    const shared = customerMessageId('form-fixed-id');
    const ann = await parkedMail(shared, 'Ann <ann@customer.example>', 'Tue, 3 Mar 2026 10:00:00 +0900');
    const bob = await parkedMail(shared, 'Bob <bob@other.example>', 'Tue, 3 Mar 2026 11:00:00 +0900');
    const replyFile = path.join(dir, 'reply-to-bob.txt');
    await writeFile(replyFile, 'Bob, the receipt for your order BOB-7731 was reissued to Bob Example Ltd.\n');

    // The operator copies the Message-ID from Bob's mail in the mailbox.
    const [show, approve] = [await review('show', shared), await review('approve', shared, '--reply-file', replyFile, '--by', 'sato')];
    for (const [command, result] of [['show', show], ['approve', approve]] as const) {
      expect({ command, code: result.code, namesAnn: result.stderr.includes(ann), namesBob: result.stderr.includes(bob), stdout: result.stdout }).toEqual({
        command,
        code: 1,
        namesAnn: true,
        namesBob: true,
        stdout: '',
      });
      expect(result.stderr).toContain('Message-ID of more than one');
    }
    const states = (await running.store.getMany([ann, bob], { agentResult: false })).map((t) => t.state);
    expect(states).toEqual(['parked', 'parked']);
    expect(servers.smtp.messages.filter((m) => m.envelope.to.includes('ann@customer.example'))).toEqual([]);

    // Bob's ticket by its own id is what the operator approves instead. (Parked again only when a loaded machine
    // interrupted the send after the SMTP server took it: the reply still went to Bob alone.)
    const approved = await review('approve', bob, '--reply-file', replyFile, '--by', 'sato');
    expect(approved.code).toBe(0);
    await waitForState(running.store, bob, ['sent', 'parked'], 60_000);
    const recipients = servers.smtp.messages.filter((m) => (m.parsed.text ?? '').includes('BOB-7731')).flatMap((m) => m.envelope.to);
    expect(new Set(recipients)).toEqual(new Set(['bob@other.example']));
  }, 300_000);

  it('still names the later tickets once the first mail’s ticket is gone, and a mail keyed by the id again beside them', async () => {
    const shared = customerMessageId('form-fixed-id');
    const dan = await parkedMail(shared, 'Dan <dan@customer.example>', 'Wed, 4 Mar 2026 10:00:00 +0900');
    const eve = await parkedMail(shared, 'Eve <eve@other.example>', 'Wed, 4 Mar 2026 11:00:00 +0900');
    // As retention archives it, or erasure removes it.
    expect(await running.store.remove(await running.store.require(dan), rawKey(env.QUEUE_PREFIX!, dan))).toBe('removed');
    const alone = await ticketsByReference(running.store, shared);
    expect(alone?.tickets.map((t) => t.id)).toEqual([eve]);
    expect((await running.store.findByMessageId(shared))?.id).toBe(eve);

    // With the id free again, the next mail under it is keyed by it. (Not waited on: its answer job's id is the one
    // Dan's finished job kept, which this removal, unlike erasure, leaves in the queue.)
    const { ticketId: carol } = await ingest(running, buildMail({ messageId: shared, from: 'Carol <carol@third.example>', subject: '領収書', body: QUESTION, date: 'Thu, 5 Mar 2026 10:00:00 +0900' }));
    expect(carol).toBe(dan);
    const both = await ticketsByReference(running.store, shared);
    expect(both?.tickets.map((t) => t.id)).toEqual([eve, carol]);
  }, 240_000);
});
