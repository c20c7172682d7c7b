/**
 * The one OpenAI SDK client of a process, for chat and embeddings alike. It talks to OpenAI or to any
 * OpenAI-compatible server (Ollama, vLLM, the tests' scripted server) through OPENAI_BASE_URL, with the SDK's own
 * timeout and exponential-backoff retries on 408/409/429/5xx and connection errors.
 */
import OpenAI from 'openai';
import type { Config } from './config.js';

/** Builds the client from configuration. */
export function createOpenAIClient(
  config: Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'LLM_TIMEOUT_MS' | 'LLM_MAX_RETRIES'>,
): OpenAI {
  return new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL,
    timeout: config.LLM_TIMEOUT_MS,
    maxRetries: config.LLM_MAX_RETRIES,
  });
}
