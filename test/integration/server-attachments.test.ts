/**
 * `GET /tickets/:id/attachments/:n` over real HTTP against a real redis-server: mail is ingested as the poller does
 * (`ingestMessage`, so the ticket lists its attachments as ingest does), and each listed attachment comes back byte
 * for byte from the stored raw mail, as a download that nothing can render in the dashboard's origin. Hostile file
 * names come out safe, an unknown ticket or number or a dropped raw mail is a 404 that says why, a raw mail that no
 * longer matches the ticket's list is refused rather than answered with another file, and the route needs the login.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ingestMessage } from '../../src/mail/ingest.js';
import { deleteRaw, rawKey } from '../../src/mail/raw-store.js';
import { TEST_DASHBOARD_LOGIN, useDashboardHarness, type TestDashboard } from '../support/dashboard.js';
import { MAIL_FROM } from '../support/pipeline.js';

const harness = useDashboardHarness();

function basic(user = TEST_DASHBOARD_LOGIN.user, password = TEST_DASHBOARD_LOGIN.password): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** One GET; `auth: false` sends no credentials. */
function get(d: TestDashboard, pathname: string, auth: string | false = basic()): Promise<Response> {
  return fetch(`${d.url}${pathname}`, { headers: auth ? { authorization: auth } : {}, redirect: 'manual' });
}

/** One MIME part: its header lines, then its content in base64. */
interface MimePart {
  headers: string[];
  content: Buffer;
}

function leaf(part: MimePart): string {
  const b64 = part.content.toString('base64').replace(/.{76}/g, '$&\r\n');
  return [...part.headers, 'Content-Transfer-Encoding: base64', '', b64].join('\r\n');
}

function multipart(type: string, children: string[]): string {
  const boundary = `b-${randomUUID()}`;
  return [`Content-Type: ${type}; boundary="${boundary}"`, '', ...children.flatMap((c) => [`--${boundary}`, c]), `--${boundary}--`, ''].join('\r\n');
}

const textPart = (text: string): string => leaf({ headers: ['Content-Type: text/plain; charset=utf-8'], content: Buffer.from(text, 'utf8') });

/** An attachment part: `params` are written as given after the type and the disposition (hostile names need raw control). */
function file(type: string, params: string, content: Buffer, disposition = 'attachment'): string {
  return leaf({ headers: [`Content-Type: ${type}${params ? `; ${params}` : ''}`, `Content-Disposition: ${disposition}${params ? `; ${params.replace(/\bname/g, 'filename')}` : ''}`], content });
}

function mail(body: string, subject = 'attachments'): Buffer {
  const head = [`From: Yamada <yamada-${randomUUID().slice(0, 8)}@customer.example>`, `To: ${MAIL_FROM}`, `Subject: ${subject}`, `Date: ${new Date().toUTCString()}`, `Message-ID: <att-${randomUUID()}@customer.example>`, 'MIME-Version: 1.0'];
  return Buffer.from(`${head.join('\r\n')}\r\n${body}`, 'utf8');
}

/** The ticket id of `raw` as the poller ingests it. */
async function ingest(d: TestDashboard, raw: Buffer): Promise<string> {
  const result = await ingestMessage(raw, { redis: harness.redis(), store: d.store, ticketsQueue: d.queues.tickets, prefix: d.prefix, config: d.config });
  return result.ticketId;
}

const everyByte = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), everyByte, randomBytes(2048)]);
const HTML_PAGE = Buffer.from('<!doctype html><html><body><script>document.title="owned"</script><img src=x onerror=alert(1)></body></html>', 'utf8');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(512)]);

/** The directives of a Content-Security-Policy, each as its words. */
function directives(csp: string | null): string[][] {
  return (csp ?? '').split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]);
}

function expectSafeDownload(res: Response): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('cache-control')).toBe('no-store');
  // A bare `sandbox`: no allow-scripts, allow-same-origin or any other exception.
  expect(directives(res.headers.get('content-security-policy'))).toContainEqual(['sandbox']);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[\x20-\x7e]+"(?:; filename\*=UTF-8''[A-Za-z0-9!#$&+\-.^_`|~%]+)?$/);
}

