/**
 * Wires a {@link HelpDeskAgent} from configuration: model, product name, guards, recursion limit, output-token cap
 * (LLM_MAX_OUTPUT_TOKENS), prompt overrides (PROMPTS_FILE) and the two search tools.
 */
import type OpenAI from 'openai';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { createOpenAIClient } from '../openai.js';
import type { ManualSearch, QaSearch } from '../search/types.js';
import { HelpDeskAgent } from './agent.js';
import { loadPromptOverridesSync } from './prompts.js';
import { createSearchTools } from './tools.js';

/**
 * Builds the agent of a process. PROMPTS_FILE is read once, here, so that a broken file stops the process at start
 * rather than on its first ticket (it throws `PromptConfigError` naming the problem).
 */
export function createHelpDeskAgent(
  config: Config,
  search: { manual: ManualSearch; qa: QaSearch },
  client: OpenAI = createOpenAIClient(config),
  logger?: Logger,
): HelpDeskAgent {
  return new HelpDeskAgent({
    client,
    model: config.OPENAI_MODEL,
    tools: createSearchTools(search, config.PRODUCT_NAME),
    prompts: config.PROMPTS_FILE ? loadPromptOverridesSync(config.PROMPTS_FILE) : {},
    productName: config.PRODUCT_NAME,
    knowledgeLanguage: config.KNOWLEDGE_LANGUAGE,
    maxQuestionChars: config.MAX_QUESTION_CHARS,
    maxSubtasks: config.MAX_SUBTASKS,
    recursionLimit: config.AGENT_RECURSION_LIMIT,
    maxOutputTokens: config.LLM_MAX_OUTPUT_TOKENS,
    ...(logger ? { logger } : {}),
  });
}
