import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { PLACEHOLDER_API_KEY } from '../../src/config.js';
import { apiKeyProblem, modelServerFailure } from '../../src/openai.js';

const config = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' };
const answered = (status: number, message: string) => APIError.generate(status, { message }, message, new Headers());
const wrapped = (err: Error) => Object.assign(new Error('agent failed permanently'), { cause: err });

describe('modelServerFailure', () => {
  it.each<[string, unknown, string | undefined]>([
    ['no connection', new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:11434') }), 'cannot reach http://127.0.0.1:11434/v1: Connection error. (connect ECONNREFUSED 127.0.0.1:11434)'],
    ['a timeout', new APIConnectionTimeoutError(), 'cannot reach http://127.0.0.1:11434/v1: Request timed out.'],
    ['a wrong key', answered(401, 'Incorrect API key provided'), 'http://127.0.0.1:11434/v1 answered 401: 401 Incorrect API key provided — check OPENAI_API_KEY'],
    ['a wrong key, wrapped by the job', wrapped(answered(401, 'Incorrect API key provided')), 'http://127.0.0.1:11434/v1 answered 401: 401 Incorrect API key provided — check OPENAI_API_KEY'],
    ['a key not allowed there', answered(403, 'Forbidden'), 'http://127.0.0.1:11434/v1 answered 403: 403 Forbidden — check OPENAI_API_KEY'],
    ['an unknown model', answered(404, 'model "qwen" not found'), 'http://127.0.0.1:11434/v1 answered 404: 404 model "qwen" not found'],
    ['the quota', answered(429, 'You exceeded your current quota'), 'http://127.0.0.1:11434/v1 answered 429: 429 You exceeded your current quota'],
    ['the server failing', answered(502, 'Bad gateway'), 'http://127.0.0.1:11434/v1 answered 502: 502 Bad gateway'],
    ['one request refused', answered(400, 'context length exceeded'), undefined],
    ['not from the server', new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), undefined],
  ])('%s', (_what, err, line) => {
    expect(modelServerFailure(err, config)).toBe(line);
  });

  it('names OpenAI when no base URL is set', () => {
    expect(modelServerFailure(answered(401, 'Incorrect API key provided'), { OPENAI_BASE_URL: undefined })).toBe(
      'https://api.openai.com/v1 answered 401: 401 Incorrect API key provided — check OPENAI_API_KEY',
    );
  });
});

describe('apiKeyProblem', () => {
  it.each<[string, string | undefined, string, boolean]>([
    ['OpenAI without a key (the placeholder an empty OPENAI_API_KEY becomes)', undefined, PLACEHOLDER_API_KEY, true],
    ['OpenAI with an empty key', undefined, '', true],
    ['OpenAI with a key', undefined, 'sk-proj-abc', false],
    ['a server of your own without a key (Ollama, vLLM want none)', 'http://127.0.0.1:11434/v1', PLACEHOLDER_API_KEY, false],
    ['a server of your own with a key', 'http://vllm.internal:8000/v1', 'token', false],
  ])('%s', (_what, baseUrl, key, problem) => {
    const line = apiKeyProblem({ OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: key });
    if (!problem) expect(line).toBeUndefined();
    else
      expect(line).toBe(
        `OPENAI_API_KEY is not set (or is the placeholder ${PLACEHOLDER_API_KEY}, as .env.example has it): OpenAI needs a real key; a local server (Ollama, vLLM) needs OPENAI_BASE_URL`,
      );
  });
});
