import { UnrecoverableError, type Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { MAX_RECONNECT_DELAY_MS, describeRedis, describeRedisFailure, isAuthError, isConnectionError, reconnectDelay } from '../../src/queues/connection.js';
import { HandlerRegistrationError, assertHandlersComplete, isFinalFailure } from '../../src/queues/registry.js';

const noop = async () => undefined;

function problemsOf(fn: () => void): string[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(HandlerRegistrationError);
    return (err as HandlerRegistrationError).problems;
  }
  return [];
}

describe('assertHandlersComplete', () => {
  it('accepts exactly one handler per job of the queue', () => {
    expect(() => assertHandlersComplete('maintenance', { 'reindex-manual': noop, 'reindex-qa': noop, retention: noop })).not.toThrow();
    expect(() => assertHandlersComplete('tickets', [['answer-ticket', noop], ['propose-learned-answer', noop]])).not.toThrow();
  });

  it('lists a missing handler', () => {
    expect(problemsOf(() => assertHandlersComplete('maintenance', { 'reindex-manual': noop, retention: noop }))).toEqual(["no handler for job 'reindex-qa'"]);
  });

  it('lists handlers for jobs the queue does not have', () => {
    const problems = problemsOf(() => assertHandlersComplete('tickets', { 'answer-ticket': noop, 'propose-learned-answer': noop, 'send-reply': noop, 'park-ticket': noop }));
    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain("unknown job 'send-reply'");
    expect(problems[1]).toContain("unknown job 'park-ticket'");
  });

  it('lists duplicate registrations and non-functions', () => {
    const problems = problemsOf(() =>
      assertHandlersComplete('maintenance', [
        ['reindex-manual', noop],
        ['reindex-manual', noop],
        ['reindex-qa', 'not a function'],
        ['retention', noop],
      ]),
    );
    expect(problems).toEqual(["handler for 'reindex-qa' is not a function", "2 handlers for job 'reindex-manual' (exactly one allowed)"]);
  });

  it('reports every problem in one error message', () => {
    expect(() => assertHandlersComplete('outbound', { 'answer-ticket': noop })).toThrow(
      /queue 'outbound'[\s\S]*no handler for job 'send-reply'[\s\S]*unknown job 'answer-ticket'/,
    );
  });

  it('refuses an unknown queue', () => {
    expect(() => assertHandlersComplete('mail', {})).toThrow(/unknown queue/);
  });
});

describe('isFinalFailure', () => {
  const job = (attemptsMade: number, attempts: number) => ({ attemptsMade, opts: { attempts } }) as unknown as Job;
  it('is final for unrecoverable errors, used-up attempts and vanished jobs', () => {
    expect(isFinalFailure(job(1, 3), new UnrecoverableError('bad'))).toBe(true);
    expect(isFinalFailure(job(3, 3), new Error('x'))).toBe(true);
    expect(isFinalFailure(undefined, new Error('stalled'))).toBe(true);
    expect(isFinalFailure(job(1, 3), new Error('x'))).toBe(false);
  });
});

describe('connection helpers', () => {
  it.each([
    ['redis://:s3cret@cache.internal:6379', 'redis://***@cache.internal:6379'],
    ['redis://default:s3cret@cache.internal:6379/2', 'redis://default:***@cache.internal:6379/2'],
    ['rediss://tokenonly@cache.internal:6380', 'rediss://***@cache.internal:6380'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://localhost', 'redis://localhost'],
    ['not a url :s3cret', '(invalid Redis URL)'],
  ])('describes %s as %s', (url, expected) => {
    expect(describeRedis(url)).toBe(expected);
    expect(describeRedis(url)).not.toContain('s3cret');
  });

  it('backs off exponentially up to a cap and never gives up', () => {
    expect(reconnectDelay(1)).toBe(500);
    expect(reconnectDelay(2)).toBe(1000);
    expect(reconnectDelay(100)).toBe(MAX_RECONNECT_DELAY_MS);
  });

  it('recognises connection errors', () => {
    expect(isConnectionError(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(true);
    expect(isConnectionError(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isConnectionError(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'))).toBe(false);
  });

  const refused = (message: string, code: string) => Object.assign(new Error(message), { code });
  it.each<[string, Error, string, boolean]>([
    ['a wrong password', new Error('WRONGPASS invalid username-password pair or user is disabled.'), 'WRONGPASS invalid username-password pair or user is disabled. — check the password in REDIS_URL', true],
    ['no password for a server that wants one', new Error('NOAUTH Authentication required.'), 'NOAUTH Authentication required. — check the password in REDIS_URL', true],
    ['a wrong password, Redis before 6', new Error('ERR invalid password'), 'ERR invalid password — check the password in REDIS_URL', true],
    ['Redis not started', refused('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED'), 'connect ECONNREFUSED 127.0.0.1:6379 — start Redis or check REDIS_URL', false],
    ['an unknown host', refused('getaddrinfo ENOTFOUND redis', 'ENOTFOUND'), 'getaddrinfo ENOTFOUND redis — start Redis or check REDIS_URL', false],
    ['no answer', refused('connect ETIMEDOUT', 'ETIMEDOUT'), 'connect ETIMEDOUT — start Redis or check REDIS_URL', false],
    ['anything else', new Error('LOADING Redis is loading the dataset in memory\nmore'), 'LOADING Redis is loading the dataset in memory', false],
  ])('says why a connection failed, with what to do: %s', (_what, err, line, auth) => {
    expect(describeRedisFailure(err)).toBe(line);
    expect(isAuthError(err)).toBe(auth);
  });
});
