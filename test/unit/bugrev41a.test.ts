import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decisionOf, SUPPORT, type RawMail } from '../support/decision-before-agent.js';

// Bug review 41a (tmp/bugrev41a/REPORT.md) of the audit-7 decisions: words that silenced or parked a customer's real
// mail. Out-of-office words in Vietnamese and Thai beside a request, a Thai question particle read as thanks, a
// localized read-receipt prefix over a question, and voicemail/fax and own-group list rules that parked a customer's
// or a newsletter's mail. Each row is taken the poller's way and then through the agent worker's checks, as
// test/unit/mail-audit7-decisions.test.ts does.

const sample = (name: string) => readFileSync(new URL(`../fixtures/mail/audit7/${name}`, import.meta.url));

describe('a request beside Vietnamese or Thai away words is answered (review 41a finding 1)', () => {
  const customer = (body: string): RawMail => ({ from: 'Customer <cust@client.example.vn>', subject: 'Re: Báo giá / ใบเสนอราคา', body, reply: true });
  it.each<[string, string]>([
    ['vi: on a trip next week, so please (nhờ) send the quote before Friday', 'Chào anh,\n\nTôi sẽ đi công tác tuần sau nên nhờ anh gửi báo giá trước thứ Sáu.\n\nTrân trọng,\nNguyễn Văn An'],
    ['vi: on leave from tomorrow, please (vui lòng) send the invoice', 'Tôi sẽ nghỉ phép từ ngày mai, vui lòng gửi hóa đơn cho kế toán của chúng tôi'],
    ['vi: on a trip; when (khi nào) will my order arrive, no question mark', 'Tôi đang đi công tác, khi nào đơn hàng của tôi được giao'],
    ['vi: not in the office; cancel (giúp) order 123 for me', 'Hiện tôi không có mặt tại văn phòng, hủy giúp tôi đơn hàng 123'],
    ['th: on vacation next week, please (รบกวน) send the quote before Friday', 'ผมจะลาพักร้อนสัปดาห์หน้า รบกวนส่งใบเสนอราคาก่อนวันศุกร์ครับ'],
    ['th: not at the office; the invoice has not (ยังไม่) arrived', 'ตอนนี้ดิฉันไม่อยู่ที่สำนักงาน ใบแจ้งหนี้เดือนนี้ยังไม่ได้รับเลยค่ะ'],
    ['th: abroad next month, want (ต้องการ) to change the delivery address', 'ผมจะเดินทางไปต่างประเทศเดือนหน้า ต้องการเปลี่ยนที่อยู่จัดส่งเป็นที่อยู่ใหม่ครับ'],
    ['th: on vacation until the 10th, please (กรุณา) cancel my subscription', 'ดิฉันลาพักร้อนจนถึงวันที่ 10 กรุณายกเลิกการสมัครสมาชิกของดิฉันด้วยค่ะ'],
    ['th: away this week, the report is wrong, no request word', 'ผมไม่อยู่ที่สำนักงานสัปดาห์นี้ รายงานยอดขายเดือนตุลาคมแสดงตัวเลขซ้ำกันสองครั้ง'],
    ['vi: on leave, and the export still has an error (lỗi)', 'Tôi đang nghỉ phép, nhưng xuất CSV vẫn bị lỗi font\n\nMinh'],
  ])('%s', async (_what, body) => {
    expect(await decisionOf(customer(body))).toBe('answer');
  });

  it.each<[string, string]>([
    ['566-ooo-vi-headerless.eml', 'vi notice (566)'],
    ['567-ooo-th-headerless.eml', 'th notice (567)'],
  ])('the real notice %s is still ignored', async (file) => {
    expect(await decisionOf(sample(file))).toMatch(/^ignore auto-reply/);
  });
});

describe('a Thai question particle is no thanks (review 41a finding 5)', () => {
  it('ขอบคุณค่ะ / เรียบร้อยแล้วคะ ("thanks — is it done?") is answered', async () => {
    expect(await decisionOf({ from: '"Suda P." <suda@thaicorp.co.th>', subject: 'Re: ส่งออก CSV', body: 'ขอบคุณค่ะ\nเรียบร้อยแล้วคะ', reply: true })).toBe('answer');
  });
});

