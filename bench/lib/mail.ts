/**
 * The customer mail of the end-to-end runs and the IMAP client that APPENDs it: one- and two-topic Japanese
 * questions built from the sample knowledge base (a past question as it was asked; two manual topics numbered as
 * customers write them), each from its own sender (so the per-sender auto-reply limit never parks one) with its own
 * Message-ID.
 */
import { randomUUID } from 'node:crypto';
import { ImapFlow } from 'imapflow';
import { TWO_TOPIC_QUESTION } from '../../src/dev/scripted-model.js';
import { buildMail } from '../../test/support/pipeline.js';
import type { DovecotServer } from '../../src/dev/dovecot.js';
import { manualMaterial, samplePairs } from './corpus.js';
import { pick, prng } from './stats.js';

/** A mail to APPEND and the Message-ID its reply must be In-Reply-To. */
export interface BenchMail {
  messageId: string;
  raw: Buffer;
  topics: 1 | 2;
}

let seq = 0;

function mail(subject: string, body: string, topics: 1 | 2): BenchMail {
  seq += 1;
  const messageId = `<bench-${seq}-${randomUUID()}@customer.example>`;
  return { messageId, topics, raw: buildMail({ messageId, from: `Customer ${seq} <customer-${seq}@customer.example>`, subject, body }) };
}

/** Makes mixed mails: about half one-topic (a past question), half two-topic (two manual sections). */
export async function mixedMailFactory(seed = 3): Promise<(n: number) => BenchMail[]> {
  const [pairs, material] = await Promise.all([samplePairs(), manualMaterial()]);
  const rand = prng(seed);
  const one = () => {
    const p = pick(rand, pairs);
    return mail(Array.from(p.question).slice(0, 24).join(''), `${p.question}\n\nよろしくお願いいたします。`, 1);
  };
  const two = () => {
    const [a, b] = [pick(rand, pairs), pick(rand, pairs)];
    const [h1, h2] = [pick(rand, material.headings), pick(rand, material.headings)];
    const body = `お世話になっております。\n次の2点を教えてください。\n\n1. ${h1}について\n${a.question}\n\n2. ${h2}について\n${b.question}\n\nよろしくお願いいたします。`;
    return mail(`${h1}と${h2}について`, body, 2);
  };
  return (n) => Array.from({ length: n }, () => (rand() < 0.5 ? one() : two()));
}

/** `n` mails with the design's two-topic question. */
export function twoTopicMails(n: number): BenchMail[] {
  return Array.from({ length: n }, () => mail('二段階認証とバックアップ通知について', TWO_TOPIC_QUESTION, 2));
}

/** A few IMAP connections APPENDing mail to the support mailbox, like MTAs delivering in parallel. */
export interface Appender {
  /** APPENDs every mail; `onAppend` is called just before each APPEND is sent. */
  append(mails: readonly BenchMail[], onAppend: (mail: BenchMail) => void): Promise<void>;
  close(): Promise<void>;
}

export async function openAppender(imap: DovecotServer, connections = 4): Promise<Appender> {
  const clients = await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
      await client.connect();
      return client;
    }),
  );
  return {
    async append(mails, onAppend) {
      await Promise.all(
        clients.map(async (client, c) => {
          for (let i = c; i < mails.length; i += clients.length) {
            onAppend(mails[i]!);
            await client.append('INBOX', mails[i]!.raw);
          }
        }),
      );
    },
    async close() {
      await Promise.allSettled(clients.map((c) => c.logout()));
    },
  };
}
