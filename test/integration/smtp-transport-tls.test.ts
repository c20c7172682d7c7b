/**
 * SMTP AUTH never goes in the clear by accident: against a real SMTP server that offers no STARTTLS (as a
 * man in the middle stripping it would make it look), a transport with credentials and SMTP_SECURE=false refuses to
 * authenticate unless SMTP_ALLOW_PLAIN_AUTH=true says the relay is trusted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createSmtpTransport } from '../../src/mail/smtp-transport.js';
import { startSmtpReceiver, type SmtpReceiver } from '../../src/dev/smtp-receiver.js';

let smtp: SmtpReceiver;

beforeAll(async () => {
  smtp = await startSmtpReceiver({ user: 'relay-user', password: 'relay-secret' });
});
afterAll(async () => {
  await smtp?.stop();
});

const mail = {
  from: 'support@helpdesk.test',
  to: 'taro@customer.example',
  subject: 'Re: test',
  messageId: '<tls-test@helpdesk.test>',
  text: 'hello',
  headers: {},
};

function transport(env: Record<string, string>) {
  const config = parseConfig({
    SMTP_HOST: smtp.host,
    SMTP_PORT: String(smtp.port),
    SMTP_SECURE: 'false',
    SMTP_USER: 'relay-user',
    SMTP_PASSWORD: 'relay-secret',
    ...env,
  });
  return createSmtpTransport(config, { connectionTimeoutMs: 5_000, socketTimeoutMs: 5_000 });
}

describe('SMTP AUTH without TLS', () => {
  it('is refused by default when the server offers no STARTTLS: nothing is sent, the password never crosses in clear', async () => {
    const t = transport({});
    try {
      await expect(t.send(mail)).rejects.toThrow(/STARTTLS|TLS/i);
      expect(smtp.attempts).toHaveLength(0);
    } finally {
      t.close();
    }
  });

  it('is allowed for a trusted local relay with SMTP_ALLOW_PLAIN_AUTH=true', async () => {
    const t = transport({ SMTP_ALLOW_PLAIN_AUTH: 'true' });
    try {
      await t.send(mail);
      const [received] = await smtp.waitFor(1);
      expect(received!.authUser).toBe('relay-user');
    } finally {
      t.close();
    }
  });
});