describe('a localized read-receipt prefix over a question is no receipt (review 41a finding 6)', () => {
  it.each<[string, RawMail]>([
    ['fr Lu : on a reply that asks to resend the invoice', { from: 'C <c@client-firm.example>', subject: 'Lu : Re: Facture', body: 'Bonjour, pouvez-vous renvoyer la facture ?', reply: true }],
    ['es Leído: over receipt-like lines and ¿…?', { from: 'C <c@client-firm.example>', subject: 'Leído: manual de usuario', body: 'Su mensaje\n\nfue leído el lunes por nuestro equipo. ¿Dónde está la sección 4?' }],
  ])('%s', async (_what, mail) => {
    expect(await decisionOf(mail)).toBe('answer');
  });

  it("guard: Outlook's receipt for our mail whose subject asks is still a receipt", async () => {
    const body = 'Su mensaje\n\n  Para: Ana Pérez\n  Asunto: Re: ¿Cómo exporto el CSV?\n  Enviado: martes, 24 de noviembre de 2026 7:02:11 (UTC+01:00)\n\nfue leído el miércoles, 25 de noviembre de 2026 2:02:11 (UTC+01:00).';
    expect(await decisionOf({ from: 'Ana Pérez <ana.perez.lopez@gmail.com>', subject: 'Leído: Re: ¿Cómo exporto el CSV?', body })).toMatch(/^ignore read receipt/);
  });
});

describe('voicemail/fax words and our address in a List-* URL park only with a machine sign (review 41a finding 7)', () => {
  it.each<[string, RawMail, RegExp]>([
    ['a customer: your FAX arrived but page 2 is blank (subject and body say FAX受信)', { from: '田中 <tanaka@kensetsu-tanaka.co.jp>', subject: 'FAX受信しましたが2ページ目が白紙です', body: 'お世話になっております。\n本日御社からFAXを受信しましたが、2ページ目が白紙でした。\n再送していただけますでしょうか。\n\n田中' }, /^answer$/],
    ['a customer forwards a voicemail notice and asks who called', { from: 'Bob <bob@acme-corp.example>', subject: 'Fwd: New voicemail from (415) 555-0132', body: 'Hi, we got this from your number but nobody is named. Who tried to reach us?\n\n---------- Forwarded message ---------\nYou have a new voice message from (415) 555-0132.\nTranscription: Hello this is support' }, /^answer$/],
    ['a vendor newsletter whose List-Unsubscribe path names our address', { from: 'Vendor News <news@vendor-news.example>', subject: 'November product update', headers: [`List-Unsubscribe: <https://mailer.vendor-news.example/unsubscribe/${SUPPORT}/7f3a>`, 'List-Id: <monthly.vendor-news.example>', 'Precedence: bulk'], body: 'Our November update: new dashboards. Read more at https://vendor-news.example/blog' }, /^ignore list/],
  ])('%s', async (_what, mail, expected) => {
    expect(await decisionOf(mail)).toMatch(expected);
  });

  it.each<[string, RawMail | Buffer]>([
    ["a PBX on our own domain with the recording attached (551)", sample('551-pbx-voicemail-ja-own-domain-wav.eml')],
    ['a voicemail box (not a person) with both shapes', { from: 'PBX <voicemail@pbx.tanaka-office.example>', subject: '【留守番電話】新しいメッセージがあります（03-1234-5678）', body: '留守番電話に新しいメッセージがあります。\n\n発信者番号：03-1234-5678\n録音時間：0:35' }],
    ["a person's address with the fax attached as TIFF", { from: '田中 <tanaka@kensetsu-tanaka.co.jp>', subject: 'FAX受信のお知らせ', body: 'FAXを受信しました。\n送信元FAX番号：0312345678', attachment: ['image/tiff', 'fax0001.tif'] }],
  ])('guard, still parked: %s', async (_what, mail) => {
    expect(await decisionOf(mail)).toMatch(/^park voicemail\/fax notice/);
  });

  it('guard: a Microsoft 365 group delivering a customer (572) is still parked', async () => {
    expect(await decisionOf(sample('572-m365-group-delivery.eml'))).toMatch(/^park .*(?:our own|group)/);
  });
});

