/**
 * Starts a throwaway Dovecot as whatever user runs this script, delivers one mail, logs in over IMAP, tries a wrong
 * password, and prints what it saw as one JSON line. The rootless path of src/dev/dovecot.ts, run by a test as
 * another user when the test itself runs as root.
 */
import { ImapFlow } from 'imapflow';
import { startDovecot } from '../../src/dev/dovecot.js';

const imap = await startDovecot();
try {
  const delivered = await imap.deliver('From: a@customer.example\r\nSubject: hi\r\nMessage-ID: <rootless@customer.example>\r\n\r\nbody\r\n');
  const client = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: imap.password }, logger: false });
  await client.connect();
  const box = await client.mailboxOpen('INBOX');
  await client.logout();
  const wrong = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user: imap.user, pass: 'wrong' }, logger: false });
  wrong.on('error', () => undefined);
  const refused = await wrong.connect().then(
    () => false,
    (err: { authenticationFailed?: boolean }) => err.authenticationFailed === true,
  );
  process.stdout.write(`${JSON.stringify({ uid: process.getuid?.(), delivered: delivered.uid, exists: box.exists, refused })}\n`);
} finally {
  await imap.stop();
}
