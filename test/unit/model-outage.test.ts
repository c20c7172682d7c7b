/**
 * Which model-server failures are an outage worth waiting for (AGENT_MODEL_OUTAGE_MINUTES): no connection, a timeout,
 * a 408, a 429 rate limit, a 5xx; not a quota refusal (by its code or its message's words), a refused key, an unknown model, a refused request or our own error.
 */
import { UnrecoverableError } from 'bullmq';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { modelOutage, modelOutageSummary } from '../../src/agent/model-errors.js';

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
    // Quota refusals that say so only in their message.
    ['Azure: a 429 quota refusal by its message', api(429, { code: '429', message: 'Requests to the ChatCompletions_Create Operation have exceeded the monthly quota of your subscription.' }), false],
    ['Gemini: a 429 quota refusal by its message', api(429, { code: 429, message: 'You exceeded your current quota, please check your plan and billing details.', status: 'RESOURCE_EXHAUSTED' }), false],
    ['OpenAI: a 429 quota refusal by its message only', api(429, { message: 'You exceeded your current quota, please check your plan and billing details.', type: 'requests', code: null }), false],
    ['a 429 billing refusal by its message, in capitals', api(429, { message: 'BILLING account suspended', type: null, code: null }), false],
    // Azure's rate limit links to its quota page: a rate limit all the same.
    [
      "Azure: a 429 rate limit linking to 'quotaincrease'",
      api(429, { code: '429', message: 'Requests have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 6 seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.' }),
      true,
    ],
    ['a 408 (the server timed the request out)', api(408), true],
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

describe('modelOutageSummary', () => {
  const settings = { OPENAI_BASE_URL: 'http://user:secret@llm.example:8080/v1', OPENAI_API_KEY: 'sk-test-key' };
  it.each<[string, unknown, string | undefined]>([
    ['a 503 whose message echoes the request', api(503, { message: 'upstream failed for prompt: 山田太郎 様の口座番号 1234567', type: 'server_error', code: null }), 'failed (503)'],
    ['a 429 rate limit', api(429, { message: 'Rate limit reached for 山田太郎', type: 'requests', code: 'rate_limit_exceeded' }), 'refused more requests: rate limit (429)'],
    ['a 408', api(408, { message: 'request "山田太郎" timed out' }), 'did not answer in time (408)'],
    ['no connection', new APIConnectionError({ message: 'Connection error.' }), 'could not be reached'],
    ['a timeout', new APIConnectionTimeoutError(), 'did not answer in time'],
    ['a 401 (no outage)', api(401), undefined],
  ])('%s', (_name, err, expected) => {
    const summary = modelOutageSummary(wrapped(err as Error), settings);
    if (expected === undefined) return expect(summary).toBeUndefined();
    expect(summary).toMatch(/^the model server at http:\/\/\S+ \(OPENAI_BASE_URL\) /);
    expect(summary!.endsWith(expected)).toBe(true);
    expect(summary).not.toMatch(/山田|secret|sk-test/);
  });
});
