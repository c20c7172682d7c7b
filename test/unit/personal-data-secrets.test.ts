import { describe, expect, it } from 'vitest';
import { scrubPersonalData, type PersonalDataKind } from '../../src/knowledge/personal-data.js';

// Secrets a security review found the rules let through (tmp/sec/scrub-probe.mts): the token of a password-reset,
// magic or invitation link and the signature of a signed link, API keys and tokens of the shapes their services give
// them, a pasted Authorization header, a private key block, and a log-in name in running text ("the admin login is
// yamada_t"). A learned answer is read by every later customer's agent run, so a secret in it is handed to strangers.
// A link keeps its scheme, host and path up to the secret: the reset page exists for everyone, only the token is one
// person's. Beside them, what an answer needs and must keep: links with short or meaningful query values, versions,
// error codes, commit hashes, and the shapes of keys described rather than given.

// [case, input, expected output, kinds replaced in order]
type Case = [string, string, string, PersonalDataKind[]];

const AMZ_SIGNATURE = 'fe5f80f77d5fa3beca038a248ff027d0445342fe2855ddc963176630326f1024';
const JWT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

const LINKS: Case[] = [
  [
    'a reset token in the query',
    'The reset link https://app.example.com/reset?token=9f8e7d6c5b4a3928 does not work.',
    'The reset link https://app.example.com/reset?token=[secret] does not work.',
    ['secret'],
  ],
  [
    'a verification code and an encoded address in the query',
    'Click https://app.example.com/verify?code=8f3a9c2e71b4d6f0&email=taro%40example.com to confirm.',
    'Click https://app.example.com/verify?code=[secret]&email=[email] to confirm.',
    ['secret', 'email'],
  ],
  ['an invitation token in the path', 'Join via https://app.example.com/invite/3b9c2e7f1a8d4c6e0b5a', 'Join via https://app.example.com/invite/[secret]', ['secret']],
  [
    'a magic-link token after two path words',
    'Sign in with https://app.example.com/login/magic/7f3e9a1c5b2d8e4f6a0c, it expires soon.',
    'Sign in with https://app.example.com/login/magic/[secret], it expires soon.',
    ['secret'],
  ],
  [
    'a reset token after an encoded user id (Django)',
    'https://shop.example.com/accounts/reset/MQ/c4k2n1-7a9f3e5b1d8c2f6a4e0b/',
    'https://shop.example.com/accounts/reset/MQ/[secret]/',
    ['secret'],
  ],
  [
    'a signed S3 link: the credential and the signature',
    `https://bucket.s3.amazonaws.com/invoice.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA2E0A8F3B244C9986%2F20260301%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20260301T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=${AMZ_SIGNATURE}`,
    'https://bucket.s3.amazonaws.com/invoice.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=[secret]&X-Amz-Date=20260301T000000Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=[secret]',
    ['secret', 'secret'],
  ],
  [
    'sig= in a download link',
    'https://cdn.example.com/file.zip?expires=1767225600&sig=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5',
    'https://cdn.example.com/file.zip?expires=1767225600&sig=[secret]',
    ['secret'],
  ],
  [
    'signature= in a download link',
    'Download: https://dl.example.com/report.csv?signature=3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b&expires=1767225600',
    'Download: https://dl.example.com/report.csv?signature=[secret]&expires=1767225600',
    ['secret'],
  ],
  [
    'an access token in the fragment',
    'It redirects to https://app.example.com/callback#access_token=ya29.a0AfH6SMBx3kPq9z&token_type=Bearer&expires_in=3599',
    'It redirects to https://app.example.com/callback#access_token=[secret]&token_type=Bearer&expires_in=3599',
    ['secret'],
  ],
  [
    'api_key= in a link',
    'GET https://api.example.com/v1/orders?api_key=4f9d2c7a1e8b3f6d0c5a9e2b returns 401.',
    'GET https://api.example.com/v1/orders?api_key=[secret] returns 401.',
    ['secret'],
  ],
  [
    'a long random key= and a short lang=',
    'https://maps.example.com/embed?key=Q2x1ZTk4N2Y2ZDVjNGIzYTI&lang=ja',
    'https://maps.example.com/embed?key=[secret]&lang=ja',
    ['secret'],
  ],
  [
    'a reset token in Japanese text',
    'パスワード再設定のリンク https://app.example.com/reset-password?token=b8c1d2e3f4a5b6c7d8e9 が開けません。',
    'パスワード再設定のリンク https://app.example.com/reset-password?token=[認証情報] が開けません。',
    ['secret'],
  ],
];