describe('GET /tickets/:id/attachments/:n', () => {
  it('serves each attachment the ticket lists, in its order, byte for byte, as a download that cannot render', async () => {
    const d = await harness.start();
    // An inline image of an HTML body, a PDF, an HTML page declared text/html, a forwarded mail and an unnamed part:
    // the numbers are the ticket's, whatever the nesting.
    const forwarded = Buffer.from('From: a@example.com\r\nSubject: fwd\r\n\r\nforwarded body\r\n', 'utf8');
    const raw = mail(
      multipart('multipart/mixed', [
        multipart('multipart/related', [
          leaf({ headers: ['Content-Type: text/html; charset=utf-8'], content: Buffer.from('<p>詳細は添付ファイルをご確認ください<img src="cid:shot@x"></p>') }),
          leaf({ headers: ['Content-Type: image/png; name="inline.png"', 'Content-ID: <shot@x>', 'Content-Disposition: inline; filename="inline.png"'], content: PNG }),
        ]),
        file('application/pdf', 'name="見積書.pdf"', PDF),
        file('text/html', 'name="page.html"', HTML_PAGE),
        leaf({ headers: ['Content-Type: message/rfc822', 'Content-Disposition: attachment'], content: forwarded }),
        leaf({ headers: ['Content-Type: application/octet-stream', 'Content-Disposition: attachment'], content: everyByte }),
      ]),
    );
    const id = await ingest(d, raw);
    const ticket = await d.store.require(id);
    expect(ticket.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['inline.png', 'image/png'],
      ['見積書.pdf', 'application/pdf'],
      ['page.html', 'text/html'],
      [undefined, 'message/rfc822'],
      [undefined, 'application/octet-stream'],
    ]);
    const expected = [PNG, PDF, HTML_PAGE, undefined, everyByte];
    for (const [i, bytes] of expected.entries()) {
      const res = await get(d, `/tickets/${id}/attachments/${i + 1}`);
      expectSafeDownload(res);
      const body = Buffer.from(await res.arrayBuffer());
      if (bytes) expect(body.equals(bytes), `attachment ${i + 1}`).toBe(true);
      else expect(body.toString('utf8')).toContain('forwarded body');
      expect(body.length).toBe(ticket.attachments[i]!.size);
    }
    const pdf = await get(d, `/tickets/${id}/attachments/2`);
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="_.pdf"; filename*=UTF-8''${encodeURIComponent('見積書')}.pdf`);
    const unnamed = await get(d, `/tickets/${id}/attachments/5`);
    expect(unnamed.headers.get('content-disposition')).toBe('attachment; filename="attachment-5"');
  });

  it('serves an HTML attachment declared text/html as octet-stream under a sandbox, never as a page of the dashboard', async () => {
    const d = await harness.start();
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('see the page'), file('text/html; charset=utf-8', 'name="invoice.html"', HTML_PAGE)]), 'html'));
    const res = await get(d, `/tickets/${id}/attachments/1`);
    expectSafeDownload(res);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="invoice.html"');
    expect(Buffer.from(await res.arrayBuffer()).equals(HTML_PAGE)).toBe(true);
  });

  // Each name as the sender's client would put it in the part's header; what ingest keeps of it is what the page shows.
  it.each([
    { what: 'a path that climbs out', params: 'name="../../etc/passwd"', served: 'attachment; filename="passwd"' },
    { what: 'a Windows path', params: 'name="..\\\\..\\\\Windows\\\\win.ini"', served: 'attachment; filename="win.ini"' },
    { what: 'CR/LF that would start a header of its own', params: "name*=UTF-8''evil%0D%0ASet-Cookie%3A%20a%3Db.txt", served: 'attachment; filename="evil Set-Cookie_ a=b.txt"' },
    { what: 'quotes', params: "name*=UTF-8''say%22hi%22.txt", served: 'attachment; filename="say_hi_.txt"' },
    { what: 'a right-to-left override that shows .exe as .pdf', params: "name*=UTF-8''invoice%E2%80%AEfdp.exe", served: 'attachment; filename="invoicefdp.exe"' },
    { what: 'a hidden file', params: 'name=".bashrc"', served: 'attachment; filename="bashrc"' },
    { what: 'a Windows device name', params: 'name="CON.txt"', served: 'attachment; filename="_CON.txt"' },
  ])('gives $what a safe name', async ({ params, served }) => {
    const d = await harness.start();
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('attached'), file('application/octet-stream', params, PDF)])));
    const res = await get(d, `/tickets/${id}/attachments/1`);
    expectSafeDownload(res);
    expect(res.headers.get('content-disposition')).toBe(served);
    expect(res.headers.get('set-cookie') ?? '').not.toContain('a=b');
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);
  });

  it('cuts a very long name to a length file systems take, keeping its extension', async () => {
    const d = await harness.start();
    const long = `${'報告'.repeat(200)}.xlsx`;
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('attached'), file('application/octet-stream', `name*=UTF-8''${encodeURIComponent(long)}`, PDF)])));
    const res = await get(d, `/tickets/${id}/attachments/1`);
    expectSafeDownload(res);
    const encoded = /filename\*=UTF-8''(.+)$/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? '';
    const name = decodeURIComponent(encoded);
    expect(name.endsWith('.xlsx')).toBe(true);
    expect(name.startsWith('報告報告')).toBe(true);
    expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
  });

  it('reads the listed attachments of a mail over the MIME parser part limit, as ingest read its first parts', async () => {
    const d = await harness.start();
    const parts = Array.from({ length: 1_100 }, (_, i) => file('application/octet-stream', `name="part-${i + 1}.bin"`, Buffer.from(`content of part ${i + 1}`)));
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('many parts'), ...parts])));
    const listed = (await d.store.require(id)).attachments;
    expect(listed.length).toBeGreaterThan(100);
    expect(listed.length).toBeLessThan(1_100);
    for (const n of [1, listed.length]) {
      const res = await get(d, `/tickets/${id}/attachments/${n}`);
      if (res.status !== 200) throw new Error(await res.text());
      expectSafeDownload(res);
      expect(await res.text()).toBe(`content of part ${n}`);
    }
    expect((await get(d, `/tickets/${id}/attachments/${listed.length + 1}`)).status).toBe(404);
  });

  it('answers 404 with the reason for an unknown ticket or number, and for mail whose raw copy is gone', async () => {
    const d = await harness.start();
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('attached'), file('application/pdf', 'name="a.pdf"', PDF)])));
    const cases = [
      { path: `/tickets/${'0'.repeat(64)}/attachments/1`, says: 'No ticket' },
      { path: '/tickets/not-a-ticket/attachments/1', says: 'No ticket' },
      { path: `/tickets/${id}/attachments/0`, says: 'has 1 attachment' },
      { path: `/tickets/${id}/attachments/2`, says: 'has 1 attachment' },
      { path: `/tickets/${id}/attachments/one`, says: 'has 1 attachment' },
      { path: `/tickets/${id}/attachments/1.0`, says: 'has 1 attachment' },
    ];
    for (const c of cases) {
      const res = await get(d, c.path);
      expect(res.status, c.path).toBe(404);
      expect(res.headers.get('content-disposition'), c.path).toBeNull();
      expect(await res.text(), c.path).toContain(c.says);
    }
    await deleteRaw(harness.redis(), d.prefix, id);
    const gone = await get(d, `/tickets/${id}/attachments/1`);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('no longer stored');
  });

  it('says of a mail whose raw copy a budget refused that the copy was not kept and the mail is still in the mailbox', async () => {
    const d = await harness.start();
    const raw = mail(multipart('multipart/mixed', [textPart('attached'), file('application/pdf', 'name="big.pdf"', Buffer.concat([PDF, randomBytes(1024 * 1024)]))]));
    const config = { ...d.config, RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: 1024 * 1024 };
    const { ticketId } = await ingestMessage(raw, { redis: harness.redis(), store: d.store, ticketsQueue: d.queues.tickets, prefix: d.prefix, config });
    expect((await d.store.require(ticketId)).heldReason).toMatch(/^raw mail not kept:/);
    const res = await get(d, `/tickets/${ticketId}/attachments/1`);
    expect(res.status).toBe(404);
    const text = await res.text();
    expect(text).not.toContain('not downloaded');
    expect(text).toContain('The raw copy of this mail was not kept');
    expect(text).toContain('still in the mailbox');
  });

  it('refuses, rather than serve another file, when the stored mail no longer matches what the ticket lists', async () => {
    const d = await harness.start();
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('attached'), file('application/pdf', 'name="a.pdf"', PDF)])));
    await harness.redis().set(rawKey(d.prefix, id), mail(multipart('multipart/mixed', [textPart('other'), file('application/zip', 'name="other.zip"', everyByte)])));
    const res = await get(d, `/tickets/${id}/attachments/1`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-disposition')).toBeNull();
    expect(await res.text()).toContain('does not match');
  });

  it('needs the login, and a download changes nothing stored', async () => {
    const d = await harness.start();
    const id = await ingest(d, mail(multipart('multipart/mixed', [textPart('attached'), file('application/pdf', 'name="a.pdf"', PDF)])));
    for (const auth of [false, basic(TEST_DASHBOARD_LOGIN.user, 'wrong password')] as const) {
      const res = await get(d, `/tickets/${id}/attachments/1`, auth);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-disposition')).toBeNull();
      expect(Buffer.from(await res.arrayBuffer()).includes(PDF.subarray(0, 64))).toBe(false);
    }
    const redis = harness.redis();
    const snapshot = async () => {
      const keys = (await redis.keys(`${d.prefix}:*`)).sort();
      return Promise.all(keys.map(async (k) => [k, await redis.dump(k)]));
    };
    const before = await snapshot();
    expectSafeDownload(await get(d, `/tickets/${id}/attachments/1`));
    expect(await snapshot()).toEqual(before);
  });

  it('links each name on the ticket page to its download, the name escaped and isolated', async () => {
    const d = await harness.start();
    const id = await ingest(
      d,
      mail(multipart('multipart/mixed', [textPart('attached'), file('application/pdf', 'name="<b>bold</b>.pdf"', PDF), file('image/png', 'name="shot.png"', PNG)])),
    );
    const page = await (await get(d, `/tickets/${id}`)).text();
    expect(page).toContain(`<bdi><a href="/tickets/${id}/attachments/1">&lt;b&gt;bold&lt;/b&gt;.pdf</a></bdi>`);
    expect(page).toContain(`<bdi><a href="/tickets/${id}/attachments/2">shot.png</a></bdi>`);
    expect(page).not.toContain('<b>bold</b>');
  });
});
