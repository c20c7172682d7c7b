/**
 * `npm run review` as an operator uses it, spawned as a child process against real Redis: a draft parked in
 * `auto` mode is listed, shown, approved with an edited reply file and arrives without Auto-Submitted; rejecting,
 * unknown ids and forbidden transitions give one clear line; the short id `list` prints names a ticket, and a start
 * of an id that several tickets share is refused with their ids.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shownTime } from '../../src/cli/format.js';
import { parseConfig } from '../../src/config.js';
import { newTicket, ticketIdFor } from '../../src/tickets/ticket.js';
import { MAYBE_SENT_REASON } from '../../src/tickets/review.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  runNpm,
  startPipelineServers,
  startRoles,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

let servers: PipelineServers;
let running: RunningRoles;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  servers = await startPipelineServers();
  // Every subtask fails its self-check three times: the draft is incomplete and `auto` mode parks it.
  servers.llm.setHandler(scriptedModel({ forceIncomplete: () => true }));
  env = pipelineEnv(servers, { REVIEW_MODE: 'auto' });
  running = await startRoles(parseConfig(env));
  dir = await mkdtemp(path.join(tmpdir(), 'review-cli-'));
});
afterAll(async () => {
  await running?.stop();
  if (servers) await removePrefix(servers.redis.url, env.QUEUE_PREFIX!);
  await servers?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// Each call starts npm and tsx (3–6 s on a busy two-core machine), and a test makes up to five: their timeouts allow
// for that, not for a slow product.
const review = (...args: string[]) => runNpm(['run', 'review', '--', ...args], env);

describe('npm run review', () => {
  it('prints hostile text inert: no terminal control sequences from a subject, a name or a draft reach the screen', async () => {
    const hostile = 'x\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;Y3VybCBldmlsfHNo\u0007\u009b31m';
    const { ticketId } = await ingest(
      running,
      buildMail({ messageId: customerMessageId('escape'), from: `"Eve${hostile}" <eve@customer.example>`, subject: `請求書 ${hostile}`, body: `請求書について${hostile}教えてください。` }),
    );
    const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Bidi_Control}]/u;
    // Parsing removes them (src/mail/parse.ts): what remains of a sequence is plain text.
    const parsed = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(parsed.subject).toBe('請求書 x]0;pwned[2J]52;c;Y3VybCBldmlsfHNo31m');
    expect(parsed.question).toContain('請求書についてx]0;pwned');
    for (const text of [parsed.subject, parsed.fromName, parsed.question]) expect(text).not.toMatch(CONTROL);
    // A ticket parsed before still holds them, and a text-direction override in the name: as the store kept it.
    const stored = newTicket({
      messageId: customerMessageId('escape-before'),
      from: 'eve@customer.example',
      fromName: `Support Team \u202emoc.lagel-zyx@ytiruces${hostile}`,
      subject: `請求書 ${hostile}`,
      question: `請求書について${hostile}教えてください。`,
      state: 'parked',
      reason: `reason ${hostile}`,
      actor: 'test',
    });
    const { ticket } = await running.store.createIfAbsent(stored);
    const [table, show, json] = await Promise.all([review('list'), review('show', ticket.id), review('show', ticket.id, '--json')]);
    for (const out of [table.stdout, show.stdout]) {
      expect(out).not.toMatch(CONTROL);
      expect(out).toContain('請求書 x]0;pwned');
    }
    expect(show.stdout).toContain('From:       Support Team moc.lagel-zyx@ytiruces');
    // --json is data for programs: it keeps the text as it is (JSON escapes the controls).
    expect((JSON.parse(json.stdout) as { subject: string }).subject).toContain('\u001b');
  }, 120_000);

  it('lists, shows and approves a parked draft with an edited reply, which goes out without Auto-Submitted', async () => {
    const messageId = customerMessageId('review');
    const { ticketId } = await ingest(running, buildMail({ messageId, from: 'Kana <kana@customer.example>', subject: 'ライセンスについて', body: 'ライセンスの更新方法を教えてください。' }));
    const parked = await waitForState(running.store, ticketId, ['parked', 'sent']);
    expect(parked.state).toBe('parked');
    expect(parked.reason).toMatch(/^not fully answered: no full answer found in the manual or the past answers for 「.+」/);

    // Three read-only commands at once: each is a separate process, and they must not disturb each other. `show`
    // gets the 12-character id the table prints, as an operator copies it.
    const [list, table, show] = await Promise.all([review('list', '--state', 'parked', '--json'), review('list'), review('show', ticketId.slice(0, 12))]);
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    expect(rows).toContainEqual(
      expect.objectContaining({ id: ticketId, messageId, from: 'kana@customer.example', subject: 'ライセンスについて', state: 'parked', reason: parked.reason }),
    );
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`${ticketId.slice(0, 12)}\\s+parked`));
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('ライセンスの更新方法を教えてください。');
    expect(show.stdout).toContain('NOT FOUND (fallback)');
    expect(show.stdout).toContain('Reflection 3: not enough');
    expect(show.stdout).toContain('── History');

    const replyFile = path.join(dir, 'reply.txt');
    const edited = 'カナ様\n\nライセンスの更新は「管理」→「契約」から行えます。\n\nXYZ サポート';
    await writeFile(replyFile, edited, 'utf8');
    const approve = await review('approve', ticketId.slice(0, 12), '--reply-file', replyFile, '--by', 'suzuki');
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toContain(`approved ${ticketId}`);

    const sent = await waitForState(running.store, ticketId, ['sent', 'parked']);
    expect(sent.state, sent.reason).toBe('sent');
    expect(sent.outbound).toMatchObject({ approvedBy: 'suzuki', autoSubmitted: false });
    expect(sent.history.find((h) => h.to === 'approved')?.actor).toBe('operator:suzuki');
    // The agent's draft (the scripted model's answer) was replaced by a reply of the operator's own.
    expect(sent.outcome).toMatchObject({ kind: 'approved_edited', at: sent.updatedAt });
    expect(sent.outcome?.editRatio).toBeGreaterThan(0.5);
    const [mail] = await servers.smtp.waitFor(1);
    expect(mail!.parsed.inReplyTo).toBe(messageId);
    expect(mail!.text).toContain('ライセンスの更新は「管理」→「契約」から行えます。');
    expect(mail!.headers.has('auto-submitted')).toBe(false);

    // Approving again is a forbidden transition: one line, no second mail.
    const again = await review('approve', ticketId, '--seen', String(sent.history.length));
    expect(again.code).toBe(1);
    expect(again.stderr.trim()).toBe(`review: cannot approve ticket ${ticketId}: The ticket is sent; only parked tickets can be approved`);
    expect(servers.smtp.messages).toHaveLength(1);
    // Each command is a fresh Node process under tsx; on a loaded CI machine that is seconds apiece.
  }, 90_000);

  it('approves a reply that may already have been sent only with --checked-no-copy, as the page asks for its tick', async () => {
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('maybe-sent'), from: 'Mio <mio@customer.example>', subject: '請求書について', body: '請求書の宛名を変更できますか。' }));
    await waitForState(running.store, ticketId, ['parked']);
    // A person approved it and the sender's SMTP connection broke after the whole message was sent (no job is queued
    // here, so the sender leaves it alone).
    await running.store.transition(ticketId, { from: ['parked'], to: 'approved', actor: 'operator:ren' });
    await running.store.transition(ticketId, { from: ['approved'], to: 'sending', actor: 'sender', note: 'attempt 1', patch: { outbound: { messageId: '<reply-maybe@helpdesk.test>', autoSubmitted: false } } });
    const reason = `${MAYBE_SENT_REASON} (Connection closed unexpectedly)`;
    await running.store.transition(ticketId, { from: ['sending'], to: 'parked', actor: 'sender', note: reason, patch: { reason } });

    const seen = String((await running.store.require(ticketId)).history.length);
    const refused = await review('approve', ticketId, '--seen', seen);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('may already have reached the customer');
    expect(refused.stderr).toContain(`npm run review -- approve ${ticketId} --seen ${seen} --checked-no-copy`);
    expect(refused.stderr).toContain(`npm run review -- arrived ${ticketId}`);
    expect((await running.store.require(ticketId)).state).toBe('parked');

    const approved = await review('approve', ticketId, '--seen', seen, '--checked-no-copy', '--by', 'ren');
    expect(approved.code, approved.stderr).toBe(0);
    expect((await waitForState(running.store, ticketId, ['sent'])).outbound?.approvedBy).toBe('ren');
  }, 120_000);

  it('shows the conversation and asks for --read-newer-mail once the customer wrote again, and --sender-verified for a possibly forged sender', async () => {
    const parked = async (options: { tag: string; minutesAgo: number; conversationId?: string; reason?: string }) => {
      const messageId = customerMessageId(options.tag);
      const id = ticketIdFor(messageId);
      const base = { messageId, from: 'kai@customer.example', subject: `件名 ${options.tag}`, question: `${options.tag} について教えてください。`, actor: 'poller' };
      await running.store.createIfAbsent(newTicket({ ...base, ...(options.conversationId ? { conversationId: options.conversationId } : {}) }, new Date(Date.now() - options.minutesAgo * 60_000)));
      await running.store.transition(id, { to: 'processing', actor: 'agent-worker' });
      const reason = options.reason ?? 'review mode always';
      return running.store.transition(id, { to: 'parked', actor: 'agent-worker', note: reason, patch: { reason, draft: 'ご回答します。' } });
    };
    const first = await parked({ tag: 'conv-first', minutesAgo: 30 });
    const later = await parked({ tag: 'conv-later', minutesAgo: 5, conversationId: first.id });

    const show = await review('show', first.id);
    expect(show.stdout).toContain('── Conversation');
    expect(show.stdout).toContain(`${later.id.slice(0, 12)}  parked  件名 conv-later`);
    const refused = await review('approve', first.id, '--seen', String(first.history.length));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('The customer wrote again in this conversation after this mail');
    expect(refused.stderr).toContain(later.id);
    expect(refused.stderr).toContain('--read-newer-mail');
    expect((await running.store.require(first.id)).state).toBe('parked');
    const read = await review('approve', first.id, '--seen', String(first.history.length), '--read-newer-mail');
    expect(read.code, read.stderr).toBe(0);

    const forged = await parked({ tag: 'forged', minutesAgo: 1, reason: "possibly forged sender: the receiving server's Authentication-Results says dmarc=fail; a reply would go to whoever was impersonated" });
    const unverified = await review('approve', forged.id, '--seen', String(forged.history.length));
    expect(unverified.code).toBe(1);
    expect(unverified.stderr).toContain('--sender-verified');
    expect((await running.store.require(forged.id)).state).toBe('parked');
    const verified = await review('approve', forged.id, '--seen', String(forged.history.length), '--sender-verified');
    expect(verified.code, verified.stderr).toBe(0);
  }, 120_000);

  it('rejects a parked ticket, and names an unknown ticket in one line', async () => {
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('rej'), from: 'spam@customer.example', subject: '宣伝', body: '新商品のご案内です。' }));
    await waitForState(running.store, ticketId, ['parked']);
    const reject = await review('reject', ticketId, '--reason', 'advertising');
    expect(reject.code, reject.stderr).toBe(0);
    const rejected = await running.store.require(ticketId);
    expect(rejected).toMatchObject({ state: 'rejected', reason: 'advertising', outcome: { kind: 'rejected', reason: 'advertising' } });
    const show = await review('show', ticketId);
    // In the desk's zone, named, as `list` shows it (the CLI runs under this process's TZ).
    expect(show.stdout).toContain(`Outcome:    rejected: advertising at ${shownTime(rejected.updatedAt)}`);

    const unknown = await review('show', 'f'.repeat(64));
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr.trim()).toBe(`review: no ticket ${'f'.repeat(64)} (give the ticket id, at least its first 8 characters, or the mail's Message-ID)`);
  }, 120_000);

  it('has the agent answer a parked ticket again once the cause is fixed, and the new answer goes out', async () => {
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('rerun'), from: 'hana@customer.example', subject: '二段階認証', body: '二段階認証を認証アプリで設定する手順を教えてください。' }));
    await waitForState(running.store, ticketId, ['parked']);
    // The cause is fixed (here: the model answers in full again).
    servers.llm.setHandler(scriptedModel());
    try {
      const rerun = await review('rerun', ticketId.slice(0, 12), '--by', 'sato');
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rerun.stdout).toContain('is back with the agent (asked by sato)');
      const sent = await waitForState(running.store, ticketId, ['sent'], 30_000);
      expect(sent.history.map((h) => `${h.from}→${h.to} ${h.actor}`)).toContain('parked→processing operator:sato');
      const again = await review('rerun', ticketId);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('only parked tickets can be answered again');
    } finally {
      servers.llm.setHandler(scriptedModel({ forceIncomplete: () => true }));
    }
  }, 90_000);

  it('takes a unique start of a ticket id (8 characters or more) and refuses one that several tickets share', async () => {
    // Two Message-IDs whose ticket ids (sha256) share their first 8 hex characters: a birthday search, about 60,000
    // hashes.
    const seen = new Map<string, string>();
    let pair: [string, string] | undefined;
    for (let i = 0; !pair && i < 1_000_000; i++) {
      const messageId = `<short-id-${i}@customer.example>`;
      const start = ticketIdFor(messageId).slice(0, 8);
      const earlier = seen.get(start);
      if (earlier) pair = [earlier, messageId];
      else seen.set(start, messageId);
    }
    const created = await Promise.all(
      pair!.map(async (messageId) => {
        const ticket = newTicket({ messageId, from: 'twin@customer.example', subject: '同じ始まり', question: '?', state: 'parked', reason: 'test', actor: 'test' });
        return (await running.store.createIfAbsent(ticket)).ticket;
      }),
    );
    const [a, b] = [created[0]!, created[1]!];
    const shared = a.id.slice(0, 8);
    expect(b.id.slice(0, 8)).toBe(shared);

    const [ambiguous, tooShort, showA] = await Promise.all([review('show', shared), review('show', shared.slice(0, 7)), review('show', a.id.slice(0, 12).toUpperCase())]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stdout).toBe('');
    expect(ambiguous.stderr.trim()).toBe(`review: ${shared} is the start of more than one ticket id; give more characters: ${[a.id, b.id].sort().join(', ')}`);
    expect(tooShort.code).toBe(1);
    expect(tooShort.stderr.trim()).toBe(`review: no ticket ${shared.slice(0, 7)} (give the ticket id, at least its first 8 characters, or the mail's Message-ID)`);
    expect(showA.code, showA.stderr).toBe(0);
    expect(showA.stdout).toContain(`Ticket ${a.id}`);

    const firstDiffering = [...a.id].findIndex((c, i) => c !== b.id[i]);
    const reject = await review('reject', b.id.slice(0, Math.max(8, firstDiffering + 1)), '--reason', 'duplicate');
    expect(reject.code, reject.stderr).toBe(0);
    expect(await running.store.require(b.id)).toMatchObject({ state: 'rejected', reason: 'duplicate' });
    expect((await running.store.require(a.id)).state).toBe('parked');
    const unknown = await review('reject', 'abcdef0123');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe(`review: no ticket id starts with abcdef0123 (give the ticket id, at least its first 8 characters, or the mail's Message-ID)`);
  }, 90_000);
});
