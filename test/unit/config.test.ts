import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig, readEnvFile, redactConfig, renderEnvExample, requireVariables, shownValue, VARIABLES } from '../../src/config.js';

describe('the .env file', () => {
  it('is read from the directory, from HELPDESK_ENV_FILE, or not at all with HELPDESK_ENV_FILE=none', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'env-file-'));
    try {
      writeFileSync(path.join(dir, '.env'), 'DASHBOARD_PASSWORD=from-dotenv\n');
      writeFileSync(path.join(dir, 'other.env'), 'DASHBOARD_PASSWORD=from-other\n');
      expect(readEnvFile(dir, {})).toEqual({ DASHBOARD_PASSWORD: 'from-dotenv' });
      expect(readEnvFile(dir, { HELPDESK_ENV_FILE: 'other.env' })).toEqual({ DASHBOARD_PASSWORD: 'from-other' });
      expect(readEnvFile(dir, { HELPDESK_ENV_FILE: 'none' })).toEqual({});
      expect(loadConfig({ HELPDESK_ENV_FILE: 'none' }, dir).DASHBOARD_PASSWORD).toBeUndefined();
      expect(loadConfig({}, dir).DASHBOARD_PASSWORD).toBe('from-dotenv');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is ignored by the test suite and every process it spawns', () => {
    expect(process.env.HELPDESK_ENV_FILE).toBe('none');
  });
});

