/**
 * What the sender says of an SMTP server whose certificate this machine does not trust, against real SMTP servers
 * with a self-signed certificate (TLS from the start, and STARTTLS): reached, not unreachable, and how to trust it; the
 * same words its readiness check and a failed reply give, retried (temporary) as before.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createSmtpTransport, SmtpSendError } from '../../src/mail/smtp-transport.js';

const TRUST = 'use a certificate from a public CA on the server, or trust its CA here: NODE_EXTRA_CA_CERTS=/path/ca.pem in the environment the process starts with (Node reads it at start, before .env is read)';

let dir: string;
const ports: Record<'implicit' | 'starttls', number> = { implicit: 0, starttls: 0 };
const servers: SMTPServer[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'helpdesk-smtp-cert-'));
  // openssl comes with Dovecot (dovecot-core depends on it).
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
    { stdio: 'ignore' },
  );
  const [key, cert] = await Promise.all([readFile(path.join(dir, 'key.pem')), readFile(path.join(dir, 'cert.pem'))]);
  for (const how of ['implicit', 'starttls'] as const) {
    const server = new SMTPServer({ secure: how === 'implicit', key, cert, authOptional: true, logger: false, disableReverseLookup: true, closeTimeout: 100 });
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    ports[how] = (server.server.address() as AddressInfo).port;
  }
});
afterAll(async () => {
  await Promise.allSettled(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const mail = { from: 'support@helpdesk.test', to: 'taro@customer.example', subject: 'Re: test', messageId: '<cert-test@helpdesk.test>', text: 'hello', headers: {} };

describe('an SMTP server with a certificate this machine does not trust', () => {
  it.each(['implicit', 'starttls'] as const)('is named reached, with how to trust it, by the readiness check and a send (%s)', async (how) => {
    const port = ports[how];
    const config = parseConfig({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(port), SMTP_SECURE: String(how === 'implicit'), SMTP_USER: 'relay-user', SMTP_PASSWORD: 'relay-secret' });
    const transport = createSmtpTransport(config, { connectionTimeoutMs: 5_000, socketTimeoutMs: 5_000 });
    try {
      const says = `SMTP server 127.0.0.1:${port} was reached, but its certificate is not trusted: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT); ${TRUST}`;
      for (const attempt of [transport.verify(), transport.send(mail)]) {
        const err = await attempt.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(SmtpSendError);
        expect((err as SmtpSendError).message).toBe(says);
        expect((err as SmtpSendError).kind).toBe('temporary');
      }
    } finally {
      transport.close();
    }
  });
});
