/** Public API of the help-desk agent. */
export {
  EmptyQuestionError,
  HelpDeskAgent,
  MAX_STORED_TOOL_ARGS_CHARS,
  MAX_TOOL_ARGS_CHARS,
  MAX_TOOL_CALLS_PER_TRY,
  MAX_TOOL_OUTPUT_CHARS_PER_TRY,
  MIN_RECURSION_LIMIT,
  agentRunSpendOf,
  fallbackSubtaskAnswer,
  initialAgentState,
  initialSubGraphState,
  sourcesOf,
  type AgentState,
  type AgentSubGraphState,
  type HelpDeskAgentOptions,
  type RunAgentOptions,
} from './agent.js';
export { createHelpDeskAgent } from './create-agent.js';
export {
  BLOCK_TAGS,
  PROMPT_NAMES,
  PromptConfigError,
  defaultPrompts,
  delimit,
  fillPlaceholders,
  loadPromptOverrides,
  loadPromptOverridesSync,
  parsePromptOverrides,
  promptOverridesSchema,
  renderSystemPrompt,
  renderUserPrompt,
  resolvePrompts,
  type PromptSet,
  type UserPromptValues,
} from './prompts.js';
export {
  MANUAL_TOOL_NAME,
  QA_TOOL_NAME,
  TOOL_SOURCE_KIND,
  createManualSearchTool,
  createQaSearchTool,
  createSearchTools,
} from './tools.js';
export * from './types.js';