describe('config', () => {
  it('applies the documented defaults', () => {
    const c = parseConfig({});
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(c.OPENAI_MODEL).toBe('gpt-4o');
    expect(c.EMBEDDING_MODEL).toBe('text-embedding-3-small');
    expect(c.EMBEDDINGS_PROVIDER).toBe('openai');
    expect(c.DATA_DIR).toBe('./.data');
    expect(c.MANUALS_DIR).toBe('data/manuals');
    expect(c.QA_DIR).toBe('data/qa');
    expect(c.PRODUCT_NAME).toBe('XYZ');
    expect(c.MAX_QUESTION_CHARS).toBe(1000);
    expect(c.MAX_SUBTASKS).toBe(5);
    expect(c.MAX_EMAIL_BYTES).toBe(10 * 1024 * 1024);
    expect(c.REVIEW_MODE).toBe('learn');
    expect(c.AGENT_CONCURRENCY).toBe(4);
    expect(c.AGENT_RUN_LIMIT_PER_HOUR).toBe(20);
    expect(c.AGENT_RUN_LIMIT_TOTAL_PER_HOUR).toBe(1000);
    expect(c.MEILI_HOST).toBeUndefined();
    // No fixed output cap fits every server: vLLM and OpenAI refuse one over the model's context or output limit.
    expect(c.LLM_MAX_OUTPUT_TOKENS).toBeUndefined();
  });

  it('accepts OPENAI_API_BASE as an alias of OPENAI_BASE_URL, the canonical name winning', () => {
    expect(parseConfig({ OPENAI_API_BASE: 'http://127.0.0.1:11434/v1' }).OPENAI_BASE_URL).toBe('http://127.0.0.1:11434/v1');
    expect(
      parseConfig({ OPENAI_API_BASE: 'http://a.example/v1', OPENAI_BASE_URL: 'http://b.example/v1' }).OPENAI_BASE_URL,
    ).toBe('http://b.example/v1');
  });

  it('converts numbers, booleans and lists', () => {
    const c = parseConfig({ IMAP_SECURE: 'false', IMAP_PORT: '1143', SUPPORT_ADDRESSES: 'a@x.example, b@x.example,' });
    expect(c.IMAP_SECURE).toBe(false);
    expect(c.IMAP_PORT).toBe(1143);
    expect(c.SUPPORT_ADDRESSES).toEqual(['a@x.example', 'b@x.example']);
  });

  // Port 465 speaks TLS at once (RFC 8314), as nodemailer assumes when `secure` is unset: a plain default there would
  // wait for a greeting that never comes.
  it.each([
    { env: { SMTP_PORT: '465' }, secure: true },
    { env: { SMTP_PORT: '465', SMTP_SECURE: 'false' }, secure: false },
    { env: { SMTP_PORT: '465', SMTP_SECURE: ' ' }, secure: true },
    { env: { SMTP_PORT: '587' }, secure: false },
    { env: { SMTP_PORT: '587', SMTP_SECURE: 'true' }, secure: true },
    { env: {}, secure: false },
  ])('SMTP_SECURE with $env is $secure', ({ env, secure }) => {
    expect(parseConfig(env).SMTP_SECURE).toBe(secure);
  });

  // A group's address is compared whole with what list headers name (src/mail/classify.ts): a display name or a
  // typo that is no address would never match, and group mail would be parked with no word why.
  it('reads our groups as bare addresses and the receiving server\'s authserv-ids', () => {
    const c = parseConfig({ SUPPORT_GROUP_ADDRESSES: 'help@x.example, sales@x.example', AUTHSERV_ID: 'mx.x.example,mx2.x.example' });
    expect(c.SUPPORT_GROUP_ADDRESSES).toEqual(['help@x.example', 'sales@x.example']);
    expect(c.AUTHSERV_ID).toEqual(['mx.x.example', 'mx2.x.example']);
    expect(parseConfig({}).SUPPORT_GROUP_ADDRESSES).toEqual([]);
    expect(() => parseConfig({ SUPPORT_GROUP_ADDRESSES: 'Help <help@x.example>' })).toThrow(/SUPPORT_GROUP_ADDRESSES.*bare addresses/);
    expect(() => parseConfig({ SUPPORT_GROUP_ADDRESSES: 'help' })).toThrow(/SUPPORT_GROUP_ADDRESSES/);
  });

  // The README says to copy the first word of an Authentication-Results field, which the header ends with a `;`.
  it.each([
    ['mx.google.com;', ['mx.google.com']],
    ['mx.google.com ;', ['mx.google.com']],
    ['mx.google.com;, mx2.x.example ; ', ['mx.google.com', 'mx2.x.example']],
    [';', []],
  ])('reads AUTHSERV_ID %j copied with the header\'s semicolon as the bare id', (raw, ids) => {
    expect(parseConfig({ AUTHSERV_ID: raw }).AUTHSERV_ID).toEqual(ids);
  });

  // Exchange Online's field starts with a result (`spf=pass (sender IP is …)`), which "the first word" would copy.
  it.each(['spf=pass', 'mx.google.com, dkim=pass', 'mx.google.com 1'])('refuses AUTHSERV_ID %j, which is no authserv-id', (raw) => {
    expect(() => parseConfig({ AUTHSERV_ID: raw })).toThrow(/AUTHSERV_ID=.*must be authserv-ids \(host names such as mx\.google\.com\), not results such as spf=pass/);
  });

  it.each([
    ['Asia/Tokyo', 'Asia/Tokyo'],
    ['UTC', 'UTC'],
    [' Europe/Paris ', 'Europe/Paris'],
    ['', undefined],
  ])('reads TZ %j as an IANA time zone name', (raw, zone) => {
    expect(parseConfig({ TZ: raw }).TZ).toBe(zone);
  });

  it.each(['Asia/Tokio', 'JST-9', 'Mars/Olympus', '+09:00', ':/etc/localtime'])('refuses TZ=%j, naming what it takes', (raw) => {
    expect(() => parseConfig({ TZ: raw })).toThrow(`TZ=${JSON.stringify(raw)} is not a time zone name`);
  });

  it('names every bad variable in one error and hides sensitive values', () => {
    let error: unknown;
    try {
      parseConfig({ REDIS_URL: 'not a url:secret', LOG_LEVEL: 'loud', AGENT_CONCURRENCY: '0', CHUNK_SIZE: '100', CHUNK_OVERLAP: '200' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['REDIS_URL', 'LOG_LEVEL', 'AGENT_CONCURRENCY', 'CHUNK_OVERLAP']) expect(message).toContain(name);
    expect(message).not.toContain('secret');
    expect((error as ConfigError).problems).toHaveLength(4);
  });

  it.each([
    ['redis://:hunter2@redis host:6379', '"redis://:***@redis host:6379"'],
    ['redis://default:hunter2@bad host:6379/0', '"redis://default:***@bad host:6379/0"'],
    ['redis://hunter2@bad host', '"redis://***@bad host"'],
    ['no-scheme-hunter2', '***'],
  ])('shows a bad secret URL %j with only its password masked', (raw, shown) => {
    expect(() => parseConfig({ REDIS_URL: raw })).toThrow(`REDIS_URL=${shown} is not a URL`);
    expect(shownValue(raw, { sensitive: true })).toBe(shown);
  });

  // Neither search client sends a URL's user or password: Meilisearch's fetch refuses the URL at the first search, and
  // Qdrant's connection is built without them.
  it.each([
    ['MEILI_HOST', 'http://admin:hunter2@127.0.0.1:7700', '"http://admin:***@127.0.0.1:7700"', 'MEILI_API_KEY'],
    ['QDRANT_URL', 'https://hunter2@qdrant.example/q', '"https://***@qdrant.example/q"', 'QDRANT_API_KEY'],
  ])('refuses %s with a user or password in it, naming the key variable and masking the password', (name, raw, shown, key) => {
    expect(() => parseConfig({ [name]: raw })).toThrow(`${name}=${shown} must not carry a user or password (the search client does not send them): put the key in ${key}`);
  });

  it('masks the password of any URL it shows in an error, sensitive variable or not', () => {
    expect(() => parseConfig({ OPENAI_BASE_URL: 'http://llm:hunter2@bad host/v1' })).toThrow('OPENAI_BASE_URL="http://llm:***@bad host/v1" is not a URL');
  });

  it.each([
    [{ IMAP_PORT: 'abc' }, 'IMAP_PORT="abc" is not a number'],
    [{ AGENT_CONCURRENCY: '0' }, 'AGENT_CONCURRENCY="0" is too small: the least allowed is 1'],
    [{ LLM_MAX_OUTPUT_TOKENS: '0' }, 'LLM_MAX_OUTPUT_TOKENS="0" is too small: the least allowed is 1'],
    [{ AGENT_RUN_LIMIT_PER_HOUR: '-1' }, 'AGENT_RUN_LIMIT_PER_HOUR="-1" is too small: the least allowed is 0'],
    [{ REVIEW_MODE: 'sometimes' }, 'REVIEW_MODE="sometimes" is not one of always, auto, learn, never'],
    [{ OPENAI_BASE_URL: 'http//x' }, 'OPENAI_BASE_URL="http//x" is not a URL'],
    // Node turns a longer timer into 1 ms: every LLM call would time out, the poller would poll without pause.
    [{ LLM_TIMEOUT_MS: '3000000000' }, 'LLM_TIMEOUT_MS="3000000000" is too large: the most allowed is 2147483647'],
    [{ IMAP_POLL_INTERVAL_MS: '2147483648' }, 'IMAP_POLL_INTERVAL_MS="2147483648" is too large: the most allowed is 2147483647'],
    // A move into the folder being watched gives the mail a new UID, seen as new mail: a sync loop without end.
    [{ IMAP_PROCESSED_MAILBOX: 'inbox' }, 'IMAP_PROCESSED_MAILBOX must not be IMAP_MAILBOX (INBOX)'],
    [{ IMAP_MAILBOX: 'Support', IMAP_PROCESSED_MAILBOX: 'Support' }, 'IMAP_PROCESSED_MAILBOX must not be IMAP_MAILBOX (Support)'],
  ])('says what is wrong in our words: %j', (env, message) => {
    expect(() => parseConfig(env)).toThrow(message);
  });

  it('validates only the groups a command uses; a bad value elsewhere falls back to its default', () => {
    const env = { IMAP_PORT: 'abc', DASHBOARD_PORT: 'x', CHUNK_SIZE: '400' };
    expect(() => parseConfig(env)).toThrow(/IMAP_PORT[\s\S]*DASHBOARD_PORT/);
    const c = parseConfig(env, { groups: ['search', 'knowledge', 'llm'] });
    expect(c.IMAP_PORT).toBe(993);
    expect(c.CHUNK_SIZE).toBe(400);
    // Core variables (Redis) and the command's own groups are still checked.
    expect(() => parseConfig({ ...env, CHUNK_SIZE: 'big', REDIS_URL: 'x' }, { groups: ['search', 'knowledge', 'llm'] })).toThrow(/REDIS_URL[\s\S]*CHUNK_SIZE/);
  });

  it('lets the process environment override .env', async () => {
    const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(tmpdir(), 'cfg-'));
    writeFileSync(path.join(dir, '.env'), 'PRODUCT_NAME=FromFile\nOPENAI_MODEL=file-model\n');
    try {
      const c = loadConfig({ OPENAI_MODEL: 'env-model' }, dir);
      expect(c.PRODUCT_NAME).toBe('FromFile');
      expect(c.OPENAI_MODEL).toBe('env-model');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Node reads the zone from process.env.TZ only, so a TZ written in .env did nothing outside Compose.
  describe('TZ in .env', () => {
    const saved = process.env.TZ;
    const restore = (): void => {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    };
    const withEnvFile = (text: string, body: (dir: string) => void): void => {
      const dir = mkdtempSync(path.join(tmpdir(), 'cfg-tz-'));
      writeFileSync(path.join(dir, '.env'), text);
      try {
        body(dir);
      } finally {
        rmSync(dir, { recursive: true, force: true });
        restore();
      }
    };
    // 2024-01-01T00:00Z: 09:00 in Tokyo, 01:00 in Paris, 00:00 in UTC.
    const hourOfNewYear = (): number => new Date(Date.UTC(2024, 0, 1)).getHours();

    it('is applied to the process when its environment has no TZ', () => {
      withEnvFile('TZ=Asia/Tokyo\n', (dir) => {
        delete process.env.TZ;
        expect(loadConfig({}, dir).TZ).toBe('Asia/Tokyo');
        expect(process.env.TZ).toBe('Asia/Tokyo');
        expect(hourOfNewYear()).toBe(9);
      });
    });

    it("is not applied over the process environment's TZ", () => {
      withEnvFile('TZ=Asia/Tokyo\n', (dir) => {
        process.env.TZ = 'Europe/Paris';
        expect(loadConfig({ TZ: 'Europe/Paris' }, dir).TZ).toBeUndefined();
        loadConfig({}, dir);
        expect(process.env.TZ).toBe('Europe/Paris');
        expect(hourOfNewYear()).toBe(1);
      });
    });

    it('is refused, changing nothing, when it is no zone name', () => {
      withEnvFile('TZ=Asia/Tokio\n', (dir) => {
        delete process.env.TZ;
        expect(() => loadConfig({}, dir)).toThrow('TZ="Asia/Tokio" is not a time zone name');
        expect(process.env.TZ).toBeUndefined();
      });
    });

    // A POSIX fixed offset is named as the desk reads it (config-time-zone.test.ts); one unknown stays.
    it.each([
      [':/etc/localtime', ':/etc/localtime'],
      ['JST-9', 'Etc/GMT-9'],
    ])("a process started with TZ=%s keeps Node's zone, not checked against .env (TZ now %s)", (zone, after) => {
      withEnvFile('TZ=Asia/Tokio\n', (dir) => {
        process.env.TZ = zone;
        expect(() => loadConfig({}, dir)).not.toThrow();
        expect(process.env.TZ).toBe(after);
      });
    });

    it('a .env alias ICU names but Date does not read (JST) is applied as the zone ICU names', () => {
      withEnvFile('TZ=JST\n', (dir) => {
        delete process.env.TZ;
        loadConfig({}, dir);
        expect(process.env.TZ).toBe('Asia/Tokyo');
        expect(hourOfNewYear()).toBe(9);
      });
    });
  });

  it('reports every variable a role needs', () => {
    const c = parseConfig({});
    expect(() => requireVariables(c, ['IMAP_HOST', 'IMAP_USER'], 'IMAP poller')).toThrow(/IMAP_HOST[\s\S]*IMAP_USER/);
    // Once: the description's own "(required by the poller)" is not repeated after the role.
    expect(() => requireVariables(c, ['IMAP_HOST'], 'IMAP poller')).toThrow(/IMAP_HOST is required by the IMAP poller: IMAP server of the support mailbox$/m);
  });

  it('masks sensitive values', () => {
    const c = parseConfig({ OPENAI_API_KEY: 'sk-secret', DASHBOARD_PASSWORD: 'pw' });
    const shown = JSON.stringify(redactConfig(c));
    expect(shown).not.toContain('sk-secret');
    expect(shown).not.toContain('"pw"');
  });

  it('declares a description and sensitivity for every variable, and .env.example lists them all', () => {
    const example = readFileSync('.env.example', 'utf8');
    expect(example).toBe(renderEnvExample());
    for (const [name, spec] of Object.entries(VARIABLES)) {
      expect(spec.description.length, name).toBeGreaterThan(10);
      expect(typeof spec.sensitive, name).toBe('boolean');
      expect(example).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
    }
  });
});

describe('README configuration table', () => {
  it('is the one generated from src/config.ts', async () => {
    const { renderConfigTable } = await import('../../src/config.js');
    expect(readFileSync('README.md', 'utf8')).toContain(`<!-- config:start -->\n${renderConfigTable()}\n<!-- config:end -->`);
  });
});

describe('schedules', () => {
  it('treats an empty cron variable as "disabled", an unset one as the default', () => {
    expect(parseConfig({ REINDEX_MANUAL_CRON: '' }).REINDEX_MANUAL_CRON).toBe('');
    expect(parseConfig({}).REINDEX_MANUAL_CRON).toBe('0 3 * * *');
    expect(() => parseConfig({ REINDEX_QA_CRON: 'nightly' })).toThrow(/REINDEX_QA_CRON/);
  });
});
