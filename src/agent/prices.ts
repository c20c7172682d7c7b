/**
 * What LLM tokens cost: the price table the insights page turns recorded token counts into money with. Prices change
 * and differ per contract, so the built-in table only covers models whose list price is public; `LLM_PRICES` adds to
 * it or overrides it (see src/config.ts).
 */
import { z } from 'zod';

/** Price of one model, USD per million tokens (the unit providers publish). */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Prompt tokens served from the provider's prompt cache; billed as plain input when absent. */
  cachedInputPerMTok?: number;
}

/** A price table: model name → price. */
export type PriceTable = Record<string, ModelPrice>;

/** The shape `LLM_PRICES` must have. */
export const priceTableSchema = z.record(
  z.string().min(1),
  z
    .object({
      inputPerMTok: z.number().min(0),
      outputPerMTok: z.number().min(0),
      cachedInputPerMTok: z.number().min(0).optional(),
    })
    .strict(),
);

/**
 * OpenAI's list prices (USD per million tokens) of the models this product is usually run with, the same figures as
 * the benchmark's `bench/prices.json` for the models both list. Local models (Ollama, vLLM) cost nothing per token
 * and are not listed: their cost shows as unknown unless `LLM_PRICES` names them (e.g. with zeros).
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
};

/** The built-in table with `overrides` (from `LLM_PRICES`) on top. */
export function priceTable(overrides: PriceTable = {}): PriceTable {
  return { ...DEFAULT_PRICES, ...overrides };
}

/**
 * The price of `model`: its own entry, else the longest entry it starts with followed by `-` (a dated snapshot such
 * as `gpt-4o-mini-2024-07-18` costs what `gpt-4o-mini` does). Undefined when the table does not know the model.
 */
export function priceOf(table: PriceTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(table, model)) return table[model];
  const family = Object.keys(table)
    .filter((name) => model.startsWith(`${name}-`))
    .sort((a, b) => b.length - a.length)[0];
  return family === undefined ? undefined : table[family];
}

/** Token counts of one model. `promptTokens` includes the cached ones, as the OpenAI API reports them. */
export interface TokenCounts {
  promptTokens: number;
  cachedPromptTokens: number;
  completionTokens: number;
}

/** The cost in USD of `tokens` at `price`: cached prompt tokens at the cached price when the table has one. */
export function costOf(price: ModelPrice, tokens: TokenCounts): number {
  const cached = Math.min(tokens.cachedPromptTokens, tokens.promptTokens);
  const cachedPrice = price.cachedInputPerMTok ?? price.inputPerMTok;
  return ((tokens.promptTokens - cached) * price.inputPerMTok + cached * cachedPrice + tokens.completionTokens * price.outputPerMTok) / 1_000_000;
}
