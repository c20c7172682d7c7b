import { describe, expect, it } from 'vitest';
import { FORWARDED_DELIMITER, parseInboundMail } from '../../src/mail/parse.js';

// Mail audit round 7, items 5, 9 and 10 (tmp/mailaudit7/REPORT.md): attribution lines of Gmail, Outlook, Apple Mail and
// Thunderbird in es/pt/de/fr/it/nl/vi/th (547: the customer's inline answers below a Spanish one were lost; 514/515,
// 526/527: a vi/th one stayed in the question), Apple Mail's `>`-quoted forwards and their localized headings (581),
// Outlook mobile's localized footers (521) and Gmail's localized forward separators (580/582).

const SUPPORT = 'support@helpdesk.example.jp';
const OUR_ID = '<3f2b9c1e@helpdesk.example.jp>';

interface RawMail {
  subject?: string;
  /** In-Reply-To of a reply to one of our answers. */
  inReplyTo?: string;
  body: string;
}

/** A raw plain-text mail from a customer to the support address, UTF-8. */
function raw({ subject = 'Exportar CSV', inReplyTo, body }: RawMail): Buffer {
  return Buffer.from(
    [
      'From: Ana Perez <ana.perez@empresa.example>',
      `To: XYZ Support <${SUPPORT}>`,
      `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`,
      'Date: Wed, 25 Nov 2026 14:06:11 +0900',
      'Message-ID: <m1@empresa.example>',
      ...(inReplyTo ? [`In-Reply-To: ${inReplyTo}`, `References: ${inReplyTo}`] : []),
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=UTF-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from(body.replace(/\n/g, '\r\n')).toString('base64'),
      '',
    ].join('\r\n'),
  );
}

const question = async (mail: RawMail): Promise<string> => (await parseInboundMail(raw(mail))).question;

// The attribution lines the clients write, as the audit and the clients' own strings have them.
const ATTRIBUTIONS: [string, string][] = [
  ['es Gmail', `El mar, 24 nov 2026 a las 15:02, XYZ Support (<${SUPPORT}>) escribió:`],
  ['es Outlook', `El martes, 24 de noviembre de 2026 15:02, XYZ Support <${SUPPORT}> escribió:`],
  ['es Apple Mail', `El 24 nov 2026, a las 15:02, XYZ Support <${SUPPORT}> escribió:`],
  ['es Thunderbird', 'El 24/11/26 a las 15:02, XYZ Support escribió:'],
  ['pt Gmail', `Em ter., 24 de nov. de 2026 às 15:02, XYZ Support <${SUPPORT}> escreveu:`],
  ['pt Apple Mail', `Em 24 de nov. de 2026, à(s) 15:02, XYZ Support <${SUPPORT}> escreveu:`],
  ['de Gmail', `Am Di., 24. Nov. 2026 um 15:02 Uhr schrieb XYZ Support <${SUPPORT}>:`],
  ['de Apple Mail', `Am 24.11.2026 um 15:02 schrieb XYZ Support <${SUPPORT}>:`],
  ['de Thunderbird', 'Am 24.11.26 um 15:02 schrieb XYZ Support:'],
  ['fr Gmail', `Le mar. 24 nov. 2026 à 15:02, XYZ Support <${SUPPORT}> a écrit :`],
  ['fr Apple Mail', `Le 24 nov. 2026 à 15:02, XYZ Support <${SUPPORT}> a écrit :`],
  ['it Gmail', `Il giorno mar 24 nov 2026 alle ore 15:02 XYZ Support <${SUPPORT}> ha scritto:`],
  ['it Thunderbird', 'Il 24/11/26 15:02, XYZ Support ha scritto:'],
  ['nl Gmail', `Op di 24 nov 2026 om 15:02 schreef XYZ Support <${SUPPORT}>:`],
  ['nl Apple Mail', `Op 24 nov. 2026 om 15:02 heeft XYZ Support <${SUPPORT}> het volgende geschreven:`],
  ['vi Gmail', `Vào Th 3, 24 thg 11, 2026 vào lúc 15:02 XYZ Support <${SUPPORT}> đã viết:`],
  ['th Gmail', `เมื่อ อ. 24 พ.ย. 2026 เวลา 15:02 XYZ Support <${SUPPORT}> เขียนว่า:`],
];

