/**
 * `GET /insights` and `GET /api/insights`: the period's figures from the daily aggregates (src/tickets/insights.ts),
 * plus two sections other parts of the product feed through the providers below — the top knowledge gaps and the
 * sources' trust records. A section whose provider is absent or has nothing to show is left out of the page and
 * the JSON.
 */
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { PriceTable } from '../agent/prices.js';
import { MAX_INSIGHT_DAYS, readInsights, type Insights } from '../tickets/insights.js';
import { parseInput, type Handler } from './http.js';
import { renderInsightsPage } from './insights-view.js';

/** A question the knowledge base could not answer well, as the knowledge-gap finder groups them. */
export interface KnowledgeGap {
  /** What customers asked about, in a few words. */
  topic: string;
  /** Tickets of the period on this topic the agent could not answer from the knowledge base. */
  tickets: number;
  /** One customer question of the group, for a person to recognise the topic. */
  example?: string;
  /** When the latest such ticket came in (ISO 8601). */
  lastSeenAt?: string;
}

/** Supplies the top knowledge gaps of a period (implemented by the knowledge-gap finder). */
export interface KnowledgeGapsProvider {
  /**
   * The gaps of the period `from`–`to` (calendar days in the process's time zone, inclusive: see
   * `seenInPeriod` in src/knowledge/gaps.ts), biggest first, at most `limit`.
   */
  topGaps(period: { from: string; to: string; limit: number }): Promise<KnowledgeGap[]>;
}

/** The track record of one knowledge source (a Q&A pair, a learned pair, a manual section) in review. */
export interface SourceTrustRecord {
  /** Stable id of the source, e.g. `guide/login.md#3` or `qa:faq.csv#12`. */
  sourceId: string;
  /** Reviewed drafts that cited it, within the trust window. */
  reviews: number;
  /** Of those, approved as is. */
  approvedAsIs: number;
  /** Whether drafts citing it may be sent without review. */
  trusted: boolean;
  /** What is missing when it is not trusted, e.g. "3 of 5 reviews". */
  missing?: string;
}

/** Supplies the sources' trust records (implemented by `REVIEW_MODE=learn`). */
export interface SourceTrustProvider {
  /** Every source with a record. */
  sourceRecords(): Promise<SourceTrustRecord[]>;
}

/** Sections fed by other parts of the product; each is optional. */
export interface InsightProviders {
  gaps?: KnowledgeGapsProvider;
  trust?: SourceTrustProvider;
}

/** Gaps shown on the page. */
export const TOP_GAPS = 10;

/** The figures of `/api/insights`, with the provider sections when they have data. */
export interface InsightsReport extends Insights {
  knowledgeGaps?: KnowledgeGap[];
  sourceTrust?: { trusted: number; notYetTrusted: number; sources: SourceTrustRecord[] };
}

/** What the handlers need. */
export interface InsightsDeps {
  redis: Redis;
  /** QUEUE_PREFIX: the aggregates live under it. */
  prefix: string;
  /** The price table for the cost (built-in prices with LLM_PRICES on top). */
  prices: PriceTable;
  providers?: InsightProviders;
  now: () => Date;
}

const querySchema = z.object({ days: z.coerce.number().int().min(1).max(MAX_INSIGHT_DAYS).default(30) }).strict();

/** The figures of the last `days` days, with the provider sections that have data. */
export async function insightsReport(deps: InsightsDeps, days: number): Promise<InsightsReport> {
  const insights = await readInsights(deps.redis, deps.prefix, { days, now: deps.now(), prices: deps.prices });
  const [gaps, trust] = await Promise.all([
    deps.providers?.gaps?.topGaps({ from: insights.from, to: insights.to, limit: TOP_GAPS }),
    deps.providers?.trust?.sourceRecords(),
  ]);
  const report: InsightsReport = { ...insights };
  if (gaps && gaps.length > 0) report.knowledgeGaps = gaps.slice(0, TOP_GAPS);
  if (trust && trust.length > 0) {
    const sources = [...trust].sort((a, b) => Number(b.trusted) - Number(a.trusted) || b.reviews - a.reviews || a.sourceId.localeCompare(b.sourceId));
    const trusted = sources.filter((s) => s.trusted).length;
    report.sourceTrust = { trusted, notYetTrusted: sources.length - trusted, sources };
  }
  return report;
}

/** The page and API handlers. */
export function insightsHandlers(deps: InsightsDeps): Record<'api' | 'page', Handler> {
  return {
    async api({ query }) {
      const { days } = parseInput(querySchema, query, 'query');
      return { status: 200, json: await insightsReport(deps, days) };
    },
    async page({ query, user }) {
      const { days } = parseInput(querySchema, query, 'query');
      return { status: 200, html: renderInsightsPage({ report: await insightsReport(deps, days), user }) };
    },
  };
}
