/**
 * Real clients' replies, read right (mail round 12): what round 11 left. Each row is a body (our own words, in the
 * shapes the clients write) and the visible text the agent must get: the customer's new words whole, without the
 * quote. Russian and Danish Gmail attributions (also wrapped over two lines), German mobile Gmail's attribution wrapped
 * inside its date, Outlook/Apple header blocks that open with their Date or Sent line or stand on one line, and a
 * customer's own From/To lines (De/Para, Von/An, 差出人/宛先…) on top of a new mail, which are their words, not a quote,
 * and a name-and-title tagline right under a closing.
 */
import { describe, expect, it } from 'vitest';
import { extractQuestion, parseInboundMail } from '../../src/mail/parse.js';

type Row = [name: string, body: string, visible: string];

const rows: Row[] = [
  // Gmail (ru): "пн, 3 февр. 2025 г. в 10:15, Name <a@b>:", no verb; wrapped before the address as Gmail wraps it.
  ['ru Gmail attribution', 'Спасибо, всё заработало.\n\nпн, 3 февр. 2025 г. в 10:15, Иван Петров <ivan@shop.example>:\n\n> Попробуйте перезапустить приложение.\n', 'Спасибо, всё заработало.'],
  ['ru Gmail attribution wrapped', 'Спасибо, всё заработало.\n\nчт, 13 окт. 2022 г. в 16:43, Иван Петров\n<ivan@shop.example>:\n\n> Попробуйте перезапустить.\n', 'Спасибо, всё заработало.'],
  ['ru Gmail attribution over an unmarked quote', 'Когда придёт посылка?\n\nср, 30 апр. 2025 г. в 15:19, Служба поддержки <help@shop.example>:\n\nЗдравствуйте! Посылка отправлена.\n', 'Когда придёт посылка?'],
  ['ru Apple Mail attribution', 'Спасибо.\n\n3 февр. 2025 г., в 10:15, Иван Петров <ivan@shop.example> написал(а):\n\nПосылка отправлена.\n', 'Спасибо.'],
  // Gmail (da): "Den man. 3. feb. 2025 kl. 10.15 skrev Name <a@b>:", older versions without "Den", the time with a dot.
  ['da Gmail attribution', 'Det virker nu, tak.\n\nDen man. 3. feb. 2025 kl. 10.15 skrev Jens Hansen <jens@shop.example>:\n\n> Prøv at genstarte.\n', 'Det virker nu, tak.'],
  ['da Gmail attribution without "Den"', 'Tak for hjælpen.\n\n4. marts 2025 kl. 09.12 skrev Kundeservice <service@shop.example>:\n\n> Skal vi bytte varen?\n', 'Tak for hjælpen.'],
  ['da Gmail attribution wrapped', 'Tak for hjælpen.\n\nDen tir. 4. mar. 2025 kl. 09.12 skrev Kundeservice Butik <\nservice@shop.example>:\n\n> Skal vi bytte varen?\n', 'Tak for hjælpen.'],
  ['da Gmail attribution over an unmarked quote', 'Hvornår kommer pakken?\n\nDen tir. 4. mar. 2025 kl. 09.12 skrev Kundeservice <service@shop.example>:\n\nPakken er sendt.\n', 'Hvornår kommer pakken?'],
  ['sv Gmail attribution', 'Tack, det fungerar.\n\nDen tis 4 mars 2025 kl 09:12 skrev Kundtjänst <service@shop.example>:\n\n> Ska vi byta varan?\n', 'Tack, det fungerar.'],
  ['de Gmail mobile attribution wrapped inside its date', 'Danke, passt.\n\nKundendienst <service@shop.example> schrieb am So., 23.\nJuni 2024, 21:08:\n\n> Sollen wir tauschen?\n', 'Danke, passt.'],
  // What a customer writes with the same words stays theirs: no address, no client's date and time.
  ['ru customer quoting an operator', 'Вчера в 10:15 ваш оператор Иван написал мне:\n\nПосылка отправлена.\n\nНо посылки нет. Где она?\n', 'Вчера в 10:15 ваш оператор Иван написал мне:\n\nПосылка отправлена.\n\nНо посылки нет. Где она?'],
  ['da customer quoting a technician', 'I går kl. 10.15 skrev jeres tekniker:\n\nGenstart routeren.\n\nDet hjalp ikke. Hvad nu?\n', 'I går kl. 10.15 skrev jeres tekniker:\n\nGenstart routeren.\n\nDet hjalp ikke. Hvad nu?'],
  ['customer line above a da attribution', 'Tak\nDen tir. 4. mar. 2025 kl. 09.12 skrev Kundeservice <service@shop.example>:\n> Skal vi bytte varen?\n', 'Tak'],
  // Header blocks that open with Date:/Sent:, or stand on one line (Outlook's and Apple's blocks turned to text).
  ['Date-first header block', 'Thanks, that works.\n\nDate: Tue, 4 Mar 2025 09:12:00 +0000\nFrom: Shop Support <support@shop.example>\nTo: casey@buyer.example\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['a customer\'s Date/From/To booking lines under a greeting are no block', 'Hello,\n\nDate: 12 March 2025\nFrom: London\nTo: Paris\n\nCan I move this booking to the 14th?\n', 'Hello,\n\nDate: 12 March 2025\nFrom: London\nTo: Paris\n\nCan I move this booking to the 14th?'],
  ['a customer\'s trip with a flight line is no block', 'Hi,\nmy trip:\nDate: 12 March 2025\nFrom: London\nTo: Paris CDG\nFlight: AF1081\n\nCan I change the seat?\n', 'Hi,\nmy trip:\nDate: 12 March 2025\nFrom: London\nTo: Paris CDG\nFlight: AF1081\n\nCan I change the seat?'],
  ['es Fecha/De/Para booking lines are no block', 'Hola,\n\nFecha: 12/03/2025\nDe: Madrid\nPara: Sevilla\n\n¿Puedo cambiar la reserva?\n', 'Hola,\n\nFecha: 12/03/2025\nDe: Madrid\nPara: Sevilla\n\n¿Puedo cambiar la reserva?'],
  ['de Datum/Von/An booking lines are no block', 'Hallo,\n\nDatum: 12.03.2025\nVon: Berlin\nAn: München\n\nKann ich umbuchen?\n', 'Hallo,\n\nDatum: 12.03.2025\nVon: Berlin\nAn: München\n\nKann ich umbuchen?'],
  ['a From-first block without addresses, blank lines between its labels', 'Thanks, that works.\n\nFrom: Shop Support\n\nSent: Tuesday, March 4, 2025 9:12 AM\n\nTo: Casey\n\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['a From-first block without addresses, To before Subject', 'Thanks, that works.\n\nFrom: Shop Support\nTo: Casey\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['Sent-first header block', 'Thanks, that works.\n\nSent: Tuesday, March 4, 2025 9:12 AM\nFrom: Shop Support\nTo: Casey\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['one-line header block', 'Thanks, that works.\n\nDate: Tue, 4 Mar 2025 09:12:00 +0000 From: support@shop.example To: Casey, Customer Subject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['one-line header block (es)', 'Gracias, funciona.\n\nDe: Atención Tienda Enviado el: martes, 4 de marzo de 2025 9:12 Para: cliente@buyer.example Asunto: Pedido 77\n\n¿Cambiamos el artículo?\n', 'Gracias, funciona.'],
  ['a customer\'s From/to sentence is no one-line block', 'From: the Osaka office, to: the Tokyo office, subject: moving the server. When can you do it?\n', 'From: the Osaka office, to: the Tokyo office, subject: moving the server. When can you do it?'],
  ['a customer\'s Date line is no block', 'Date: 4 March suits us.\nFrom our side everything is ready.\n\nCan the technician come then?\n', 'Date: 4 March suits us.\nFrom our side everything is ready.\n\nCan the technician come then?'],
  // A customer's own From/To lines on top of a new mail, in the languages of the labels we read.
  ['en From/To on top', 'From: John Smith\nTo: Support\n\nHi, I cannot log in to my account. Can you help?\n', 'From: John Smith\nTo: Support\n\nHi, I cannot log in to my account. Can you help?'],
  ['es De/Para on top', 'De: Juan Pérez\nPara: Soporte\n\nHola, no puedo entrar en mi cuenta. ¿Me ayudan?\n', 'De: Juan Pérez\nPara: Soporte\n\nHola, no puedo entrar en mi cuenta. ¿Me ayudan?'],
  ['pt De/Para on top', 'De: João Silva\nPara: Suporte\n\nOlá, não consigo entrar na minha conta.\n', 'De: João Silva\nPara: Suporte\n\nOlá, não consigo entrar na minha conta.'],
  ['fr De/À on top', 'De : Marie Dupont\nÀ : Support\n\nBonjour, je ne peux pas me connecter.\n', 'De : Marie Dupont\nÀ : Support\n\nBonjour, je ne peux pas me connecter.'],
  ['de Von/An on top', 'Von: Max Muster\nAn: Kundendienst\n\nHallo, ich kann mich nicht anmelden.\n', 'Von: Max Muster\nAn: Kundendienst\n\nHallo, ich kann mich nicht anmelden.'],
  ['it Da/A on top', 'Da: Marco Rossi\nA: Assistenza\n\nBuongiorno, non riesco ad accedere.\n', 'Da: Marco Rossi\nA: Assistenza\n\nBuongiorno, non riesco ad accedere.'],
  ['nl Van/Aan on top', 'Van: Jan de Vries\nAan: Klantenservice\n\nHallo, ik kan niet inloggen.\n', 'Van: Jan de Vries\nAan: Klantenservice\n\nHallo, ik kan niet inloggen.'],
  ['ja 差出人/宛先 on top', '差出人: 大阪支店 田中\n宛先: サポート窓口\n\nログインできません。確認をお願いできますか？\n', '差出人: 大阪支店 田中\n宛先: サポート窓口\n\nログインできません。確認をお願いできますか？'],
  ['es De/Para on top above a real block', 'De: Juan Pérez\nPara: Soporte\n\nEl pedido llegó roto.\n\nDe: Atención Tienda\nEnviado el: martes, 4 de marzo de 2025 9:12\nPara: Juan\nAsunto: Pedido 77\n\nSu pedido está en camino.\n', 'De: Juan Pérez\nPara: Soporte\n\nEl pedido llegó roto.'],
  // A real block at the top of a reply (the customer wrote nothing above it) is still the quote.
  ['es real block on top', 'De: Atención Tienda\nEnviado el: martes, 4 de marzo de 2025 9:12\nPara: cliente@buyer.example\nAsunto: Pedido 77\n\n¿Cambiamos el artículo?\n', 'your question'],
  ['en From with an address and To on top', 'From: Shop Support <support@shop.example>\nTo: Casey\n\nYour parcel is on its way.\n', 'your question'],
  // A name-and-title tagline under a closing goes; elsewhere it is the customer's.
  ['name | title under a closing', 'Can you resend the invoice?\n\nThanks,\nJim Smith | Enrollment Manager\n', 'Can you resend the invoice?\n\nThanks,'],
  ['name – title under a closing', 'Can you resend the invoice?\n\nThank you!\nJane Doe – Customer Success\n', 'Can you resend the invoice?\n\nThank you!'],
  ['name | title the customer asks about', 'Please change the contact on our account to:\nJim Smith | Enrollment Manager\n', 'Please change the contact on our account to:\nJim Smith | Enrollment Manager'],
  ['a line of the customer\'s under a closing', 'The parcel came.\n\nThanks,\nOrder 55 - still missing one box\n', 'The parcel came.\n\nThanks,\nOrder 55 - still missing one box'],
  // Bug review 50 (B1): the tagline's title is title-case words without digits, its name two or three capitalised words,
  // and a postscript is never one; a sentence after a dash under a closing is the customer's.
  ['a request after a name under a closing', 'Hi, my order hasn\'t arrived.\n\nThanks,\nAnna Berg – please call me back after 3pm\n', 'Hi, my order hasn\'t arrived.\n\nThanks,\nAnna Berg – please call me back after 3pm'],
  ['an error after a product name under a closing', 'Hi,\nI cannot log in since yesterday.\n\nThanks,\nBilling Portal | Error Code 500 appears\n', 'Hi,\nI cannot log in since yesterday.\n\nThanks,\nBilling Portal | Error Code 500 appears'],
  ['a symptom after a product name under a closing', 'The update is installed.\n\nThanks,\nAndroid App – crashes on start since update\n', 'The update is installed.\n\nThanks,\nAndroid App – crashes on start since update'],
  ['a postscript under a closing', 'The export fails.\n\nThanks,\nP.S. The Error - appears only on Chrome\n', 'The export fails.\n\nThanks,\nP.S. The Error - appears only on Chrome'],
  ['a title-case postscript under a closing', 'The export fails.\n\nThanks,\nP.S. Chrome Only - Export Button\n', 'The export fails.\n\nThanks,\nP.S. Chrome Only - Export Button'],
  ['name | titles with a comma under a closing', 'Can you resend the invoice?\n\nThanks,\nJim Smith | VP, Sales & Marketing\n', 'Can you resend the invoice?\n\nThanks,'],
  ['name – title of several words under a closing', 'Can you resend the invoice?\n\nBest regards,\nJane Doe – Head of Customer Success\n', 'Can you resend the invoice?'],
  // Bug review 50 (B1): a Date line over a From line without an address, and no label after it, is a customer's booking
  // or trip, not a client's block; Outlook's "Sent:⏎From: Name⏎To:⏎Subject:" stays one (the Sent-first row above).
  ['a customer\'s Date/From booking lines are no block', 'Date: 12 March 2025\nFrom: London\n\nMy train was cancelled, please refund.\n', 'Date: 12 March 2025\nFrom: London\n\nMy train was cancelled, please refund.'],
  ['es Fecha/De booking lines under a greeting are no block', 'Hola,\nFecha: 12/03/2025\nDe: Madrid\n\nEl tren fue cancelado.\n', 'Hola,\nFecha: 12/03/2025\nDe: Madrid\n\nEl tren fue cancelado.'],
  ['Sent-first block with the From line last of its labels', 'Thanks, that works.\n\nSent: Tuesday, March 4, 2025 9:12 AM\nFrom: Shop Support\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  // Bug review 50 (B3b): a Date-first block whose From line names no address counts only with an address or a Subject,
  // Sent or Cc label in the lines below its From line, as Outlook's blocks in every language write them.
  ['Date-first block with a name and the recipient\'s address', 'Thanks, that works.\n\nDate: Tue, 4 Mar 2025 09:12:00 +0000\nFrom: Shop Support\nTo: casey@buyer.example\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['Sent-first block with a Cc line', 'Thanks, that works.\n\nSent: Tuesday, March 4, 2025 9:12 AM\nFrom: Shop Support\nTo: Casey\nCc: Billing\nSubject: Your order 77\n\nShall we swap the item?\n', 'Thanks, that works.'],
  ['de Gesendet-first block', 'Danke, passt.\n\nGesendet: Dienstag, 4. März 2025 09:12\nVon: Kundendienst\nAn: Casey\nBetreff: Bestellung 77\n\nSollen wir tauschen?\n', 'Danke, passt.'],
  ['es Enviado-first block', 'Gracias, funciona.\n\nEnviado el: martes, 4 de marzo de 2025 9:12\nDe: Atención Tienda\nPara: Juan\nAsunto: Pedido 77\n\n¿Cambiamos el artículo?\n', 'Gracias, funciona.'],
  // Bug review 50 (B1): Thunderbird's date-first attribution ends in "пишет:"; a customer's sentence with the same date
  // and "написал:" is theirs.
  ['ru Thunderbird attribution', 'Спасибо!\n\n03.02.2025 10:15, Иван Петров пишет:\n> Попробуйте перезапустить.\n', 'Спасибо!'],
  ['ru customer quoting an operator with a date', 'Здравствуйте!\n12.03.2025 10:15, ваш оператор написал:\n«Заказ будет доставлен завтра»\nНо заказ так и не пришёл.\n', 'Здравствуйте!\n12.03.2025 10:15, ваш оператор написал:\n«Заказ будет доставлен завтра»\nНо заказ так и не пришёл.'],
];

describe('round 12: real clients\' replies', () => {
  it.each(rows)('%s', (_name, body, visible) => {
    expect(extractQuestion(body, 'Re: your question')).toBe(visible);
  });

  it('reads a customer\'s own "De:/Para:" first lines as their words, not a mail of only a quote', async () => {
    const raw = Buffer.from(
      [
        'From: Juan <juan@buyer.example>',
        'To: soporte@shop.example',
        'Subject: No puedo entrar',
        'Message-ID: <r12-es@buyer.example>',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        'Content-Transfer-Encoding: 8bit',
        '',
        'De: Juan Pérez',
        'Para: Soporte',
        '',
        'Hola, no puedo entrar en mi cuenta. ¿Me ayudan?',
        '',
      ].join('\r\n'),
    );
    const mail = await parseInboundMail(raw);
    expect(mail.unreadable).toBeUndefined();
    expect(mail.question).toContain('no puedo entrar');
  });
});
