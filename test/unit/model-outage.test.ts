/**
 * Which model-server failures are an outage worth waiting for (AGENT_MODEL_OUTAGE_MINUTES): no connection, a timeout,
 * a 429 rate limit, a 5xx; not a quota refusal, a refused key, an unknown model, a refused request or our own error.
 */
import { UnrecoverableError } from 'bullmq';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { modelOutage } from '../../src/agent/model-errors.js';

const api = (status: number, body: Record<string, unknown> = { message: `HTTP ${status}`, type: 'server_error', code: null }) =>
  APIError.generate(status, { error: body }, undefined, new Headers());

const wrapped = (cause: Error) => Object.assign(new UnrecoverableError('wrapped'), { cause });

describe('modelOutage', () => {
  it.each<[string, unknown, boolean]>([
    ['no connection', new APIConnectionError({ message: 'Connection error.' }), true],
    ['a timeout', new APIConnectionTimeoutError(), true],
    ['a 429 rate limit', api(429, { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' }), true],
    ['a 429 without a code', api(429), true],
    ['a 500', api(500), true],
    ['a 503', api(503), true],
    ['a 429 quota refusal', api(429, { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' }), false],
    ['a 429 billing refusal', api(429, { message: 'Billing hard limit', type: 'requests', code: 'billing_hard_limit_reached' }), false],
    ['a refused key (401)', api(401), false],
    ['a forbidden key (403)', api(403), false],
    ['an unknown model (404)', api(404), false],
    ['a refused request (400)', api(400), false],
    ['an unprocessable request (422)', api(422), false],
    ['our own error', new Error('ticket does not exist'), false],
    ['a 503 wrapped by the job', wrapped(api(503)), true],
    ['a 401 wrapped by the job', wrapped(api(401)), false],
  ])('%s', (_name, err, expected) => {
    expect(modelOutage(err)).toBe(expected);
  });
});