const KEYS: Case[] = [
  ['an OpenAI project key', 'API key sk-proj-AbCdEf1234567890XyZ leaked?', 'API key [secret] leaked?', ['secret']],
  ['an OpenAI key in an environment line', 'OPENAI_API_KEY=sk-4fQ9zR2mX7pL1vB8nK3tY6wE0aS5dG', 'OPENAI_API_KEY=[secret]', ['secret']],
  ['a GitHub token', 'export GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a', 'export GITHUB_TOKEN=[secret]', ['secret']],
  [
    'a GitHub fine-grained token',
    'I used github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV12345 in the CI.',
    'I used [secret] in the CI.',
    ['secret'],
  ],
  ['a Slack bot token', 'The bot token xoxb-2048-4096-Ab3dE5gH7jK9 stopped working.', 'The bot token [secret] stopped working.', ['secret']],
  [
    'an AWS key id and its secret',
    'aws_access_key_id = AKIA2E0A8F3B244C9986\naws_secret_access_key = q8Zr3Tn5Vb7Xm9Kp2Lw4Hc6Jd1Fs0Ga/Ye+Ui8Oo',
    'aws_access_key_id = [secret]\naws_secret_access_key = [secret]',
    ['secret', 'secret'],
  ],
  ['an AWS key id in a sentence', 'The key AKIA2E0A8F3B244C9986 was rotated.', 'The key [secret] was rotated.', ['secret']],
  ['a Google API key', 'Maps says the key AIzaSyD3x9Kq7Lm2Np8Rt5Vw1Yz4Bc6Df0Gh3Jk is invalid.', 'Maps says the key [secret] is invalid.', ['secret']],
  [
    'Stripe secret, publishable and restricted keys',
    'sk_live_51H8xKqL2mN3pQ4rS5tU6vW7x, pk_live_51H8xKqL2mN3pQ4rS5tU6vW7y and rk_live_51H8xKqL2mN3pQ4rS5tU6vW7z',
    '[secret], [secret] and [secret]',
    ['secret', 'secret', 'secret'],
  ],
  ['a JWT', `My session token is ${JWT}.`, 'My session token is [secret].', ['secret']],
  [
    'a Bearer token in a pasted curl command',
    'curl -H "Authorization: Bearer 8f3a9b2c4d5e6f70a1b2c3d4" https://api.example.com/v1/me',
    'curl -H "Authorization: Bearer [secret]" https://api.example.com/v1/me',
    ['secret'],
  ],
  ['a Bearer token in a sentence', 'I send Bearer a1b2c3d4e5f6g7h8i9j0 and get 401.', 'I send Bearer [secret] and get 401.', ['secret']],
  ['a Basic Authorization line', 'Authorization: Basic dGFybzpIdW50ZXIyIXh5eg==\nAccept: */*', 'Authorization: Basic [secret]\nAccept: */*', ['secret']],
  [
    'an AWS signature Authorization line',
    `Authorization: AWS4-HMAC-SHA256 Credential=AKIA2E0A8F3B244C9986/20260301/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=${AMZ_SIGNATURE}\nHost: s3.amazonaws.com`,
    'Authorization: AWS4-HMAC-SHA256 [secret]\nHost: s3.amazonaws.com',
    ['secret'],
  ],
  [
    'a private key block',
    'Here is the key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onL\n-----END RSA PRIVATE KEY-----\nIt fails.',
    'Here is the key:\n-----BEGIN RSA PRIVATE KEY-----\n[secret]\n-----END RSA PRIVATE KEY-----\nIt fails.',
    ['secret'],
  ],
  [
    'a private key block cut off before its end',
    '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB\n\nIs this the right key?',
    '-----BEGIN OPENSSH PRIVATE KEY-----\n[secret]\n\nIs this the right key?',
    ['secret'],
  ],
  ['an API key after its label', 'API key: 7d1e4b9a2c6f8e3d5b0a', 'API key: [secret]', ['secret']],
  ['a client secret in quotes', 'client_secret: "Xk9pQ2rL7mN4vB8zT1wY"', 'client_secret: "[secret]"', ['secret']],
  [
    'an API key after APIキー',
    'APIキーは 7d1e4b9a2c6f8e3d5b0a ですが、認証エラーになります。',
    'APIキーは [認証情報] ですが、認証エラーになります。',
    ['secret'],
  ],
  ['an access token after アクセストークン', 'アクセストークン：a1b2c3d4e5f6a7b8c9d0e1f2 を再発行しました。', 'アクセストークン：[認証情報] を再発行しました。', ['secret']],
];