describe('inline answers below a localized attribution are the customer\'s (audit 547)', () => {
  it.each(ATTRIBUTIONS)('%s', async (_client, attribution) => {
    const body = ['Hola, respondo entre líneas:', '', attribution, '> ¿Qué navegador utiliza?', '', 'Firefox 133 en macOS', '', '> ¿Qué versión de la aplicación?', '', '4.1.7', '', '> Saludos cordiales,', '> XYZ Support'].join('\n');
    const asked = await question({ subject: 'Re: Error de sincronización', inReplyTo: OUR_ID, body });
    expect(asked).toMatch(/Firefox 133 en macOS[\s\S]*4\.1\.7/);
    expect(asked).not.toMatch(/XYZ Support|15:02|Saludos cordiales/);
  });

  it('an attribution wrapped before the address', async () => {
    const body = ['Hola, respondo entre líneas:', '', 'El mar, 24 nov 2026 a las 15:02, XYZ Support (<', `${SUPPORT}>) escribió:`, '> ¿Qué navegador utiliza?', '', 'Firefox 133 en macOS'].join('\n');
    const asked = await question({ subject: 'Re: Error de sincronización', inReplyTo: OUR_ID, body });
    expect(asked).toMatch(/Firefox 133 en macOS/);
    expect(asked).not.toMatch(/escribió|15:02/);
  });
});

describe('a localized attribution above the quote never stays in the question (audit 514/515, 526/527)', () => {
  it.each([
    ['vi question (514)', `Vào Th 3, 24 thg 11, 2026 vào lúc 15:02 XYZ Support <${SUPPORT}> đã viết:`, 'Cảm ơn bạn. File CSV có bị lỗi font tiếng Việt không?'],
    ['th question (515)', `เมื่อ อ. 24 พ.ย. 2026 เวลา 15:02 XYZ Support <${SUPPORT}> เขียนว่า:`, 'ขอบคุณครับ แล้วส่งออกเป็นไฟล์ Excel ได้ไหมครับ'],
    ['vi thanks (526)', `Vào Th 3, 24 thg 11, 2026 vào lúc 15:02 XYZ Support <${SUPPORT}> đã viết:`, 'Cảm ơn bạn nhiều, mình làm được rồi ạ.'],
    ['th thanks (527)', `เมื่อ อ. 24 พ.ย. 2026 เวลา 15:02 XYZ Support <${SUPPORT}> เขียนว่า:`, 'ขอบคุณมากครับ ทำได้แล้วครับ'],
  ])('%s', async (_what, attribution, own) => {
    // Only above `>` lines: a localized line over unquoted text may be the customer's own (bug review 41c).
    const quoted = ['> Chào anh Minh,', '>', '> Anh có thể xuất file CSV tại Cài đặt.'];
    const asked = await question({ subject: 'Re: CSV', inReplyTo: OUR_ID, body: [own, '', attribution, '', ...quoted].join('\n') });
    expect(asked).toBe(own);
  });
});

// Not French: email-reply-parser cuts a customer's own "Le … a écrit :" line with what follows it (left as it was).
describe('a customer\'s own "… escribió:" with no time or address stays theirs (guards)', () => {
  it.each([
    ['es', 'Mi jefe escribió:'],
    ['de', 'Der Techniker schrieb mir Folgendes:'],
    ['pt', 'O técnico escreveu:'],
  ])('%s', async (_lang, line) => {
    const asked = await question({ subject: 'Pregunta', body: ['Hola,', '', line, '> Reinicie el router.', '', '¿Es correcto?'].join('\n') });
    expect(asked).toContain(line);
    expect(asked).toMatch(/¿Es correcto\?/);
  });
});

describe('a line of the customer\'s opening like a localized attribution is not joined to the next (guard)', () => {
  it('"Am I right that" over "the manager wrote:"', async () => {
    const asked = await question({ subject: 'Re: Export', inReplyTo: OUR_ID, body: ['Am I right that', 'the manager wrote:', '> Exports run nightly.', '', 'Can I run one now?'].join('\n') });
    expect(asked).toMatch(/^Am I right that\n/);
    expect(asked).toMatch(/Can I run one now\?/);
  });
});

