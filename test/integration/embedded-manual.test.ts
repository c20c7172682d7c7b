import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedManualSearch, MANUAL_INDEX_FILE } from '../../src/search/embedded-manual.js';
import type { ManualChunk } from '../../src/search/types.js';

const chunk = (n: number, heading: string, content: string, fileName = 'xyz-manual.md'): ManualChunk => ({
  id: `${fileName}#${n}`,
  fileName,
  heading,
  content,
});

const MANUAL: ManualChunk[] = [
  chunk(1, '第2章 アカウントとセキュリティ > パスワードのルール', 'パスワードは 12 文字以上 64 文字以下です。英大文字、英小文字、数字、記号のうち 3 種類以上を含めてください。'),
  chunk(2, '第2章 アカウントとセキュリティ > アカウントロックと解除', 'パスワードを 5 回連続で間違えると、そのアカウントは 30 分間ロックされます。管理者は「ロック解除」で即時に解除できます。'),
  chunk(3, '第2章 アカウントとセキュリティ > 二段階認証', '二段階認証を有効にすると、ログインの際にパスワードに加えて 6 桁の確認コードの入力が求められます。'),
  chunk(4, '第2章 アカウントとセキュリティ > 二段階認証 > 携帯電話を機種変更・紛失したときの再登録', '機種変更で旧端末がまだ使える場合は「認証方法を変更」を開き、新しい端末で QR コードを読み取り直します。'),
  chunk(5, '第4章 通知とレポート > 通知設定', 'お知らせの受け取り方は「個人設定」→「通知」で設定します。メール、ベルアイコン、プッシュ通知の 3 つの経路があります。'),
  chunk(6, '第3章 データ管理 > バックアップ監視と失敗時の通知 > バックアップが失敗しても通知が届かないとき', '通知レベルが「重大のみ」だと通常の失敗は通知されません。迷惑メールフォルダーも確認してください。'),
  chunk(7, '第6章 運用と保守 > エラーコード一覧 > E-1001 ユーザー ID またはパスワードが違います', '原因: 入力したメールアドレスまたはパスワードが登録内容と一致しません。'),
  chunk(8, '第6章 運用と保守 > エラーコード一覧 > E-4010 API キーが無効です', '原因: API キーが間違っている、有効期限が切れている、または無効化されています。'),
  chunk(9, '第5章 API 連携 > API のレート制限', 'API キー 1 つにつき 1 分あたり 600 リクエストまでです。上限を超えると HTTP ステータス 429 が返ります。'),
  chunk(10, '', 'XYZ システム 利用者マニュアル 第 5.4 版'),
];

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'manual-it-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function built(chunks = MANUAL): Promise<EmbeddedManualSearch> {
  const s = new EmbeddedManualSearch({ dir });
  await s.replaceAll(chunks);
  return s;
}

describe('EmbeddedManualSearch: Japanese queries', () => {
  it.each([
    ['two-character term inside a compound', '認証', '二段階認証'],
    ['two-character term 通知', '通知', '通知'],
    ['error code', 'E-1001', 'E-1001'],
    ['error code, lower case', 'e-4010', 'E-4010'],
    ['error code, full width', 'Ｅ－１００１', 'E-1001'],
    ['HTTP status in a sentence', 'APIで429が返ってきます', 'レート制限'],
  ])('keyword, first hit — %s: %s', async (_name, query, expectHeading) => {
    const hits = await (await built()).search(query);
    expect(hits.length).toBeGreaterThan(0);
    expect(hits[0]!.heading).toContain(expectHeading);
  });

  // The agent sees the top three, so a natural sentence must bring the right section among them.
  it.each([
    ['about a phone change', 'スマホを機種変更したら二段階認証のコードが使えなくなりました', '機種変更'],
    ['about a lockout', 'パスワードを何回も間違えてログインできなくなりました', 'アカウントロック'],
    ['about missing notifications', 'バックアップが失敗したのに通知が届きません', '通知が届かない'],
    ['about the rate limit', '1分間に何回までAPIを呼び出せますか', 'レート制限'],
  ])('natural sentence without spaces, top three — %s: %s', async (_name, query, expectHeading) => {
    const hits = await (await built()).search(query);
    expect(hits.some((h) => h.heading?.includes(expectHeading))).toBe(true);
  });

  it('returns SearchHit with the heading line prefixed to the content', async () => {
    const s = await built();
    const [hit] = await s.search('二段階認証');
    expect(hit).toMatchObject({ id: 'xyz-manual.md#3', fileName: 'xyz-manual.md', heading: MANUAL[2]!.heading });
    expect(hit!.content).toBe(`【${MANUAL[2]!.heading}】\n${MANUAL[2]!.content}`);
    expect(hit!.score).toBeGreaterThan(0);
    const [noHeading] = await s.search('利用者マニュアル 5.4');
    expect(noHeading!.content).toBe(MANUAL[9]!.content);
  });

  it('defaults k to MAX_SEARCH_RESULTS and honours k; blank queries give nothing', async () => {
    const s = await built();
    expect(await s.search('パスワード')).toHaveLength(3);
    expect(await s.search('パスワード', 1)).toHaveLength(1);
    expect((await s.search('パスワード', 10)).length).toBeGreaterThan(3);
    expect(await s.search('')).toEqual([]);
    expect(await s.search('  　\n')).toEqual([]);
    expect(await s.search('、。')).toEqual([]);
  });

  it('ranks higher-scored hits first', async () => {
    const hits = await (await built()).search('パスワード ロック', 10);
    for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
  });
});

