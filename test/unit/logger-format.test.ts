import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { VARIABLES } from '../../src/config.js';
import { loggerOptions, resolveLogFormat, type LogFormat } from '../../src/logger.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('resolveLogFormat', () => {
  it.each<[LogFormat, boolean, boolean, 'json' | 'pretty']>([
    ['auto', true, true, 'pretty'],
    ['auto', false, true, 'json'],
    ['auto', true, false, 'json'],
    ['pretty', false, true, 'pretty'],
    ['pretty', true, false, 'json'],
    ['json', true, true, 'json'],
  ])('LOG_FORMAT=%s, terminal %s, pino-pretty installed %s → %s', (format, terminal, installed, expected) => {
    expect(resolveLogFormat(format, terminal, installed)).toBe(expected);
  });
});

/** What a process configured with `format` writes to stdout (a pipe, so not a terminal) for two log calls. */
function logOutput(format: LogFormat): string {
  const script = [
    `import { configureLogging, createLogger } from ${JSON.stringify(path.join(ROOT, 'src/logger.ts'))};`,
    `configureLogging('info', { format: ${JSON.stringify(format)} });`,
    `createLogger('poller').info({ ticketId: 't-1', config: { OPENAI_API_KEY: 'sk-secret-value' } }, 'mail queued');`,
  ].join('\n');
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}

describe('log lines by format', () => {
  it('pretty: one readable line per entry, secrets still censored', () => {
    const out = logOutput('pretty');
    expect(out).toMatch(/INFO.*mail queued/);
    expect(out).toContain('t-1');
    expect(out).not.toContain('sk-secret-value');
    expect(() => JSON.parse(out.split('\n')[0]!)).toThrow();
  });

  it('auto on a pipe (a container runtime, a file): JSON, as log collectors read it', () => {
    const line = JSON.parse(logOutput('auto').trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, module: 'poller', ticketId: 't-1', msg: 'mail queued', config: { OPENAI_API_KEY: '***' } });
  });
});

describe('configuration secrets in log lines', () => {
  const secrets = Object.entries(VARIABLES).filter(([, spec]) => spec.sensitive).map(([name]) => name);

  it.each(secrets)('%s is censored at the top of a log object and one level down', (name) => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    const logger = pino(loggerOptions('info'), sink);
    logger.info({ [name]: 'value-that-must-not-appear', config: { [name]: 'value-that-must-not-appear', LOG_LEVEL: 'info' } }, 'config');
    expect(lines.join('')).not.toContain('value-that-must-not-appear');
    expect(JSON.parse(lines[0]!)).toMatchObject({ [name]: '***', config: { [name]: '***', LOG_LEVEL: 'info' } });
  });

  it.each([
    ['a password one level down', { smtp: { user: 'ops', password: 'value-that-must-not-appear' } }, { smtp: { user: 'ops', password: '***' } }],
    ['an apiKey one level down', { client: { apiKey: 'value-that-must-not-appear' } }, { client: { apiKey: '***' } }],
    ['an api_key one level down', { client: { api_key: 'value-that-must-not-appear' } }, { client: { api_key: '***' } }],
    ['an authorization header', { headers: { authorization: 'Basic value-that-must-not-appear' } }, { headers: { authorization: '***' } }],
    ['a request\'s authorization header', { req: { headers: { authorization: 'Basic value-that-must-not-appear' } } }, { req: { headers: { authorization: '***' } } }],
    ['a mail client\'s auth.pass', { auth: { user: 'support', pass: 'value-that-must-not-appear' } }, { auth: { user: 'support', pass: '***' } }],
  ])('censors %s', (_name, fields, expected) => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => void (lines.push(String(chunk)), done()) });
    pino(loggerOptions('info'), sink).info(fields, 'fields');
    expect(lines.join('')).not.toContain('value-that-must-not-appear');
    expect(JSON.parse(lines[0]!)).toMatchObject(expected);
  });
});