describe('a Thai คุณ ("you") clause and Vietnamese trouble beside away words are answered (review 41c findings 4, 5)', () => {
  const customer = (body: string): RawMail => ({ from: 'Khach <khach@example.vn>', subject: 'Re: Đơn hàng 4512 / คำสั่งซื้อ 4512', body, reply: true });
  it.each<[string, string]>([
    ['th d6: on leave; you (คุณ) sent the wrong colour', 'ผมลาพักร้อน คุณส่งสินค้าผิดสี'],
    ['th: on leave; you (คุณ) forgot the receipt', 'ผมลาพักร้อน คุณลืมส่งใบเสร็จ'],
    ['th d7: on leave until the 10th; you (คุณ) refund me', 'ดิฉันลาพักร้อนถึงวันที่ 10 คุณคืนเงินให้ดิฉันด้วย'],
    ['vi d1: on a trip; the goods arrived broken (vỡ)', 'Tôi đang đi công tác, hàng giao đến bị vỡ hai cái.'],
    ['vi d5: on leave; deliver (hãy) to my home', 'Tôi đang nghỉ phép, hãy giao hàng đến địa chỉ nhà tôi: 12 Lê Lợi, Quận 1.'],
    ['vi: on leave; the printer arrived broken (hỏng)', 'Tôi đang nghỉ phép, máy in giao đến đã hỏng.'],
    ['vi: on a trip; order 4512 is two boxes short (thiếu)', 'Tôi đang đi công tác, đơn hàng 4512 thiếu hai hộp.'],
    ['vi: on leave; the invoice is wrong (sai)', 'Tôi sẽ nghỉ phép từ ngày mai, hóa đơn tháng 11 ghi sai mã số thuế.'],
    ['vi: on a trip; our accountant did not receive (không nhận) the invoice', 'Tôi đang đi công tác, kế toán của tôi không nhận được hóa đơn.'],
    ['vi: on leave; not yet received (chưa nhận) the goods', 'Tôi đang nghỉ phép nhưng công ty tôi chưa nhận hàng.'],
    ['vi, no listed word: on leave; order 4512 came in blue instead of red', 'Tôi đang nghỉ phép, đơn hàng 4512 giao nhầm màu xanh thay vì màu đỏ.'],
    // Bug review 41d: ติดต่อคุณ… outside the urgent phrase is the writer's "contacting you about …".
    ['th e3: on leave until the 10th; contacting you about the refund', 'ดิฉันลาพักร้อนถึงวันที่ 10 ติดต่อคุณเรื่องเงินคืน'],
    ['th e2: on leave; contacting you: you sent the wrong goods', 'ผมลาพักร้อน ติดต่อคุณส่งของผิด'],
    // So a contact named outside the urgent phrase cannot be told from the writer's words: such a notice is answered,
    // the safe side (the automatic-reply limits bound a loop).
    ['th: on leave until the 10th, contact Khun Somchai (no urgent phrase)', 'ผมลาพักร้อนถึงวันที่ 10 ติดต่อคุณสมชาย somchai@thaicorp.co.th\n\nขอบคุณครับ'],
  ])('%s', async (_what, body) => {
    expect(await decisionOf(customer(body))).toBe('answer');
  });

  it.each<[string, RawMail]>([
    ['th: away, for urgent matters contact Khun Wipa', { from: 'Wipa <wipa@thaicorp.co.th>', subject: 'Re: ส่งออก CSV', body: 'ขณะนี้ดิฉันลาพักร้อนจนถึงวันที่ 5 ธันวาคม หากมีเรื่องด่วนกรุณาติดต่อคุณวิภา 02-123-4567 ค่ะ', reply: true }],
    ['vi: on leave, for urgent matters contact chị Lan by phone', { from: 'Minh <minh@congty.vn>', subject: 'Re: Xuất CSV', body: 'Xin chào,\n\nTôi đang nghỉ phép đến hết ngày 5/12. Trường hợp khẩn cấp vui lòng liên hệ chị Lan qua số 0902 345 678.\n\nTrân trọng,\nMinh', reply: true }],
    ['vi: on a trip from the 1st to the 5th, contact anh Nguyễn Văn Nam', { from: 'Minh <minh@congty.vn>', subject: 'Re: Xuất CSV', body: 'Tôi đang đi công tác từ ngày 1 đến ngày 5 tháng 12, liên hệ anh Nguyễn Văn Nam (nam@congty.vn).\n\nMinh', reply: true }],
    ['vi: thanks, on leave, will answer on return', { from: 'Minh <minh@congty.vn>', subject: 'Re: Xuất CSV', body: 'Cảm ơn, tôi đang nghỉ phép đến hết ngày 5/12 và sẽ trả lời khi quay lại.', reply: true }],
    ['en: out of the office, contact a Vietnamese colleague', { from: 'Minh <minh@congty.vn>', subject: 'Re: CSV export', body: 'I am out of the office until 5 December. In my absence please contact Trần Thị Lan.', reply: true }],
  ])('guard, still ignored: %s', async (_what, mail) => {
    expect(await decisionOf(mail)).toMatch(/^ignore auto-reply/);
  });
});
