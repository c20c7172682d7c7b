import OpenAI from 'openai';
import { createKeepAliveFetch } from './src/openai-fetch.js';
const variant = process.argv[2];
const base = createKeepAliveFetch();
class BufferedResponse extends Response {
  #bytes: Buffer;
  constructor(bytes: Buffer, init: ResponseInit) { super(null, init); this.#bytes = bytes; }
  override async json() { return JSON.parse(this.#bytes.toString('utf8')); }
  override async text() { return this.#bytes.toString('utf8'); }
}
const lean = (async (u: any, i: any) => { const r = await base(u, i); const b = Buffer.from(await r.arrayBuffer()); return r; }) as typeof fetch;
const client = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:18999/v1', fetch: variant === 'base' ? base : variant === 'global' ? undefined : base });
const messages = [{ role: 'system' as const, content: 'あ'.repeat(2000) }, { role: 'user' as const, content: 'い'.repeat(300) }];
const call = () => client.chat.completions.create({ model: 'm', messages, temperature: 0 });
const round = async (n: number) => { for (let i = 0; i < n; i += 16) await Promise.all(Array.from({ length: 16 }, call)); };
await round(400);
const c0 = process.cpuUsage();
await round(3200);
const c = process.cpuUsage(c0);
console.log(variant, ((c.user + c.system) / 1000 / 3200).toFixed(3), 'ms cpu/call');
process.exit(0);
