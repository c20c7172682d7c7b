/**
 * The sender's SMTP transport against a real SMTP server on loopback: connections are kept between replies, a kept
 * connection the server closed is replaced without failing the reply, and a connection lost after the whole message
 * was sent is reported as "may have been delivered", never as something to send again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { replySequence, startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';
import { SmtpSendError, createSmtpTransport, type SmtpTransport } from '../../src/mail/smtp-transport.js';

let smtp: SmtpReceiver;
const opened: SmtpTransport[] = [];

beforeAll(async () => {
  smtp = await startSmtpReceiver();
});
afterEach(() => {
  for (const t of opened.splice(0)) t.close();
  smtp.clear();
  smtp.respondWith(undefined);
});
afterAll(async () => {
  await smtp?.stop();
});

function transport(options: Parameters<typeof createSmtpTransport>[1] = {}): SmtpTransport {
  const t = createSmtpTransport({ SMTP_HOST: smtp.host, SMTP_PORT: smtp.port, SMTP_SECURE: false, SMTP_USER: undefined, SMTP_PASSWORD: undefined }, options);
  opened.push(t);
  return t;
}

const mail = (n: number) => ({ from: 'support@helpdesk.test', to: 'taro@customer.example', subject: `Re: ${n}`, messageId: `<t-${n}@helpdesk.test>`, text: `answer ${n}`, headers: {} });

describe('SMTP transport', () => {
  it('keeps a connection between replies: three replies in a row go over one connection', async () => {
    const t = transport();
    const before = smtp.connectionCount;
    for (const n of [1, 2, 3]) expect((await t.send(mail(n))).response).toMatch(/^250/);
    expect(smtp.messages.map((m) => m.subject)).toEqual(['Re: 1', 'Re: 2', 'Re: 3']);
    expect(smtp.connectionCount - before).toBe(1);
  });

  it('sends over a new connection at once when the kept one was closed by the server meanwhile', async () => {
    const t = transport();
    await t.send(mail(1));
    smtp.closeConnections();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await t.send(mail(2))).response).toMatch(/^250/);
    expect(smtp.messages.map((m) => m.subject)).toEqual(['Re: 1', 'Re: 2']);
    expect(smtp.attempts).toHaveLength(2);
  });

  it('closes a kept connection after idleTimeoutMs', async () => {
    const t = transport({ idleTimeoutMs: 50 });
    const before = smtp.connectionCount;
    await t.send(mail(1));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await t.send(mail(2));
    expect(smtp.connectionCount - before).toBe(2);
  });

  it('reports a connection lost after the whole message was sent as "may have been delivered", and a 4xx as temporary', async () => {
    const t = transport();
    smtp.respondWith(replySequence({ code: 250, dropConnection: true }, { code: 451 }));
    const lost = await t.send(mail(1)).then(() => undefined, (err: unknown) => err);
    expect(lost).toBeInstanceOf(SmtpSendError);
    expect((lost as SmtpSendError).kind).toBe('unknown');
    const deferred = await t.send(mail(2)).then(() => undefined, (err: unknown) => err);
    expect((deferred as SmtpSendError).kind).toBe('temporary');
    expect((deferred as SmtpSendError).responseCode).toBe(451);
    expect((await t.send(mail(3))).response).toMatch(/^250/);
  });

  it('does not resend over a new connection when a kept one is lost after the whole message was sent', async () => {
    const t = transport();
    await t.send(mail(1));
    // The reply goes over the kept connection; the server queues it and drops the connection without answering.
    smtp.respondWith(replySequence({ code: 250 }, { code: 250, dropConnection: true }));
    const lost = await t.send(mail(2)).then(() => undefined, (err: unknown) => err);
    expect((lost as SmtpSendError).kind).toBe('unknown');
    expect(smtp.messages.map((m) => m.subject)).toEqual(['Re: 1', 'Re: 2']);
  });
});