// Apple Mail quotes the mail it forwards with `>`, under its heading in the user's language.
const APPLE_FORWARD = (heading: string, labels: [string, string, string, string]): string =>
  [
    'Hallo,',
    '',
    'warum steht auf der Rechnung die alte Adresse?',
    '',
    'Klaus',
    '',
    heading,
    '',
    `> ${labels[0]} XYZ Billing <billing@helpdesk.example.jp>`,
    `> ${labels[1]} Ihre Rechnung November`,
    `> ${labels[2]} 24. November 2026 um 07:02:11 MEZ`,
    `> ${labels[3]} k.mueller@mueller-gmbh.de`,
    '>',
    '> Guten Tag,',
    '>',
    '> anbei Ihre Rechnung Nr. 2026-11-0043.',
    '>',
    '>> Eine ältere zitierte Zeile',
    '>',
    '> XYZ Billing',
  ].join('\n');

describe('an Apple Mail forward is read, not dropped as a quote (audit 581)', () => {
  const EN: [string, string, string, string] = ['From:', 'Subject:', 'Date:', 'To:'];
  it.each([
    ['en', 'Begin forwarded message:', EN],
    ['de', 'Anfang der weitergeleiteten Nachricht:', ['Von:', 'Betreff:', 'Datum:', 'An:'] as [string, string, string, string]],
    ['es', 'Inicio del mensaje reenviado:', ['De:', 'Asunto:', 'Fecha:', 'Para:'] as [string, string, string, string]],
    ['pt-PT', 'Início da mensagem reencaminhada:', ['De:', 'Assunto:', 'Data:', 'Para:'] as [string, string, string, string]],
    ['pt-BR', 'Início da mensagem encaminhada:', ['De:', 'Assunto:', 'Data:', 'Para:'] as [string, string, string, string]],
    ['fr', 'Début du message réexpédié :', ['De :', 'Objet :', 'Date :', 'À :'] as [string, string, string, string]],
    ['it', 'Inizio messaggio inoltrato:', ['Da:', 'Oggetto:', 'Data:', 'A:'] as [string, string, string, string]],
    ['nl', 'Begin doorgestuurd bericht:', ['Van:', 'Onderwerp:', 'Datum:', 'Aan:'] as [string, string, string, string]],
    ['ja', '転送されたメッセージ:', ['差出人:', '件名:', '日付:', '宛先:'] as [string, string, string, string]],
  ])('%s', async (_lang, heading, labels) => {
    const asked = await question({ subject: 'Rechnung', body: APPLE_FORWARD(heading, labels) });
    expect(asked).toMatch(/^Hallo,\n\nwarum steht auf der Rechnung die alte Adresse\?\n\nKlaus\n\n/);
    expect(asked).toContain(`${FORWARDED_DELIMITER}\nFrom: XYZ Billing <billing@helpdesk.example.jp>\nSubject: Ihre Rechnung November\n\nGuten Tag,`);
    expect(asked).toMatch(/anbei Ihre Rechnung Nr\. 2026-11-0043\./);
    expect(asked).not.toContain(heading);
    expect(asked).not.toMatch(/07:02:11|k\.mueller@|ältere zitierte/);
  });
});

// French ("Télécharger Outlook pour iOS") is one email-reply-parser cuts already.
describe('Outlook mobile\'s localized footer is cut (audit 521)', () => {
  it.each([
    ['es', 'Obtener Outlook para Android'],
    ['pt', 'Obter o Outlook para Android'],
    ['de', 'Outlook für Android herunterladen'],
    ['it', 'Scarica Outlook per Android'],
    ['nl', 'Outlook voor iOS downloaden'],
    ['ja', 'Android 用 Outlook を入手'],
  ])('%s', async (_lang, footer) => {
    const asked = await question({ subject: 'Re: Exportar CSV', inReplyTo: OUR_ID, body: ['¿Y desde la app móvil también se puede?', '', footer].join('\n') });
    expect(asked).toBe('¿Y desde la app móvil también se puede?');
  });
});

