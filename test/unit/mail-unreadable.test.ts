import { describe, expect, it } from 'vitest';
import { unreadableReason, type UnreadableCheckInput } from '../../src/mail/unreadable.js';

const plain: UnreadableCheckInput = { top: { contentType: 'text/plain' }, text: 'How do I reset my password?', parts: [] };
const mixed = (parts: UnreadableCheckInput['parts'], text = plain.text): UnreadableCheckInput => ({ top: { contentType: 'multipart/mixed' }, text, parts });

describe('unreadableReason', () => {
  it.each<[string, UnreadableCheckInput, string | undefined]>([
    ['a plain question', plain, undefined],
    ['OpenPGP/MIME encrypted', { top: { contentType: 'multipart/encrypted', params: { protocol: 'application/pgp-encrypted' } }, text: '', parts: [] }, 'encrypted mail (OpenPGP/MIME)'],
    ['S/MIME encrypted', { top: { contentType: 'application/pkcs7-mime', params: { 'smime-type': 'enveloped-data' } }, text: '', parts: [] }, 'encrypted mail (S/MIME)'],
    ['S/MIME, old x- type, no smime-type', { top: { contentType: 'application/x-pkcs7-mime' }, text: '', parts: [] }, 'encrypted mail (S/MIME)'],
    ['S/MIME opaque signed', { top: { contentType: 'application/pkcs7-mime', params: { 'smime-type': 'signed-data' } }, text: '', parts: [] }, 'signed in opaque form'],
    // multipart/signed keeps the text readable beside the signature.
    ['S/MIME or PGP clear-signed', { top: { contentType: 'multipart/signed' }, text: plain.text, parts: [{ contentType: 'application/pkcs7-signature', filename: 'smime.p7s' }] }, undefined],
    ['inline OpenPGP encrypted', { ...plain, text: '-----BEGIN PGP MESSAGE-----\n\nhQEMA…\n-----END PGP MESSAGE-----' }, 'encrypted mail (OpenPGP, inline)'],
    ['inline OpenPGP signed', { ...plain, text: '-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\nHow do I reset my password?' }, undefined],
    ['a calendar invitation', mixed([{ contentType: 'text/calendar', params: { method: 'REQUEST', charset: 'UTF-8' } }], 'You have been invited to the following event.'), 'calendar invitation (text/calendar; method=REQUEST)'],
    ['a cancellation', mixed([{ contentType: 'text/calendar', params: { method: 'cancel' } }]), 'calendar cancellation'],
    ['an accepted invitation', mixed([{ contentType: 'TEXT/CALENDAR', params: { method: 'REPLY' } }]), 'answer to a calendar invitation'],
    // A calendar file a customer attaches to a question (an export: PUBLISH, or no method at all) is theirs to ask about.
    ['an attached calendar export', mixed([{ contentType: 'text/calendar', params: { method: 'PUBLISH' }, filename: 'export.ics' }]), undefined],
    ['an .ics without method', mixed([{ contentType: 'text/calendar', filename: 'meeting.ics' }]), undefined],
    ['winmail.dat alone', mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }], ''), "only in winmail.dat"],
    ['winmail.dat by name alone', mixed([{ contentType: 'application/octet-stream', filename: 'WINMAIL.DAT' }], '  \n'), "only in winmail.dat"],
    // Outlook usually sends the plain text beside winmail.dat: that text is read.
    ['winmail.dat beside the text', mixed([{ contentType: 'application/ms-tnef', filename: 'winmail.dat' }]), undefined],
    // A body declared base64 that is not, or bytes in a charset other than the declared one, decode to noise.
    ['noise from a broken transfer encoding', { ...plain, text: 'N\u0018\ufffd\ufffd\ufffd赶\ufffd{\ufffd\u0007\ufffd\u0007h!\ufffdi\ufffd\ufffd' }, 'could not be decoded'],
    ['a few undecodable bytes in a readable text', { ...plain, text: 'Caf\ufffd na\ufffdve question: how do I export?' }, undefined],
    ['a short text with one undecodable byte', { ...plain, text: 'ok\ufffd' }, undefined],
    ['a recall marked by Exchange', { ...plain, subject: 'Recall: Cannot log in', text: 'Kenji would like to recall the message, "Cannot log in".', exchangeRecall: true }, 'withdraw their earlier message "Cannot log in"'],
    ['a recall marked by Exchange, sentence unknown', { ...plain, subject: 'Rückruf: Anmeldung', text: 'Kenji möchte die Nachricht "Anmeldung" zurückrufen.', exchangeRecall: true }, 'withdraw their earlier message; a person'],
    ['a recall by its sentence and subject', { ...plain, subject: 'RECALL: Cannot log in', text: 'Kenji would like to recall the message, \u201cCannot log in\u201d.\n' }, 'recall request (Outlook)'],
    // Without the "Recall:" subject the sentence alone is a customer's words.
    ['the sentence without the subject', { ...plain, subject: 'Question', text: 'Kenji would like to recall the message, "Cannot log in".' }, undefined],
    ['a long text ending in the sentence', { ...plain, subject: 'Recall: x', text: `${'long question text '.repeat(200)}Kenji would like to recall the message, "x".` }, undefined],
    ['Japanese text is no noise', { ...plain, text: 'パスワードを忘れました。再設定の方法を教えてください。\ufffd' }, undefined],
  ])('%s', (_what, input, expected) => {
    const reason = unreadableReason(input);
    if (expected === undefined) expect(reason).toBeUndefined();
    else expect(reason).toContain(expected);
  });
});