describe('EmbeddedManualSearch: storage', () => {
  it('without an index: count 0, ping fine, searches empty', async () => {
    const s = new EmbeddedManualSearch({ dir: path.join(dir, 'never-built') });
    expect(await s.count()).toBe(0);
    await s.ping();
    expect(await s.search('認証')).toEqual([]);
  });

  it('ping throws when the index file is unreadable', async () => {
    await writeFile(path.join(dir, MANUAL_INDEX_FILE), 'not an index');
    await expect(new EmbeddedManualSearch({ dir }).ping()).rejects.toThrow();
  });

  it('replaceAll twice with the same input writes byte-identical files and leaves no temp files', async () => {
    const s = await built();
    const first = await readFile(path.join(dir, MANUAL_INDEX_FILE));
    await s.replaceAll(MANUAL);
    const second = await readFile(path.join(dir, MANUAL_INDEX_FILE));
    expect(second.equals(first)).toBe(true);
    const other = path.join(dir, 'other');
    await new EmbeddedManualSearch({ dir: other }).replaceAll(MANUAL.map((c) => ({ ...c })));
    expect((await readFile(path.join(other, MANUAL_INDEX_FILE))).equals(first)).toBe(true);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(await s.count()).toBe(MANUAL.length);
  });

  it('replaceAll with no chunks empties the index', async () => {
    const s = await built();
    await s.replaceAll([]);
    expect(await s.count()).toBe(0);
    expect(await s.search('認証')).toEqual([]);
  });

  it('reports progress', async () => {
    const seen: number[] = [];
    await new EmbeddedManualSearch({ dir }).replaceAll(bigSet(600, 'p.md'), ({ done }) => void seen.push(done));
    expect(seen.at(-1)).toBe(600);
    expect(seen.length).toBeGreaterThan(1);
  });
});

function bigSet(n: number, fileName: string): ManualChunk[] {
  const body = '二段階認証を有効にすると、ログインの際にパスワードに加えて確認コードの入力が求められます。通知設定やバックアップの監視も確認してください。';
  return Array.from({ length: n }, (_, i) => chunk(i + 1, `セクション ${i % 97} > 項目 ${i}`, `${body}${'機能説明'.repeat(i % 13)} 番号 ${i}`, fileName));
}

describe('EmbeddedManualSearch: atomic reindex', () => {
  it('searches during a large rebuild answer from the old or the new index, never empty or failing', async () => {
    const writer = await built();
    const reader = new EmbeddedManualSearch({ dir });
    expect((await reader.search('認証'))[0]!.fileName).toBe('xyz-manual.md');

    const rebuild = writer.replaceAll(bigSet(6000, 'new.md'));
    let done = false;
    void rebuild.finally(() => (done = true));
    const seen = { old: 0, new: 0 };
    let searches = 0;
    while (!done) {
      for (const s of [writer, reader]) {
        const hits = await s.search('二段階認証');
        searches++;
        expect(hits.length).toBeGreaterThan(0);
        const files = new Set(hits.map((h) => h.fileName));
        expect(files.size).toBe(1);
        if (files.has('new.md')) seen.new++;
        else {
          expect(files.has('xyz-manual.md')).toBe(true);
          seen.old++;
        }
      }
    }
    await rebuild;
    expect(searches).toBeGreaterThan(2);
    expect(seen.old).toBeGreaterThan(0);
    // Both the instance that rebuilt and an independent instance on the same directory now see the new index.
    for (const s of [writer, reader, new EmbeddedManualSearch({ dir })]) {
      expect((await s.search('二段階認証'))[0]!.fileName).toBe('new.md');
      expect(await s.count()).toBe(6000);
    }
  });

  it('an instance that loaded the old index picks up a reindex made by another instance', async () => {
    await built();
    const reader = new EmbeddedManualSearch({ dir });
    expect(await reader.count()).toBe(MANUAL.length);
    const replaced = MANUAL.map((c) => ({ ...c, content: `${c.content} 改訂版` }));
    await new EmbeddedManualSearch({ dir }).replaceAll(replaced);
    expect(await reader.count()).toBe(MANUAL.length);
    expect((await reader.search('改訂版', 1))[0]!.content).toContain('改訂版');
  });

  it('a reindex written by another process is seen by a running instance on its next search', async () => {
    const live = await built();
    expect((await live.search('子プロセス'))).toEqual([]);
    const moduleUrl = pathToFileURL(path.resolve('src/search/embedded-manual.ts')).href;
    const loggerUrl = pathToFileURL(path.resolve('src/logger.ts')).href;
    const script = `
      const { EmbeddedManualSearch } = await import(${JSON.stringify(moduleUrl)});
      (await import(${JSON.stringify(loggerUrl)})).configureLogging('silent');
      await new EmbeddedManualSearch({ dir: ${JSON.stringify(dir)} }).replaceAll([
        { id: 'child.md#1', fileName: 'child.md', heading: '子プロセス', content: '別のプロセスが書いた索引です。' },
      ]);`;
    await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
    const [hit] = await live.search('子プロセス');
    expect(hit!.fileName).toBe('child.md');
    expect(await live.count()).toBe(1);
  });
});