// Gmail names only the From label in the user's language.
describe('Gmail\'s localized forward separator is read as the forward\'s, not kept twice (audit 580/582)', () => {
  it.each([
    ['es', 'Mensaje reenviado', 'De:', 'Date:', 'Subject:', 'To:'],
    ['pt', 'Mensagem encaminhada', 'De:', 'Date:', 'Subject:', 'To:'],
    ['de', 'Weitergeleitete Nachricht', 'Von:', 'Date:', 'Subject:', 'To:'],
    ['fr', 'Message transféré', 'De :', 'Date:', 'Subject:', 'To:'],
    ['it', 'Messaggio inoltrato', 'Da:', 'Date:', 'Subject:', 'To:'],
    ['nl', 'Doorgestuurd bericht', 'Van:', 'Date:', 'Subject:', 'To:'],
  ])('%s', async (_lang, words, from, date, subjectLabel, to) => {
    const body = [
      'Por que fui cobrado duas vezes este mês?',
      '',
      `---------- ${words} ---------`,
      `${from} XYZ Billing <billing@helpdesk.example.jp>`,
      `${date} ter., 24 de nov. de 2026 às 03:02`,
      `${subjectLabel} Sua fatura de novembro`,
      `${to} <joao.silva@empresa.com.br>`,
      '',
      '',
      'Sua fatura de novembro está disponível.',
      '',
      'XYZ Billing',
    ].join('\n');
    const asked = await question({ subject: 'Fwd: Sua fatura de novembro', body });
    expect(asked).not.toContain(words);
    expect(asked).toContain(`Por que fui cobrado duas vezes este mês?\n\n${FORWARDED_DELIMITER}\nFrom: XYZ Billing <billing@helpdesk.example.jp>\nSubject: Sua fatura de novembro\n\nSua fatura de novembro está disponível.`);
  });
});

// Bug review 41c (tmp/bugrev41c/REPORT.md): a customer's own line that ends like a localized attribution (one that opens
// like a client's, 「El lunes … escribió:」, email-reply-parser cuts with what follows, as before), a line of theirs that
// opens like one's wrapped first half, and a customer's sentence that opens like Outlook mobile's footer.
describe('the customer\'s own words that look like an attribution or a footer stay theirs (bug review 41c)', () => {
  it.each([
    ['es: what a technician wrote, with its time, over their own text', 'Re: Avería', ['Hola,', '', 'Ayer a las 10:30 su técnico me escribió:', 'que el equipo estaba reparado.', '¿Pueden enviar a alguien otra vez?'], /Pueden enviar a alguien otra vez/],
    ['fr: with an address, over their own text', 'Re: Facture', ['Bonjour,', '', 'Hier à 10:02, votre comptable <compta@client.example> a écrit :', 'la facture est fausse.', 'Pouvez-vous la corriger ?'], /Pouvez-vous la corriger/],
    ['pt: over their own text', 'Re: Pedido', ['Olá,', '', 'Ontem às 10:02 o vendedor <v@loja.example> escreveu:', 'o pedido saiu ontem.', 'Ainda não chegou. Podem verificar?'], /Podem verificar/],
    ['en: a question of theirs that opens with "Am", right above an attribution', 'Re: Order', ['Thanks.', 'Am I right that order 4512 ships today?', `On Tue, Nov 24, 2026 at 3:02 PM XYZ Support <${SUPPORT}> wrote:`, '> Your order is being prepared.'], /Am I right that order 4512 ships today/],
    ['es: an error that opens like Outlook mobile\'s footer', 'Error', ['Obtener Outlook para Android me da el error 0x80', '¿Qué hago?'], /me da el error 0x80/],
  ])('%s', async (_what, subject, body, kept) => {
    expect(await question({ subject, inReplyTo: OUR_ID, body: body.join('\n') })).toMatch(kept);
  });
});

// Outlook mobile's footers with the store link the app writes after them go, as those without. (A customer's line
// opening "Get Outlook for …" is still cut by email-reply-parser's own English pattern, as before; bug review 41d.)
describe('Outlook mobile\'s footers with their store link (bug review 41d)', () => {
  it.each([
    ['English, alone', ['My calendar does not sync. What can I do?', '', 'Get Outlook for Android'], /What can I do\?$/],
    ['English, with its store link', ['My calendar does not sync. What can I do?', '', 'Get Outlook for iOS<https://aka.ms/o0ukef>'], /What can I do\?$/],
    ['Spanish, with its store link', ['Mi calendario no se sincroniza. ¿Qué hago?', '', 'Obtener Outlook para Android<https://aka.ms/AAb9ysg>'], /¿Qué hago\?$/],
    ['Japanese, with its store link', ['カレンダーが同期されません。どうすればよいですか？', '', 'Android 用 Outlook を入手<https://aka.ms/AAb9ysg>'], /どうすればよいですか？$/],
  ])('%s', async (_what, body, asked) => {
    expect(await question({ subject: 'Calendar sync', body: body.join('\n') })).toMatch(asked);
  });
});
