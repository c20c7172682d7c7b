/**
 * Replies to the legacy Japanese carrier addresses docomo and au issued until 2009 (`hanako.@ezweb.ne.jp`,
 * `taro..yamada@docomo.ne.jp`): RFC 5322 wants their local part quoted, their owners write them bare or quoted, and
 * the carriers' servers take them. Through ingest, the agent worker and the sender (nodemailer) to a real SMTP server:
 * the mail is answered, not ignored, and the reply goes to the customer's mailbox, its local part quoted.
 *
 * Case from the mail audit (tmp/mailaudit5, finding 1: samples 341 and 341b were ignored as `no-sender`).
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { LOOPBACK } from '../../src/dev/ports.js';
import { normaliseAddress } from '../../src/mail/addresses.js';
import {
  buildMail,
  customerMessageId,
  ingest,
  pipelineEnv,
  removePrefix,
  startPipelineServers,
  startRoles,
  waitForState,
  type PipelineServers,
  type RunningRoles,
} from '../support/pipeline.js';

// A question the scripted model answers (in Japanese), so the reply goes out without review.
const QUESTION = 'パスワードの条件を教えてください。';

let servers: PipelineServers;
let lenient: RecordingSmtpServer;
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  [servers, lenient] = await Promise.all([startPipelineServers(), startLenientSmtpServer()]);
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  servers.smtp.clear();
  lenient.clear();
});
afterAll(async () => {
  await Promise.allSettled([servers?.stop(), lenient?.stop()]);
});

async function run(overrides: Record<string, string> = {}): Promise<RunningRoles> {
  const config = parseConfig(pipelineEnv(servers, overrides));
  const running = await startRoles(config);
  cleanups.push(async () => {
    await running.stop();
    await removePrefix(servers.redis.url, config.QUEUE_PREFIX);
  });
  return running;
}

/** The header section of a raw message, folded lines joined. */
function headOf(raw: Buffer): string {
  return (raw.toString('utf8').split('\r\n\r\n')[0] ?? '').replace(/\r\n[ \t]+/g, ' ');
}

describe('a customer writing from a legacy carrier address with a dot before the @', () => {
  it.each([
    ['bare, as the carrier writes it', 'hanako.@ezweb.ne.jp', 'To: <"hanako."@ezweb.ne.jp>'],
    ['quoted in angle brackets with a name', 'Hanako <"hanako."@ezweb.ne.jp>', 'To: Hanako <"hanako."@ezweb.ne.jp>'],
  ])('gets a reply, its local part quoted in the envelope and the To header (From %s)', async (_how, from, toHeader) => {
    const running = await run();
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('ezweb'), from, subject: 'パスワード', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(ticket.replyTo).toBe('hanako.@ezweb.ne.jp');

    const [reply] = await servers.smtp.waitFor(1);
    expect(servers.smtp.messages).toHaveLength(1);
    // smtp-server hands on the RCPT TO address as the command wrote it, quotes and all.
    expect(reply!.envelope.to).toEqual(['"hanako."@ezweb.ne.jp']);
    expect(headOf(reply!.raw).split('\r\n').filter((line) => /^To:/i.test(line))).toEqual([toHeader]);
    // The To header names the ticket's mailbox as our own address parsing reads it (the customer's reply quotes it).
    expect(normaliseAddress(toHeader.slice('To:'.length))).toBe(ticket.replyTo);
  });
});

describe('a customer writing from a legacy carrier address with two dots in a row', () => {
  // smtp-server refuses `..` even inside a quoted local part (RFC 5321 allows it there, and Postfix takes it); its
  // lenient parsing is what a carrier-facing MTA does.
  it('gets a reply with the local part quoted', async () => {
    const running = await run({ SMTP_PORT: String(lenient.port) });
    const { ticketId } = await ingest(running, buildMail({ messageId: customerMessageId('docomo'), from: 'taro..yamada@docomo.ne.jp', subject: 'パスワード', body: QUESTION }));
    const ticket = await waitForState(running.store, ticketId, ['sent', 'parked', 'ignored']);
    expect(ticket.state, ticket.reason).toBe('sent');
    expect(lenient.commands.filter((c) => /^RCPT TO:/i.test(c))).toEqual(['RCPT TO:<"taro..yamada"@docomo.ne.jp>']);
    expect(lenient.heads.map((head) => head.split('\r\n').filter((line) => /^To:/i.test(line)))).toEqual([['To: <"taro..yamada"@docomo.ne.jp>']]);
  });
});

/** An SMTP server with smtp-server's lenient address parsing that records the client's commands and each header. */
interface RecordingSmtpServer {
  port: number;
  /** Client command lines, in order. */
  commands: string[];
  /** The header section of each message taken. */
  heads: string[];
  clear(): void;
  stop(): Promise<void>;
}

async function startLenientSmtpServer(): Promise<RecordingSmtpServer> {
  const state = { commands: [] as string[], heads: [] as string[] };
  const record = (...args: unknown[]) => {
    const [meta, , line] = args as [{ tnx?: string } | undefined, string, string];
    if (meta?.tnx === 'command' && typeof line === 'string') state.commands.push(line);
  };
  const quiet = () => undefined;
  const server = new SMTPServer({
    lenientAddressParsing: true,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    closeTimeout: 100,
    logger: { debug: record, info: quiet, warn: quiet, error: quiet, trace: quiet, fatal: quiet } as never,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        state.heads.push(headOf(Buffer.concat(chunks)));
        callback();
      });
    },
  });
  server.on('error', () => undefined);
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve((server.server.address() as AddressInfo).port));
  });
  return {
    port,
    get commands() {
      return state.commands;
    },
    get heads() {
      return state.heads;
    },
    clear() {
      state.commands = [];
      state.heads = [];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
