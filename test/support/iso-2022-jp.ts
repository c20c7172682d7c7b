/** Test mails in ISO-2022-JP, as old Japanese mail clients send them. */

let jisTable: Map<string, number[]> | undefined;

/**
 * Encodes text as ISO-2022-JP (ASCII and JIS X 0208). The table is the inverse of the platform's own
 * ISO-2022-JP decoder, so what is encoded here is exactly what a decoder reads back.
 */
export function encodeIso2022Jp(text: string): Buffer {
  if (!jisTable) {
    jisTable = new Map();
    const decoder = new TextDecoder('iso-2022-jp');
    for (let a = 0x21; a <= 0x7e; a++) {
      for (let b = 0x21; b <= 0x7e; b++) {
        const ch = decoder.decode(Uint8Array.from([0x1b, 0x24, 0x42, a, b, 0x1b, 0x28, 0x42]));
        if (ch.length === 1 && ch !== '\ufffd' && !jisTable.has(ch)) jisTable.set(ch, [a, b]);
      }
    }
  }
  const out: number[] = [];
  let jis = false;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (code < 0x80) {
      if (jis) out.push(0x1b, 0x28, 0x42);
      jis = false;
      out.push(code);
      continue;
    }
    const bytes = jisTable.get(ch);
    if (!bytes) throw new Error(`encodeIso2022Jp: ${JSON.stringify(ch)} is not in JIS X 0208`);
    if (!jis) out.push(0x1b, 0x24, 0x42);
    jis = true;
    out.push(...bytes);
  }
  if (jis) out.push(0x1b, 0x28, 0x42);
  return Buffer.from(out);
}
