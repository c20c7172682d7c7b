import { describe, expect, it } from 'vitest';
import { classifySmtpError } from '../../src/mail/smtp-transport.js';
import { isServerWideFailure } from '../../src/runtime/sender.js';

/** A nodemailer-like error as the transport sees it. */
const smtpError = (fields: { code?: string; responseCode?: number; response?: string }, message = 'failed') => Object.assign(new Error(message), fields);

describe('isServerWideFailure', () => {
  it.each([
    ['a refused connection', smtpError({ code: 'ECONNECTION' }, 'connect ECONNREFUSED 127.0.0.1:25'), true],
    ['a timeout', smtpError({ code: 'ETIMEDOUT' }, 'Connection timeout'), true],
    ['no STARTTLS where required', smtpError({ code: 'ETLS' }, 'STARTTLS not offered'), true],
    ['a refused login', smtpError({ code: 'EAUTH', responseCode: 535, response: '535 5.7.8 Authentication failed' }), true],
    ['421, service not available', smtpError({ code: 'EENVELOPE', responseCode: 421, response: '421 4.3.2 System not accepting messages' }), true],
    ['greylisting of one reply', smtpError({ code: 'EENVELOPE', responseCode: 451, response: '451 4.7.1 Greylisted' }), false],
    ['one recipient refused', smtpError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 No such user' }), false],
    ['one message refused', smtpError({ code: 'EMESSAGE', responseCode: 554, response: '554 5.6.0 Message rejected' }), false],
  ])('%s → %s', (_what, err, serverWide) => {
    expect(isServerWideFailure(classifySmtpError(err))).toBe(serverWide);
  });
});
