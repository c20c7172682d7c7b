/**
 * agentFailureReason: the reason a ticket is parked with when the agent gave up. A model server that could not be
 * used is named with its (masked) URL, the variable to check and the rerun command; other failures keep their error.
 */
import { APIConnectionError, APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { agentFailureReason, toJobError } from '../../jobs/answer-ticket.js';
import { PLACEHOLDER_API_KEY } from '../../src/config.js';

const TICKET = `0123456789ab${'c'.repeat(52)}`;
const RERUN = 'rerun: npm run review -- rerun 0123456789ab';
const OLLAMA = { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'qwen2.5:7b', OPENAI_API_KEY: PLACEHOLDER_API_KEY };
const OPENAI = { OPENAI_MODEL: 'gpt-4o', OPENAI_API_KEY: 'sk-proj-SECRETSECRETSECRET' };
const answered = (status: number, message: string) => APIError.generate(status, { error: { message } }, undefined, new Headers());

describe('agentFailureReason', () => {
  it.each<[string, unknown, typeof OLLAMA | typeof OPENAI, string]>([
    [
      'the model server unreachable on every attempt',
      new APIConnectionError({ message: 'Connection error.', cause: new Error('connect ECONNREFUSED 127.0.0.1:11434') }),
      OLLAMA,
      `agent failed 3 time(s): the model server at http://127.0.0.1:11434/v1 (OPENAI_BASE_URL) could not be reached (Connection error.; connect ECONNREFUSED 127.0.0.1:11434); once it answers, ${RERUN}`,
    ],
    [
      'the server failing on every attempt',
      answered(500, 'model overloaded'),
      OLLAMA,
      `agent failed 3 time(s): the model server at http://127.0.0.1:11434/v1 (OPENAI_BASE_URL) failed (500 model overloaded); once it answers, ${RERUN}`,
    ],
    [
      'a refused key, permanent at once',
      answered(401, 'Incorrect API key provided: sk-proj-SECRETSECRETSECRET'),
      OPENAI,
      `agent failed permanently: the model server at https://api.openai.com/v1 (OpenAI: OPENAI_BASE_URL is not set) refused the API key (401 Incorrect API key provided: ***); once OPENAI_API_KEY is right, ${RERUN}`,
    ],
    [
      'an unknown model, permanent at once',
      answered(404, 'The model `gpt-5o` does not exist'),
      { ...OPENAI, OPENAI_MODEL: 'gpt-5o' },
      `agent failed permanently: the model server at https://api.openai.com/v1 (OpenAI: OPENAI_BASE_URL is not set) does not serve the model "gpt-5o" (OPENAI_MODEL), or the URL is wrong (404 The model \`gpt-5o\` does not exist); once OPENAI_MODEL names a model it serves, ${RERUN}`,
    ],
    ['Redis refusing, as before', new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), OLLAMA, 'agent failed 3 time(s); last error: WRONGTYPE Operation against a key holding the wrong kind of value'],
    ['one request refused, as before but without the key', answered(400, 'bad key sk-proj-SECRETSECRETSECRET in body'), OPENAI, 'agent failed permanently: 400 bad key *** in body'],
  ])('%s', (_what, err, settings, reason) => {
    expect(agentFailureReason(toJobError(err), 3, TICKET, settings)).toBe(reason);
  });
});
