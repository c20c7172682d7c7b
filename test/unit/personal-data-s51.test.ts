/**
 * What session 50 left of the personal-data scrub's names before a title or an honorific: a surname that ends in the
 * first letter of a longer title lost that letter to it (山本部長様 became [氏名]本部長様), a title made of several
 * words kept only its last word (山田顧問弁護士様 → [氏名]弁護士様, 佐藤代表取締役社長様 → 佐[氏名]社長様), a company
 * before 様 became a name (みずほ銀行様 → みずほ[氏名]様, 三井物産様 → [氏名]様), and a service or a job before 様 or さん
 * too (運転代行様 → [氏名]代行様, 配達員さん → [氏名]さん). Both directions are pinned: the customer's name still goes.
 */
import { describe, expect, it } from 'vitest';
import { scrubPersonalData } from '../../src/knowledge/personal-data.js';

/** [input, expected]: the person goes; the title, the company and the rest of the sentence stay. */
const REMOVED: [string, string][] = [
  // A surname ending in 本 before 部長 (山本, 松本, 森本): the title is 部長, not 本部長.
  ['日本生命　山本部長様', '日本生命　[氏名]部長様'],
  ['日本生命 山本部長様にご確認いただきました。', '日本生命 [氏名]部長様にご確認いただきました。'],
  ['日本生命山本部長様', '日本生命[氏名]部長様'],
  ['山本部長様にご確認いただきました。', '[氏名]部長様にご確認いただきました。'],
  ['松本部長様', '[氏名]部長様'],
  ['橋本 部長様', '[氏名] 部長様'],
  ['株式会社サンプル商事森本部長様', '株式会社サンプル商事[氏名]部長様'],
  // Not every kanji before 本部長 opens such a surname: the head of the head office keeps the title whole.
  ['山田本部長様', '[氏名]本部長様'],
  ['林本部長様', '[氏名]本部長様'],
  // A title of several words stays whole after the name.
  ['山田顧問弁護士様', '[氏名]顧問弁護士様'],
  ['山田 顧問弁護士様にご相談しました。', '[氏名] 顧問弁護士様にご相談しました。'],
  ['佐藤代表取締役社長様', '[氏名]代表取締役社長様'],
  ['田中営業部長様', '[氏名]営業部長様'],
  ['山田部長代行様', '[氏名]部長代行様'],
  ['山田支店長代行様', '[氏名]支店長代行様'],
  ['山田太郎代表取締役社長様', '[氏名]代表取締役社長様'],
  ['株式会社サンプル商事佐藤代表取締役社長様', '株式会社サンプル商事[氏名]代表取締役社長様'],
  ['石川顧問弁護士様', '[氏名]顧問弁護士様'],
  // 代行 after a name is still a stand-in's title; a job before a name written apart leaves the name to go.
  ['山田代行様', '[氏名]代行様'],
  ['配達員の山田さん', '配達員の[氏名]さん'],
  ['家事代行の山田様', '家事代行の[氏名]様'],
  ['警備員 佐藤さん', '警備員 [氏名]さん'],
  // A title that ends in a job's ending (役員) is a title: the name before it goes.
  ['山田執行役員様', '[氏名]執行役員様'],
  // One- to three-kanji surnames before a title, with or without a space of either width.
  ['李部長様', '[氏名]部長様'],
  ['林 店長様', '[氏名] 店長様'],
  ['鈴木店長様にお渡ししました。', '[氏名]店長様にお渡ししました。'],
  ['山田　主任様', '[氏名]　主任様'],
  ['高橋主任さん', '[氏名]主任さん'],
  ['長谷川　部長様', '[氏名]　部長様'],
  ['長谷川部長様', '[氏名]部長様'],
  // A company written apart before the name: the company stays, the name goes.
  ['みずほ銀行 山田様', 'みずほ銀行 [氏名]様'],
  ['みずほ銀行　山田部長様', 'みずほ銀行　[氏名]部長様'],
  ['第一生命　佐藤様にお送りしました。', '第一生命　[氏名]様にお送りしました。'],
  ['三井物産 田中様', '三井物産 [氏名]様'],
  ['城南信金 山田様', '城南信金 [氏名]様'],
  ['大和証券　佐藤課長様', '大和証券　[氏名]課長様'],
];

/** Text that names no one: a company, a service or a job before the honorific, or a title alone. */
const UNCHANGED: string[] = [
  // Companies ending in a company word, after kana, Latin letters or kanji.
  'みずほ銀行様',
  'みずほ銀行様にご連絡しました。',
  '三井住友銀行様',
  '三菱UFJ銀行様',
  '日本生命様',
  '第一生命様',
  '野村証券様',
  '野村證券様',
  '城南信金様',
  '三井物産様',
  '伊藤忠商事様',
  'ヤマト運輸様',
  '東京ガス様',
  // Services and jobs addressed with an honorific.
  '運転代行様',
  '運転代行業者様',
  '家事代行さん',
  '決済代行様',
  '代行様',
  '配達員さん',
  '配達員様',
  '郵便配達員さん',
  '清掃員さん',
  '警備員さん',
  '係員様',
  '運転手様',
  'タクシー運転手さん',
  '運転士さん',
  'ドライバーさん',
  '配送業者様',
  '修理業者さん',
  '担当者様',
  // Titles alone, of one word or several.
  '顧問弁護士様',
  '代表取締役社長様',
  '営業部長様',
  '店長様',
  '主任様',
  '部長代行様',
  '営業部長代行様',
  '大阪支店長代行様',
  // A place before a head's title names a branch or a region.
  '大阪本部長様',
  '関西本部長様',
  '大阪営業部長様',
];

describe('personal-data scrub: what session 50 left', () => {
  it.each(REMOVED)('%s', (input, expected) => {
    expect(scrubPersonalData(input).text).toBe(expected);
  });

  it.each(UNCHANGED)('keeps %s', (input) => {
    expect(scrubPersonalData(input).text).toBe(input);
  });
});