const LOGINS: Case[] = [
  [
    'a log-in name after "login is"',
    'Our server IP is 203.0.113.45 and the admin login is yamada_t.',
    'Our server IP is 203.0.113.45 and the admin login is [number].',
    ['reference-number'],
  ],
  ['a log-in name after "logged in as"', 'I logged in as taro.yamada yesterday.', 'I logged in as [number] yesterday.', ['reference-number']],
  ['a log-in name after "sign in as"', 'Please sign in as jsmith2 and retry.', 'Please sign in as [number] and retry.', ['reference-number']],
  ['a log-in name after ログインは', '管理者のログインは yamada_t です。', '管理者のログインは [番号] です。', ['reference-number']],
];

// What an answer needs and the new rules must leave as it is.
const KEPT: [string, string][] = [
  ['links with short or meaningful query values', 'See https://help.example.com/articles?page=2&lang=ja&q=請求書 and https://example.com/search?q=reset+password&sort=new'],
  ['a link with a version and a build', 'https://example.com/download?version=11.2.0.4&build=20260301'],
  ['an error code in a link', 'https://example.com/report?code=E1024&lang=en and error E-1024'],
  ['a video id', 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
  ['an article id that is no secret', 'https://docs.example.com/article?id=8f3a9b2c4d5e6f70'],
  ['a UUID in a documentation link', 'https://docs.example.com/kb/3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
  ['the reset page itself', 'The password reset page is https://app.example.com/reset and the link expires after 24 hours.'],
  ['path words after a reset or auth word', 'https://app.example.com/invite/accept, https://docs.example.com/auth/oauth2-callback, https://app.example.com/verify/email'],
  ['a version and a build', 'Update to version 11.2.0.4 (build 20260301) and see error E-1024.'],
  ['the names of signing algorithms', 'Requests are signed with AWS4-HMAC-SHA256; webhooks with HMAC-SHA256.'],
  ['a commit in a changelog', 'Fixed in commit 3f2a9b1c4d5e6f708192a3b4c5d6e7f8091a2b3c (v2.4.1).'],
  ['a commit link', 'https://github.com/acme/app/commit/3f2a9b1c4d5e6f708192a3b4c5d6e7f8091a2b3c'],
  ['a Bearer header described', 'Send the header Authorization: Bearer <your token>. A Bearer token expires after 3600 seconds.'],
  ['key shapes described', 'Your API key starts with sk- and is shown once. IAM access keys start with AKIA; a JWT starts with eyJ; Stripe keys are pk_live_… and sk_live_…; Slack bot tokens start with xoxb-.'],
  ['placeholders in an example', 'OPENAI_API_KEY=YOUR_API_KEY\nhttps://api.example.com/v1?api_key=xxxxxxxxxxxxxxxx\nAPI key: <your key>\nAuthorization: required'],
  ['prose after a private key marker', 'The file starts with -----BEGIN PRIVATE KEY----- and then the key.\n-----BEGIN PRIVATE KEY-----\nthen\nbase64 lines follow.'],
  ['a public certificate block', '-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n-----END CERTIFICATE-----'],
  ['login in running text that names no log-in', 'The login is slow today. Login is required for the dashboard; log in as admin. The login is OAuth2-based and uses e-mail.'],
  ['a host after "login is"', 'The login is sso.example.com for every user.'],
  ['ログイン before words', 'ログインはSSOです。ログインは30分で切れます。'],
  // Documentation writes a key's place with its prefix and x's, zeros, a phrase or a run of 1234…: no one's key.
  ['a key prefix before x\'s', 'Authorization: Bearer sk-xxxxxxxxxxxxxxxxxxxxxxxx\nAPI key: sk-xxxxxxxxxxxxxxxxxxxxxxxx\nOPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxx'],
  ['other services\' prefixes before x\'s', 'token: ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nBearer sk_test_xxxxxxxxxxxxxxxxxxxxxxxx\nBearer sk_live_XXXXXXXXXXXXXXXXXXXX'],
  ['groups of x\'s or zeros', 'Bearer xxxx-xxxx-xxxx-xxxx\napi_key=XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX\nAuthorization: Bearer 00000000-0000-0000-0000-000000000000'],
  ['x\'s in a link\'s token', 'https://api.example.com/v1/items?token=xxxxxxxx-xxxx-xxxx'],
  ['a phrase for the token', 'Bearer replace-with-your-token\nBearer ACCESS-TOKEN-GOES-HERE\nBearer EXAMPLE_TOKEN_123'],
  ['AWS documentation\'s example keys', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
  ['a run of 1234… for the token', 'Bearer 1234567890\nAPI key: 1234567890abcdef'],
  ['a key prefix before x\'s in Japanese', 'APIキー：sk-xxxxxxxxxxxxxxxxxxxx を入力してください。'],
  [
    'API documentation (kept before)',
    'Pass your key as ?token=YOUR_TOKEN or send Authorization: Bearer YOUR_TOKEN (Bearer <token>, Bearer ****).\nPaste your key (it starts with sk-...) into the API key field.\nhttps://help.example.com/article?id=123',
  ],
  // The scrub's own placeholders: a scrubbed text scrubbed again comes out the same.
  [
    'placeholders scrubbed again',
    'https://app.example.com/reset?token=[secret]\nAuthorization: Bearer [secret]\nAPI key: [secret]\nAPIキーは [認証情報] です。\n-----BEGIN PRIVATE KEY-----\n[secret]\n-----END PRIVATE KEY-----',
  ],
];

function check(input: string, output: string, kinds: PersonalDataKind[]): void {
  const result = scrubPersonalData(input);
  expect(result.text).toBe(output);
  expect(result.replacements.map((r) => r.kind)).toEqual(kinds);
  for (const r of result.replacements) expect(input.slice(r.index, r.index + r.original.length)).toBe(r.original);
}

describe('scrubPersonalData: secrets', () => {
  it.each(LINKS)('link: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(KEYS)('key: %s', (_name, input, output, kinds) => check(input, output, kinds));
  it.each(LOGINS)('log-in name: %s', (_name, input, output, kinds) => check(input, output, kinds));

  it.each(KEPT)('keeps %s', (_name, input) => {
    const result = scrubPersonalData(input);
    expect(result.replacements).toEqual([]);
    expect(result.text).toBe(input);
  });
});

// Each new rule on input built to make a careless pattern backtrack. The bound is generous: the machine running tests
// is shared.
describe("scrubPersonalData: the secrets' rules on 20,000-character adversarial input", () => {
  it.each([
    ['a run of letters', 'a'.repeat(20_000)],
    ['a run of =', '='.repeat(20_000)],
    ['a run of -', '-'.repeat(20_000)],
    ['a run of .', '.'.repeat(20_000)],
    ['eyJ repeated', 'eyJ'.repeat(7_000)],
    ['eyJ and dots repeated', 'eyJabcdefgh.'.repeat(1_700)],
    ['sk- repeated', 'sk-'.repeat(7_000)],
    ['a link with ?token= repeated', `https://a.example/reset${'?token='.repeat(3_000)}`],
    ['a link with &key=a repeated', `https://a.example/x?${'key=a1&'.repeat(3_000)}`],
    ['a reset path of many segments', `https://a.example/reset/${'a1b2/'.repeat(4_000)}`],
    // 150,000 characters: a start at every %2B took seconds here (90 ms at 20,000, under the bound).
    ['an encoded plus repeated before an encoded @', `${'a%2B'.repeat(37_500)}%40example.com`],
    ['a line without spaces', 'Authorization:Bearer'.repeat(1_000)],
    ['BEGIN PRIVATE KEY without an end, repeated', '-----BEGIN PRIVATE KEY-----\n'.repeat(700)],
    ['API key: repeated', 'API key: '.repeat(2_200)],
    ['login is repeated', 'login is '.repeat(2_200)],
    ['a long log-in shaped run after login is', `login is ${'a_'.repeat(10_000)}`],
    ['a Bearer value of x and dashes', `Bearer ${'x-'.repeat(10_000)}`],
    ['a Bearer value of a key prefix and x', `Bearer sk-${'x'.repeat(20_000)}1`],
  ])('%s', (_name, input) => {
    const started = performance.now();
    scrubPersonalData(input);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
