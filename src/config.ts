/**
 * The one place that reads the process environment.
 *
 * Every variable is declared once in {@link VARIABLES} with its schema, default (or `required`), a one-line
 * description and whether it is sensitive. `.env.example` is generated from the same table
 * (`npm run env:example`) and a unit test keeps the two in step.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { z } from 'zod';
import { priceTableSchema } from './agent/prices.js';
import { processZoneFor } from './time-zone.js';

/** How one environment variable is declared. */
export interface VariableSpec {
  /** Validates and converts the raw string (after the default is applied). */
  schema: z.ZodType;
  /** Raw default used when the variable is unset or empty; omitted means optional-without-default. */
  default?: string;
  /** Startup fails when a required variable is missing. */
  required?: boolean;
  /** One line for `.env.example` and the README. */
  description: string;
  /** Never logged or printed; shown as `***` by {@link redactConfig}. */
  sensitive: boolean;
  /** Other names accepted for the same variable (first wins after the canonical name). */
  aliases?: string[];
  /** Set but empty means the empty value (e.g. a disabled schedule), not "use the default". */
  emptyIsValue?: boolean;
  /** Which role needs it: `core` for everything, otherwise the role that checks it at start. */
  group: 'core' | 'llm' | 'search' | 'knowledge' | 'agent' | 'mail' | 'pipeline' | 'dashboard' | 'scheduler';
}

/** OPENAI_API_KEY's default: a key for servers that want none (Ollama, vLLM), and no key for OpenAI. */
export const PLACEHOLDER_API_KEY = 'not-needed';

const str = z.string();
const optionalStr = z.string().optional();
const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
/** Milliseconds for a timer: Node turns anything above 2³¹−1 into 1 ms. */
const ms = (min: number) => int(min, 2 ** 31 - 1);
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));
const url = z.url();
const optionalUrl = z.url().optional();
/**
 * A search server's URL, which may hold no user or password: neither search client sends them. Meilisearch's fetch
 * refuses such a URL (every search and reindex failed with "Request cannot be constructed from a URL that includes
 * credentials"), and Qdrant's connection is built from the host, port and path alone, so a proxy asking for them
 * refused every request. Refused here, naming where the key goes.
 */
const searchServerUrl = (keyVariable: string) =>
  z
    .url()
    .refine((v) => !URL.canParse(v) || (new URL(v).username === '' && new URL(v).password === ''), `must not carry a user or password (the search client does not send them): put the key in ${keyVariable}`)
    .optional();
const csvList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
/**
 * Comma-separated authserv-ids. An admin copies the first word of an Authentication-Results header, and the header
 * writes a `;` right after it (`mx.google.com;`): an id with it would never match, and group mail would be parked.
 */
const authservIdList = z
  .string()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().replace(/[\s;]+$/, ''))
      .filter(Boolean),
  )
  // `spf=pass` is a result, not a server's id: Exchange Online writes its field without one (see README).
  .refine((ids) => ids.every((id) => !id.includes('=') && !/\s/.test(id)), 'must be authserv-ids (host names such as mx.google.com), not results such as spf=pass');
/**
 * An IANA time zone name that ICU knows (`Asia/Tokyo`, `UTC`), in the case ICU writes it (`asia/tokyo` names no
 * zone file). Names only: what ICU cannot name (a POSIX rule such as `JST-9`, `:/etc/localtime`) in `.env` is refused
 * here (a TZ the process is started with is rewritten to its zone by {@link loadConfig} instead), and an offset such
 * as `+09:00`, which newer ICU accepts, is read by the C library as a POSIX rule with the opposite sign.
 */
const timeZone = z.string().transform((v, ctx) => {
  let resolved: string | undefined;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: v }).resolvedOptions().timeZone;
  } catch {
    resolved = undefined;
  }
  if (resolved === undefined || !/^[A-Za-z]/.test(v)) {
    ctx.addIssue({ code: 'custom', message: 'is not a time zone name: give an IANA name such as UTC or Asia/Tokyo (not a POSIX rule such as JST-9, nor an offset)' });
    return z.NEVER;
  }
  return resolved.toLowerCase() === v.toLowerCase() ? resolved : v;
});
/** Comma-separated bare mail addresses (`help@example.com`): a group's address is compared as a whole. */
const bareAddressList = csvList.refine((items) => items.every((item) => /^[^\s@<>",;]+@[^\s@<>",;]+$/.test(item)), 'must be bare addresses (local@domain), comma-separated');
/** A JSON price table (src/agent/prices.ts); parse errors name the position, as JSON.parse does. */
const priceTable = z
  .string()
  .transform((v, ctx) => {
    try {
      return JSON.parse(v) as unknown;
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `is not JSON (${err instanceof Error ? err.message : String(err)})` });
      return z.NEVER;
    }
  })
  .pipe(priceTableSchema);
/** A five- or six-field cron expression, or empty to disable the schedule. */
const cron = z.string().refine((v) => v === '' || /^(\S+\s+){4,5}\S+$/.test(v.trim()), 'must be a cron expression or empty');

/**
 * The OAuth2 token endpoint: the client secret and refresh token are posted to it, so https, or http only to this
 * machine (a local proxy, the tests' stand-in), where nobody on the path reads them.
 */
const tokenUrl = z.url().refine((v) => {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    // Not a URL at all: z.url() says so.
    return true;
  }
  if (u.protocol === 'https:') return true;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return u.protocol === 'http:' && (host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.')));
}, 'must be an https URL (http only to this machine: localhost, 127.0.0.1, [::1]), since the client secret is sent to it');

/** Names of address ranges Express's `trust proxy` knows (proxy-addr). */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
/**
 * Which peers may name the client's address in `X-Forwarded-For`, as Express's `trust proxy` takes it: `false` (off,
 * `false`, `0`), a hop count, or a list of addresses, address/prefix-length subnets and range names. "Every peer"
 * (`true`, or a subnet of every address) is refused: any client could then write a new address into the header for
 * each guess and never be throttled. Express's `trust proxy` would accept more (a function, netmasks); these are what
 * an environment variable can say safely.
 */
const trustProxy = z.string().transform((v, ctx): false | number | string[] => {
  const value = v.trim().toLowerCase();
  if (['off', 'false', '0'].includes(value)) return false;
  if (/^[1-9]\d{0,2}$/.test(value)) return Number(value);
  const everyone = 'must not trust every proxy (any client could then choose its own address and never be throttled): give the number of proxies in front, or their addresses';
  if (['true', 'on', 'yes', 'all', '*'].includes(value)) {
    ctx.addIssue({ code: 'custom', message: everyone });
    return z.NEVER;
  }
  const items = value.split(',').map((item) => item.trim());
  for (const item of items) {
    const [address = '', prefix, ...rest] = item.split('/');
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    // A /0, or an IPv4-mapped subnet as wide as ::ffff:0:0/96 (every IPv4 client of a dual-stack socket), is everyone.
    const widest = address.startsWith('::ffff:') ? 96 : 0;
    if (family !== 0 && prefixOk && rest.length === 0 && prefix !== undefined && Number(prefix) <= widest) {
      ctx.addIssue({ code: 'custom', message: everyone });
      return z.NEVER;
    }
    if (!PROXY_RANGE_NAMES.includes(item) && (family === 0 || !prefixOk || rest.length > 0)) {
      ctx.addIssue({
        code: 'custom',
        message: `is invalid: ${JSON.stringify(item)} is not an address, address/prefix-length, ${PROXY_RANGE_NAMES.join(', ')} (comma-separated), a hop count or off`,
      });
      return z.NEVER;
    }
  }
  return items;
});

/** Every variable the product reads. Order is the order of `.env.example`. */
export const VARIABLES = {
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'pino log level: fatal, error, warn, info, debug, trace or silent',
    sensitive: false,
    group: 'core',
  },
  LOG_FORMAT: {
    schema: z.enum(['auto', 'json', 'pretty']),
    default: 'auto',
    description:
      'Log lines as json (one object per line, for log collectors) or pretty (one readable line each; needs the dev dependency pino-pretty); auto: pretty on a terminal when pino-pretty is installed, else json',
    sensitive: false,
    group: 'core',
  },
  DATA_DIR: {
    schema: str,
    default: './.data',
    description: 'Directory for the embedded search indexes and the embedding cache',
    sensitive: false,
    group: 'core',
  },
  REDIS_URL: {
    schema: url,
    default: 'redis://127.0.0.1:6379',
    description: 'Redis for the queues and tickets (redis://[:password@]host:port[/db]); may carry a password',
    sensitive: true,
    group: 'core',
  },
  QUEUE_PREFIX: {
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
    default: 'helpdesk',
    description: 'Prefix of every Redis key the product writes (queues and tickets)',
    sensitive: false,
    group: 'core',
  },
  TZ: {
    schema: timeZone,
    description:
      "IANA time zone (UTC, Asia/Tokyo) of the reindex and retention schedules, of the date quoted in replies when the customer's Date header named no zone, of the review page's times and of the insights' days; a TZ in the process environment wins over .env. Empty: the process's own zone (UTC in Compose)",
    sensitive: false,
    group: 'core',
  },

  OPENAI_API_KEY: {
    schema: str,
    default: PLACEHOLDER_API_KEY,
    description: 'API key for OpenAI; any placeholder works for servers that ignore it (Ollama, vLLM)',
    sensitive: true,
    group: 'llm',
  },
  OPENAI_BASE_URL: {
    schema: optionalUrl,
    description: 'OpenAI-compatible server, e.g. http://localhost:11434/v1 for Ollama (alias OPENAI_API_BASE); empty for OpenAI',
    sensitive: false,
    aliases: ['OPENAI_API_BASE'],
    group: 'llm',
  },
  OPENAI_MODEL: {
    schema: str.min(1),
    default: 'gpt-4o',
    description: 'Chat model for planning, tool selection, reflection and answers',
    sensitive: false,
    group: 'llm',
  },
  LLM_TIMEOUT_MS: {
    schema: ms(1000),
    default: '60000',
    description: 'Timeout of one LLM or embeddings request in milliseconds',
    sensitive: false,
    group: 'llm',
  },
  LLM_MAX_RETRIES: {
    schema: int(0, 10),
    default: '2',
    description: 'Retries of one LLM request on 408/429/5xx/connection errors (the openai SDK backs off exponentially, or waits as Retry-After says up to 60 s; a longer wait fails the attempt for the job to retry later)',
    sensitive: false,
    group: 'llm',
  },
  LLM_MAX_OUTPUT_TOKENS: {
    // Unset by default: a fixed cap made servers refuse every call (vLLM checks prompt + cap against --max-model-len,
    // OpenAI refuses a cap above a model's output limit), and every ticket was parked as a model failure.
    schema: int(1).optional(),
    description:
      "Most tokens one agent model call may write, sent as max_completion_tokens (max_tokens to a server that refuses or ignores that): bounds what one runaway or steered answer costs. Keep it under the model's output limit (OpenAI refuses more: gpt-3.5-turbo 4096) and, on vLLM, under --max-model-len minus the longest prompt (vLLM refuses a prompt plus this over the context); a reasoning model spends it on its hidden reasoning too. Empty: nothing sent, the server's own limit applies",
    sensitive: false,
    group: 'llm',
  },
  EMBEDDINGS_PROVIDER: {
    schema: z.enum(['openai', 'local']),
    default: 'openai',
    description: 'openai: EMBEDDING_MODEL on the OpenAI-compatible server; local: hashed character n-gram vectors, no network',
    sensitive: false,
    group: 'llm',
  },
  EMBEDDING_MODEL: {
    schema: str.min(1),
    default: 'text-embedding-3-small',
    description: 'Embedding model used when EMBEDDINGS_PROVIDER=openai',
    sensitive: false,
    group: 'llm',
  },
  EMBEDDING_DIMENSIONS: {
    schema: int(8, 8192),
    default: '1536',
    description: 'Vector size of the local embedder (the openai provider uses what the model returns)',
    sensitive: false,
    group: 'llm',
  },
  EMBEDDING_BATCH_SIZE: {
    schema: int(1, 2048),
    default: '100',
    description: 'Texts per embeddings request while reindexing',
    sensitive: false,
    group: 'llm',
  },

  MEILI_HOST: {
    schema: searchServerUrl('MEILI_API_KEY'),
    description: 'Meilisearch for manual search, e.g. http://localhost:7700; empty uses the embedded engine under DATA_DIR',
    sensitive: false,
    group: 'search',
  },
  MEILI_API_KEY: {
    schema: optionalStr,
    description: 'Meilisearch key: an admin key or one with the actions README lists on MEILI_INDEX* (builds are MEILI_INDEX_build_*); not the master key',
    sensitive: true,
    group: 'search',
  },
  MEILI_INDEX: {
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
    default: 'xyz_manual',
    description: 'Meilisearch index name that searches use (reindexing swaps a new index into it)',
    sensitive: false,
    group: 'search',
  },
  QDRANT_URL: {
    schema: searchServerUrl('QDRANT_API_KEY'),
    description: 'Qdrant for Q&A search, e.g. http://localhost:6333 or https://proxy/qdrant (port by scheme when absent, path kept); empty uses the embedded vector index under DATA_DIR',
    sensitive: false,
    group: 'search',
  },
  QDRANT_API_KEY: {
    schema: optionalStr,
    description: 'Qdrant API key',
    sensitive: true,
    group: 'search',
  },
  QDRANT_COLLECTION: {
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/),
    default: 'xyz_qa',
    description: 'Qdrant alias that searches use (reindexing points it at a new collection)',
    sensitive: false,
    group: 'search',
  },

  MANUALS_DIR: {
    schema: str,
    default: 'data/manuals',
    description: 'Product manual files to index, subfolders included (.md, .mdx, .txt, .html, .pdf, .docx)',
    sensitive: false,
    group: 'knowledge',
  },
  QA_DIR: {
    schema: str,
    default: 'data/qa',
    description: 'Past questions and answers as CSV files or Excel workbooks (.xlsx, every visible sheet): a header row; the columns headed question/answer, 質問/回答 or Q/A, else the first two',
    sensitive: false,
    group: 'knowledge',
  },
  QA_FUSION_WEIGHTS: {
    schema: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v.trim() === '') return undefined;
        const m = /^\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*$/.exec(v);
        const weights = m ? { lexical: Number(m[1]), vector: Number(m[2]) } : undefined;
        if (!weights || weights.lexical + weights.vector === 0) {
          ctx.addIssue({ code: 'custom', message: 'must be two non-negative numbers "lexical,vector", not both 0 (e.g. 1,0.25)' });
          return z.NEVER;
        }
        return weights;
      }),
    description:
      'Embedded Q&A search: weights of the BM25 and vector rankings in the fusion, "lexical,vector"; empty: 1,0 with the local embedder (its vectors are lexical and only blur BM25), 0.25,1 with a semantic model',
    sensitive: false,
    group: 'search',
  },
  CHUNK_SIZE: {
    schema: int(50, 10000),
    default: '300',
    description: 'Manual chunk size in characters',
    sensitive: false,
    group: 'knowledge',
  },
  CHUNK_OVERLAP: {
    schema: int(0, 5000),
    default: '20',
    description: "Characters neighbouring manual chunks may share: the splitter (LangChain's, as in the design) carries over only whole pieces (sentences, clauses) that fit, so with Japanese sentences longer than this the chunks share nothing",
    sensitive: false,
    group: 'knowledge',
  },

  PRODUCT_NAME: {
    schema: str.min(1),
    default: 'XYZ',
    description: 'Product name used in the prompts, and to hold for a person mail whose sender\'s display name is ours on a domain not ours: the product name with only support or team words beside it (「XYZ サポートセンター」)',
    sensitive: false,
    group: 'agent',
  },
  KNOWLEDGE_LANGUAGE: {
    schema: z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language code such as ja or en'),
    default: 'ja',
    description: 'Language of the manual and Q&A (a code such as ja or en): the agent searches in it whatever the mail\'s language; replies stay in the customer\'s language',
    sensitive: false,
    group: 'agent',
  },
  MAX_QUESTION_CHARS: {
    schema: int(1),
    default: '1000',
    description: 'Longer questions are cut to this many characters, with a warning; in REVIEW_MODE auto and learn such a draft is parked (its end was not read)',
    sensitive: false,
    group: 'agent',
  },
  MAX_SUBTASKS: {
    schema: int(1, 20),
    default: '5',
    description: 'At most this many planned subtasks run; the rest of a plan is dropped with a warning, and in REVIEW_MODE auto and learn the draft is parked naming them',
    sensitive: false,
    group: 'agent',
  },
  AGENT_RECURSION_LIMIT: {
    // One subtask needs 13 steps to use all three tries; lower limits would fail runs that are going fine.
    schema: int(13, 1000),
    default: '50',
    description: 'LangGraph recursion limit of one agent run',
    sensitive: false,
    group: 'agent',
  },
  PROMPTS_FILE: {
    schema: optionalStr,
    description: 'JSON file overriding any of the agent prompts by name (see src/agent/prompts.ts); not confidential: a steered model can restate a prompt in its own words',
    sensitive: false,
    group: 'agent',
  },

  IMAP_HOST: {
    schema: optionalStr,
    description: 'IMAP server of the support mailbox (required by the poller)',
    sensitive: false,
    group: 'mail',
  },
  IMAP_PORT: { schema: int(1, 65535), default: '993', description: 'IMAP server port (993 for TLS, 143 plain)', sensitive: false, group: 'mail' },
  IMAP_SECURE: { schema: bool, default: 'true', description: 'IMAP over TLS (false: STARTTLS, required unless IMAP_ALLOW_PLAIN_LOGIN)', sensitive: false, group: 'mail' },
  IMAP_ALLOW_PLAIN_LOGIN: {
    schema: bool,
    default: 'false',
    description: 'With IMAP_SECURE=false, log in even when the server offers no STARTTLS (only for a trusted local server); false: refuse',
    sensitive: false,
    group: 'mail',
  },
  IMAP_USER: { schema: optionalStr, description: 'IMAP login of the support mailbox', sensitive: false, group: 'mail' },
  IMAP_PASSWORD: { schema: optionalStr, description: 'IMAP password of the support mailbox (not used with MAIL_AUTH=oauth2)', sensitive: true, group: 'mail' },
  IMAP_MAILBOX: { schema: str.min(1), default: 'INBOX', description: 'Mailbox (folder) the poller watches', sensitive: false, group: 'mail' },
  IMAP_POLL_INTERVAL_MS: {
    schema: ms(1000),
    default: '60000',
    description: 'Safety poll interval besides IDLE, in milliseconds',
    sensitive: false,
    group: 'mail',
  },
  FIRST_START_ANSWER_HOURS: {
    // An existing support mailbox may hold months of unread mail; an automatic reply to it would reach customers
    // months late. Only the first start: later, unseen mail is what arrived while the poller was away.
    schema: int(0),
    default: '24',
    description:
      "On the poller's first start with a mailbox (no sync state yet), unseen mail the server received more than this many hours earlier is held for a person instead of answered (0: all of it); old auto-replies, bounces and list mail are still ignored as on any day",
    sensitive: false,
    group: 'mail',
  },
  IMAP_PROCESSED_MAILBOX: {
    schema: optionalStr,
    description: 'Move queued mail to this mailbox instead of only marking it \\Seen',
    sensitive: false,
    group: 'mail',
  },
  IMAP_SENT_MAILBOX: {
    schema: optionalStr,
    description: 'Mailbox the sender copies every reply to (\\Seen); unset finds it by the \\Sent special-use flag, off disables',
    sensitive: false,
    group: 'mail',
  },
  MAX_EMAIL_BYTES: {
    schema: int(1024),
    default: String(10 * 1024 * 1024),
    description: 'Larger mail is not downloaded; it becomes a parked ticket',
    sensitive: false,
    group: 'mail',
  },
  RAW_MAIL_BYTES_PER_SENDER_PER_HOUR: {
    schema: int(1024 * 1024),
    default: String(64 * 1024 * 1024),
    description:
      "Bytes of one sender's (From, a +tag folded) mail kept in Redis per hour, counted as the raw copies are stored; a mail that would pass it is kept with its text but without its raw copy (it stays in the mailbox) and held for a person unless the checks ignore it, never answered automatically. The default lets a customer's several mails of MAX_EMAIL_BYTES through in an hour",
    sensitive: false,
    group: 'mail',
  },
  RAW_MAIL_BYTES_PER_DOMAIN_PER_HOUR: {
    schema: int(1024 * 1024),
    default: String(256 * 1024 * 1024),
    description:
      "The same for all senders of one organisation's domain together (mail.corp.example with corp.example; a shared mail provider's domain such as gmail.com is no organisation and has none), so made-up addresses of one domain share a budget",
    sensitive: false,
    group: 'mail',
  },
  RAW_MAIL_REDIS_MEMORY_PERCENT: {
    schema: int(1, 100),
    default: '75',
    description:
      "Raw mail is kept only while Redis's used memory, the mail included, stays within this share of its maxmemory (of the machine's memory when Redis has none); later mail over 256 KB (any mail past 95 %) is held for a person without its raw copy (unless the checks ignore it), and the rest stays free for tickets and queues (README, Redis memory)",
    sensitive: false,
    group: 'mail',
  },
  SMTP_HOST: { schema: optionalStr, description: 'SMTP server for replies (required by the sender)', sensitive: false, group: 'mail' },
  SMTP_PORT: { schema: int(1, 65535), default: '587', description: 'SMTP server port (587 submission, 465 TLS, 25)', sensitive: false, group: 'mail' },
  SMTP_SECURE: {
    // No fixed default: parseConfig sets it from SMTP_PORT when unset, so .env.example leaves it commented out.
    schema: bool,
    description: 'SMTP over TLS from the start (unset: true when SMTP_PORT is 465, RFC 8314, else false); false uses STARTTLS when offered',
    sensitive: false,
    group: 'mail',
  },
  SMTP_USER: { schema: optionalStr, description: 'SMTP login (empty: no authentication)', sensitive: false, group: 'mail' },
  SMTP_PASSWORD: { schema: optionalStr, description: 'SMTP password for sending replies (not used with MAIL_AUTH=oauth2)', sensitive: true, group: 'mail' },
  SMTP_ALLOW_PLAIN_AUTH: {
    schema: bool,
    default: 'false',
    description: 'With SMTP_USER and SMTP_SECURE=false, authenticate even when the server offers no STARTTLS (only for a trusted local relay); false: refuse',
    sensitive: false,
    group: 'mail',
  },
  MAIL_AUTH: {
    schema: z.enum(['password', 'oauth2']),
    default: 'password',
    description:
      'How the roles log in to IMAP and SMTP: password (IMAP_PASSWORD, SMTP_PASSWORD), or oauth2 (SASL XOAUTH2 with an access token from MAIL_OAUTH2_TOKEN_URL, for IMAP_USER and SMTP_USER; Microsoft 365 allows only this for IMAP, see the README)',
    sensitive: false,
    group: 'mail',
  },
  MAIL_OAUTH2_TOKEN_URL: {
    schema: tokenUrl.optional(),
    description:
      'MAIL_AUTH=oauth2: the token endpoint, e.g. https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token (Microsoft 365) or https://oauth2.googleapis.com/token (Google); https, http only to this machine',
    sensitive: false,
    group: 'mail',
  },
  MAIL_OAUTH2_CLIENT_ID: {
    schema: optionalStr,
    description: 'MAIL_AUTH=oauth2: the application (client) ID registered with the identity provider',
    sensitive: false,
    group: 'mail',
  },
  MAIL_OAUTH2_CLIENT_SECRET: {
    schema: optionalStr,
    description: "MAIL_AUTH=oauth2: the application's client secret (required without MAIL_OAUTH2_REFRESH_TOKEN: the client_credentials grant authenticates the application)",
    sensitive: true,
    group: 'mail',
  },
  MAIL_OAUTH2_SCOPE: {
    schema: optionalStr,
    description:
      'MAIL_AUTH=oauth2: the scope of the token request (space-separated), https://outlook.office365.com/.default for Microsoft 365 app-only access; empty: none sent',
    sensitive: false,
    group: 'mail',
  },
  MAIL_OAUTH2_REFRESH_TOKEN: {
    schema: optionalStr,
    description:
      "MAIL_AUTH=oauth2: a refresh token of the mailbox's account (Gmail): tokens are then fetched with the refresh_token grant; empty: with the client_credentials grant (Microsoft 365 app-only access)",
    sensitive: true,
    group: 'mail',
  },
  MAIL_FROM: {
    schema: optionalStr,
    description: 'From address of replies, e.g. "XYZ Support <support@example.com>" (required by the sender)',
    sensitive: false,
    group: 'mail',
  },
  SUPPORT_ADDRESSES: {
    schema: csvList,
    default: '',
    description: 'Comma-separated aliases of the support mailbox; mail from them is never answered',
    sensitive: false,
    group: 'mail',
  },
  SUPPORT_GROUP_ADDRESSES: {
    schema: bareAddressList,
    default: '',
    description:
      'Comma-separated support addresses that are a group (Google Groups, Mailman) delivering to the polled mailbox: their list headers, and a From they rewrote to themselves with the customer in Reply-To, count only for mail whose topmost Authentication-Results, by AUTHSERV_ID, says dkim=pass for the group domain or dmarc=pass for a From in it; other mail naming our address as its list is parked',
    sensitive: false,
    group: 'mail',
  },
  AUTHSERV_ID: {
    schema: authservIdList,
    default: '',
    description:
      'Comma-separated authserv-ids of the server that receives the support mail (the first word of the Authentication-Results it writes on top of every mail, e.g. mx.google.com for Gmail and Google Workspace); only such a verdict admits mail as through SUPPORT_GROUP_ADDRESSES, and only its pass vouches for a From (else a link in the subject parks the draft, and one in the quoted mail leaves the quote out of the reply: README, Security). Empty: none admits group mail, and the topmost Authentication-Results vouches whoever wrote it',
    sensitive: false,
    group: 'mail',
  },

  REVIEW_MODE: {
    schema: z.enum(['always', 'auto', 'learn', 'never']),
    // A fresh install sends nothing unreviewed, yet shows the desk earning autonomy from its reviewers.
    default: 'learn',
    description:
      'always: every draft waits for a person; auto: only fully answered drafts are sent; learn: as auto, and only when every source the draft cites is trusted (TRUST_*), so until reviews have earned that trust every draft waits for a person; never: send all that can be answered',
    sensitive: false,
    group: 'pipeline',
  },
  TRUST_MIN_REVIEWS: {
    schema: int(1, 1_000),
    default: '5',
    description: 'REVIEW_MODE=learn: reviewed drafts citing a source before drafts citing it may go out unreviewed',
    sensitive: false,
    group: 'pipeline',
  },
  TRUST_MIN_AS_IS: {
    schema: z.coerce.number().min(0).max(1),
    default: '0.9',
    description: 'REVIEW_MODE=learn: least share of those reviews approved as is (edit ratio up to TRUST_MAX_EDIT_RATIO) for a trusted source',
    sensitive: false,
    group: 'pipeline',
  },
  TRUST_WINDOW: {
    schema: int(1, 100),
    default: '20',
    description: 'REVIEW_MODE=learn: the latest reviews of a source its trust is judged on',
    sensitive: false,
    group: 'pipeline',
  },
  TRUST_MAX_EDIT_RATIO: {
    schema: z.coerce.number().min(0).max(1),
    default: '0.2',
    description: 'REVIEW_MODE=learn: an approval edited more than this counts against the sources of the draft, as a rejection does',
    sensitive: false,
    group: 'pipeline',
  },
  AGENT_CONCURRENCY: { schema: int(1, 256), default: '4', description: 'Tickets one agent worker runs at once', sensitive: false, group: 'pipeline' },
  AGENT_ATTEMPTS: {
    schema: int(1, 20),
    default: '3',
    description: 'Attempts of a ticket on temporary failures before it is parked for a person',
    sensitive: false,
    group: 'pipeline',
  },
  AGENT_MODEL_OUTAGE_MINUTES: {
    schema: z.coerce.number().min(0).max(24 * 60),
    default: '30',
    description:
      'While the model server cannot be used for a while (no connection, timeout, 429 rate limit but not a quota refusal, 5xx), tickets wait for it to answer again instead of using up AGENT_ATTEMPTS, for at most this many minutes counted from the start of the outage (a ticket that arrives later waits only what is left); all agent workers pause together meanwhile, one ticket probing at a time, and each ticket notes that it waits; after the window every ticket uses its attempts and is parked (0: no wait, parked after AGENT_ATTEMPTS as before)',
    sensitive: false,
    group: 'pipeline',
  },
  SENDER_ATTEMPTS: {
    schema: int(1, 50),
    default: '8',
    description: 'Attempts of a reply on temporary SMTP failures (4xx, connection) before it is parked',
    sensitive: false,
    group: 'pipeline',
  },
  AUTO_REPLY_LIMIT_PER_HOUR: {
    schema: int(0),
    default: '5',
    description: 'Automatic replies per sender (From) and, separately, per recipient (Reply-To) per hour; further mail is parked',
    sensitive: false,
    group: 'pipeline',
  },
  REPEATED_QUESTION_HOURS: {
    schema: int(0),
    default: '24',
    description:
      'A question the same sender already asked under the same subject within these hours is parked for a person, with no draft, instead of answered again, while the first copy is answered or waits for a person (in every REVIEW_MODE; 0: off)',
    sensitive: false,
    group: 'pipeline',
  },
  SPAM_ACTION: {
    schema: z.enum(['ignore', 'park']),
    default: 'ignore',
    description: 'Mail the upstream spam filter flagged (X-Spam-Flag, X-Spam-Status, X-Spam, SPAM_HEADER) or carrying the GTUBE test string: ignore (reason spam) or park for a person; never answered automatically',
    sensitive: false,
    group: 'pipeline',
  },
  SPAM_HEADER: {
    schema: optionalStr,
    description: 'Another filter\'s verdict header that marks spam (e.g. X-Rspamd-Action); empty: only the common ones',
    sensitive: false,
    group: 'pipeline',
  },
  SPAM_HEADER_VALUE: {
    schema: optionalStr,
    description: 'With SPAM_HEADER: the mail is spam when that header\'s value contains this text (case ignored); empty: when the header is present',
    sensitive: false,
    group: 'pipeline',
  },
  AUTO_REPLY_LIMIT_TOTAL_PER_HOUR: {
    schema: int(0),
    default: '200',
    description: 'Automatic replies per hour in all; over it every draft is parked for a person (a flood of forged senders costs at most this)',
    sensitive: false,
    group: 'pipeline',
  },
  AGENT_RUN_LIMIT_PER_HOUR: {
    schema: int(0),
    default: '20',
    description:
      'Agent runs on one sender\'s (From) mail per hour, counted as a run starts whatever becomes of its draft: each costs model calls, and a parked one a reviewer\'s time, so a flood of mail whose drafts are all parked (a foreign Reply-To, bulk signs) is bounded too; mail whose sender the receiving server authenticated (Authentication-Results) and the rest count apart, each up to this limit, so forgeries under a customer\'s address cannot park the customer\'s own mail; further mail is parked without a draft (0: the agent never runs on mail; a person\'s new-draft request is not counted)',
    sensitive: false,
    group: 'pipeline',
  },
  AGENT_RUN_LIMIT_PER_DOMAIN_PER_HOUR: {
    schema: int(0),
    default: '100',
    description:
      "Agent runs on the mail of one organisation's domain of the From per hour (mail.corp.example with corp.example), counted as AGENT_RUN_LIMIT_PER_HOUR is: made-up or catch-all addresses at one domain cannot spend AGENT_RUN_LIMIT_TOTAL_PER_HOUR for every other customer; a shared mail provider's domain (gmail.com, docomo.ne.jp…) has no such limit, its senders being strangers to each other; mail whose sender the receiving server authenticated (Authentication-Results) and the rest count apart, each up to this limit, so forgeries under a domain cannot spend its authenticated mail's runs; further mail is parked without a draft (0: the agent never runs on mail from an organisation's domain; to turn the limit off, set it to AGENT_RUN_LIMIT_TOTAL_PER_HOUR)",
    sensitive: false,
    group: 'pipeline',
  },
  AGENT_RUN_LIMIT_TOTAL_PER_HOUR: {
    schema: int(0),
    default: '1000',
    description:
      'Agent runs per hour in all, counted as AGENT_RUN_LIMIT_PER_HOUR is: what model spend and review work a flood from many addresses costs at most; mail whose sender the receiving server authenticated (AUTHSERV_ID) and the rest count apart, each up to this limit, so a flood of strangers\' mail cannot park authenticated customers\' mail, and both together may cost up to twice it; further mail is parked without a draft (0: the agent never runs on mail)',
    sensitive: false,
    group: 'pipeline',
  },
  TRUSTED_LINK_DOMAINS: {
    schema: csvList,
    default: '',
    emptyIsValue: true,
    description:
      'Domains (and their subdomains) a reply may link to or name addresses of even when the knowledge the agent found does not; a draft with any other link, address or phone number that is not in that knowledge is parked, not sent automatically',
    sensitive: false,
    group: 'pipeline',
  },
  TRUSTED_REPLY_TO_DOMAINS: {
    schema: csvList,
    default: '',
    emptyIsValue: true,
    description:
      "Domains (and their subdomains) of Reply-To addresses an automatic reply may go to when the Reply-To is not the From mailbox: on another domain than From, another mailbox on a shared mail provider (gmail.com, docomo.ne.jp…), or beside a no-reply From; otherwise such a draft is parked, not sent automatically. It matches the Reply-To's domain (a ticketing partner's), not the sender's, so it does not release web-form mail: a form's Reply-To is whatever address the visitor typed, and such mail is parked by design for a person to check",
    sensitive: false,
    group: 'pipeline',
  },

  DASHBOARD_HOST: {
    schema: str.min(1),
    default: '127.0.0.1',
    description: 'Address the dashboard listens on: loopback by default (put a TLS reverse proxy in front); 0.0.0.0 or :: for every interface (a container); DASHBOARD_AUTH=off always means 127.0.0.1',
    sensitive: false,
    group: 'dashboard',
  },
  DASHBOARD_PORT: { schema: int(0, 65535), default: '3000', description: 'Port of the dashboard and review page (0: any free port)', sensitive: false, group: 'dashboard' },
  DASHBOARD_USER: { schema: str.min(1), default: 'admin', description: 'HTTP Basic user of the dashboard', sensitive: false, group: 'dashboard' },
  DASHBOARD_PASSWORD: {
    schema: optionalStr,
    description: 'HTTP Basic password of the dashboard; without it the dashboard refuses to start unless DASHBOARD_AUTH=off',
    sensitive: true,
    group: 'dashboard',
  },
  METRICS_TOKEN: {
    schema: z.string().min(24, 'must be at least 24 characters (e.g. openssl rand -hex 16)').optional(),
    description:
      'Bearer token that reads /metrics and nothing else, for a Prometheus scrape (authorization: credentials); empty: /metrics needs the dashboard login',
    sensitive: true,
    group: 'dashboard',
  },
  DASHBOARD_AUTH: {
    schema: z.enum(['on', 'off']),
    default: 'on',
    description: 'off disables authentication and binds the dashboard to loopback only',
    sensitive: false,
    group: 'dashboard',
  },
  DASHBOARD_TRUST_PROXY: {
    schema: trustProxy,
    default: 'off',
    description:
      'Reverse proxies trusted to name the client in X-Forwarded-For (and HTTPS in X-Forwarded-Proto), so failed logins are counted per client, not per proxy: off; the number of proxies in front (1 for one nginx or Caddy); or their addresses or subnets (10.0.0.2, 172.16.0.0/12), loopback, linklocal, uniquelocal, comma-separated. Never every proxy: any client could choose its own address',
    sensitive: false,
    group: 'dashboard',
  },
  LLM_PRICES: {
    schema: priceTable,
    default: '{}',
    description:
      'Prices for the insights page\'s LLM cost, JSON {"model": {"inputPerMTok": 2.5, "cachedInputPerMTok": 1.25, "outputPerMTok": 10}} in USD per million tokens; added to the built-in gpt-4o/gpt-4.1 list prices',
    sensitive: false,
    group: 'dashboard',
  },

  LANGSMITH_TRACING: {
    schema: bool,
    default: 'false',
    description: 'Trace every LLM call to LangSmith (the standard LangChain variable; off by default)',
    sensitive: false,
    aliases: ['LANGCHAIN_TRACING_V2'],
    group: 'llm',
  },
  LANGSMITH_API_KEY: {
    schema: optionalStr,
    description: 'LangSmith API key, when LANGSMITH_TRACING is on',
    sensitive: true,
    aliases: ['LANGCHAIN_API_KEY'],
    group: 'llm',
  },
  LANGSMITH_ENDPOINT: {
    schema: optionalUrl,
    description: 'LangSmith API URL (empty: the LangSmith cloud)',
    sensitive: false,
    aliases: ['LANGCHAIN_ENDPOINT'],
    group: 'llm',
  },
  LANGSMITH_PROJECT: {
    schema: str.min(1),
    default: 'helpdesk-worker',
    description: 'LangSmith project the traces go to',
    sensitive: false,
    aliases: ['LANGCHAIN_PROJECT'],
    group: 'llm',
  },

  REINDEX_MANUAL_CRON: {
    schema: cron,
    emptyIsValue: true,
    default: '0 3 * * *',
    description: 'Cron schedule of the manual reindex (empty disables)',
    sensitive: false,
    group: 'scheduler',
  },
  REINDEX_QA_CRON: {
    schema: cron,
    emptyIsValue: true,
    default: '30 3 * * *',
    description: 'Cron schedule of the Q&A reindex (empty disables)',
    sensitive: false,
    group: 'scheduler',
  },
  RETENTION_CRON: {
    schema: cron,
    emptyIsValue: true,
    default: '15 4 * * *',
    description: 'Cron schedule of the retention job that drops old raw mail and archives old settled tickets (empty disables)',
    sensitive: false,
    group: 'scheduler',
  },
  RAW_MAIL_RETENTION_DAYS: {
    schema: int(1, 36_500),
    default: '30',
    description: 'Days the raw mail of a settled (sent, rejected or ignored) ticket stays in Redis; the mail itself stays in the IMAP mailbox',
    sensitive: false,
    group: 'scheduler',
  },
  TICKET_RETENTION_DAYS: {
    schema: int(1, 36_500),
    default: '365',
    description: 'Days a settled (sent, rejected or ignored) ticket stays in Redis before it is moved to DATA_DIR/archive/YYYY-MM.jsonl.gz',
    sensitive: false,
    group: 'scheduler',
  },
} satisfies Record<string, VariableSpec>;

type Vars = typeof VARIABLES;
/** The validated configuration, keyed by variable name. */
export type Config = Omit<
  {
    [K in keyof Vars]: Vars[K] extends { default: string }
      ? z.output<Vars[K]['schema']>
      : Vars[K] extends { required: true }
        ? z.output<Vars[K]['schema']>
        : z.output<Vars[K]['schema']> | undefined;
  },
  'SMTP_SECURE'
> & {
  /** Always set: from SMTP_PORT when the variable is unset ({@link parseConfig}). */
  SMTP_SECURE: boolean;
};
export type VariableName = keyof Vars;

/** Thrown when the environment does not validate; `problems` names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads `.env` from `dir` (if present); the caller's environment wins over it. `HELPDESK_ENV_FILE` names another
 * file instead, or `none` for no file at all: the test suite sets `none`, so a developer's own `.env` (a dashboard
 * password, a real model's key) never changes what a test sees.
 */
export function readEnvFile(dir = process.cwd(), env: Record<string, string | undefined> = process.env): Record<string, string> {
  const choice = env.HELPDESK_ENV_FILE?.trim();
  if (choice === 'none') return {};
  const file = choice ? path.resolve(dir, choice) : path.join(dir, '.env');
  return existsSync(file) ? parseDotenv(readFileSync(file)) : {};
}

/** Groups of variables (see {@link VariableSpec.group}). */
export type VariableGroup = VariableSpec['group'];

/** Options of {@link parseConfig}. */
export interface ParseConfigOptions {
  /**
   * The groups the command uses. A bad value elsewhere does not stop it (`IMAP_PORT=abc` must not stop
   * `npm run search`): such a variable falls back to its default. Default: every group.
   */
  groups?: readonly VariableGroup[];
}

/**
 * Validates an environment into a {@link Config}. Empty strings count as unset. Collects every problem before
 * throwing one {@link ConfigError}, each in our words with the value shown (secrets masked: only the password of a
 * URL, so a typo in the host stays visible).
 */
export function parseConfig(env: Record<string, string | undefined>, options: ParseConfigOptions = {}): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  const checked = (spec: VariableSpec): boolean => !options.groups || spec.group === 'core' || options.groups.includes(spec.group);
  for (const [name, spec] of Object.entries(VARIABLES) as [string, VariableSpec][]) {
    const names = [name, ...(spec.aliases ?? [])];
    const given = names.map((n) => env[n]).filter((v): v is string => v !== undefined);
    const rawGiven = given.find((v) => v.trim() !== '') ?? (spec.emptyIsValue && given.length > 0 ? '' : undefined);
    const raw = rawGiven?.trim() ?? spec.default;
    if (raw === undefined) {
      if (spec.required && checked(spec)) problems.push(`${name} is required: ${spec.description}`);
      out[name] = undefined;
      continue;
    }
    const parsed = spec.schema.safeParse(raw);
    if (parsed.success) out[name] = parsed.data;
    else if (checked(spec)) problems.push(`${name}=${shownValue(raw, spec)} ${parsed.error.issues.map(describeIssue).join('; ')}`);
    else out[name] = spec.default === undefined ? undefined : spec.schema.parse(spec.default);
  }
  // Port 465 is TLS from the start (RFC 8314), as nodemailer assumes when `secure` is unset: the default `false` there
  // waited for a plain-text greeting that never comes. A value given wins.
  out.SMTP_SECURE ??= out.SMTP_PORT === 465;
  if (out.CHUNK_OVERLAP !== undefined && out.CHUNK_SIZE !== undefined && (out.CHUNK_OVERLAP as number) >= (out.CHUNK_SIZE as number)) {
    problems.push('CHUNK_OVERLAP must be smaller than CHUNK_SIZE');
  }
  if (out.TRUST_MIN_REVIEWS !== undefined && out.TRUST_WINDOW !== undefined && (out.TRUST_MIN_REVIEWS as number) > (out.TRUST_WINDOW as number)) {
    problems.push('TRUST_MIN_REVIEWS must not exceed TRUST_WINDOW (no source could ever be trusted)');
  }
  if (typeof out.IMAP_PROCESSED_MAILBOX === 'string' && typeof out.IMAP_MAILBOX === 'string' && sameMailbox(out.IMAP_PROCESSED_MAILBOX, out.IMAP_MAILBOX)) {
    // Moving a mail into the folder being watched gives it a new UID, which looks like new mail: syncs without end.
    problems.push(`IMAP_PROCESSED_MAILBOX must not be IMAP_MAILBOX (${out.IMAP_MAILBOX}): processed mail would come back as new mail`);
  }
  if (out.MAIL_AUTH === 'oauth2' && checked(VARIABLES.MAIL_AUTH)) {
    // A value given but invalid is already named above.
    const missing = (['MAIL_OAUTH2_TOKEN_URL', 'MAIL_OAUTH2_CLIENT_ID'] as const).filter((n) => out[n] === undefined && !problems.some((p) => p.startsWith(`${n}=`)));
    for (const name of missing) problems.push(`${name} is required with MAIL_AUTH=oauth2: ${VARIABLES[name].description.replace(/^MAIL_AUTH=oauth2: /, '')}`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as Config;
}

/** Two mailbox names name the same folder: INBOX in any case (RFC 3501), any other name exactly. */
function sameMailbox(a: string, b: string): boolean {
  return a === b || (a.toUpperCase() === 'INBOX' && b.toUpperCase() === 'INBOX');
}

/** A value as an error message may show it: secrets masked, but a URL keeps everything except its password. */
export function shownValue(raw: string, spec: Pick<VariableSpec, 'sensitive'>): string {
  const url = /^([a-z][a-z0-9+.-]*:\/\/)(?:([^@/]*)@)?/i.exec(raw);
  // A URL of a variable that is no secret may still carry one (a proxy's password in MEILI_HOST): masked the same way.
  if (!url) return spec.sensitive ? '***' : JSON.stringify(raw);
  if (url[2] === undefined) return JSON.stringify(raw);
  const colon = url[2].indexOf(':');
  const userinfo = colon >= 0 ? `${url[2].slice(0, colon)}:***` : '***';
  return JSON.stringify(`${url[1]}${userinfo}@${raw.slice(url[0].length)}`);
}

/** One validation problem in our words rather than the schema library's. */
function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'number' ? 'is not a number' : `is not a ${issue.expected}`;
    case 'too_small':
      return issue.origin === 'string' ? `is too short (at least ${String(issue.minimum)} characters)` : `is too small: the least allowed is ${String(issue.minimum)}`;
    case 'too_big':
      return issue.origin === 'string' ? `is too long (at most ${String(issue.maximum)} characters)` : `is too large: the most allowed is ${String(issue.maximum)}`;
    case 'invalid_value':
      return `is not one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'is not a URL (scheme://host[:port]…)' : `is not a valid ${issue.format}`;
    default:
      // Our own refinements (cron, lists…) carry their message.
      return issue.message.startsWith('must') || issue.message.startsWith('is') ? issue.message : `is invalid: ${issue.message}`;
  }
}

/**
 * The `TZ` this process runs under, as written (a POSIX rule such as `JST-9` included, which ICU cannot name): the
 * desk's zone is read from it (src/tickets/local-day.ts). {@link loadConfig} applies a `TZ` from `.env` to it.
 */
export function processTimeZoneSetting(): string | undefined {
  return process.env.TZ;
}

/**
 * Process environment over `.env` in the working directory. A `TZ` from `.env` is checked and becomes the process's
 * time zone when the process was started without one. A `TZ` that names its zone otherwise than ICU does (a POSIX
 * fixed offset such as `JST-9` or `IST-5:30`, an alias such as `JST`, `:Asia/Tokyo`) is then rewritten to the zone
 * the desk reads from it ({@link nameProcessTimeZone}).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, dir = process.cwd(), options: ParseConfigOptions = {}): Config {
  const fromFile = readEnvFile(dir, env);
  // A TZ the process was started with is Node's own and wins: it is not checked here, since a system may set a
  // POSIX rule or `:/etc/localtime`, which Node applies though Intl cannot name it (the scheduler warns about those).
  const startedWithZone = Boolean(env.TZ?.trim() || process.env.TZ?.trim());
  const config = parseConfig({ ...fromFile, ...env, TZ: startedWithZone ? undefined : fromFile.TZ }, options);
  // Node takes its zone from process.env.TZ alone (and reads it again when it is assigned), so a TZ written in .env
  // changed nothing outside Compose, whose file passes it to the container: the schedules, the dates quoted in
  // replies and the review page's times stayed in the machine's zone.
  if (config.TZ !== undefined) process.env.TZ = config.TZ;
  nameProcessTimeZone();
  return config;
}

/**
 * Sets `process.env.TZ` to the zone the desk's resolver names for it when Date or Intl would read it otherwise
 * ({@link processZoneFor}): `JST-9` → `Etc/GMT-9`, `IST-5:30` → `Asia/Kolkata`, `JST` or `:Asia/Tokyo` → `Asia/Tokyo`. Node reads TZ again when it is assigned, and
 * ICU and Date read such a value each their own way (`IST-5:30` as UTC in both, `JST` as Asia/Tokyo in Intl but UTC
 * in Date), so the schedules' cron, the dates quoted in replies and the outcome days were in UTC while the dashboard,
 * the CLI and the insights read +5:30 or +9. An unknown `TZ` is left as it is: `npm run check` warns about it.
 */
export function nameProcessTimeZone(): void {
  const tz = process.env.TZ;
  const zone = processZoneFor(tz);
  if (zone === undefined) return;
  process.env.TZ = zone;
  // logger.ts imports this module, so the logger is loaded once this call has returned, by which time the entry
  // point has configured it (configureLogging follows loadConfig). Once: the rewritten TZ is rewritten no more. At
  // debug: every CLI run would print it, and `npm run eval` writes its log to stdout.
  void import('./logger.js')
    .then(({ createLogger }) => createLogger('config').debug({ tz, zone }, `TZ=${tz ?? ''} read as ${zone}`))
    .catch(() => undefined);
}

/**
 * Fails with one message naming every missing variable a role needs (e.g. the poller needs IMAP_HOST).
 */
export function requireVariables(config: Config, names: VariableName[], role: string): void {
  requireRoleVariables(config, [{ names, role }]);
}

/**
 * What a role's names ask for under MAIL_AUTH: with oauth2, a mailbox login needs no IMAP_PASSWORD but the token
 * settings (the client secret unless a refresh token is given: the client_credentials grant authenticates the
 * application with it, RFC 6749 §4.4).
 */
export function loginVariables(config: Partial<Pick<Config, 'MAIL_AUTH' | 'MAIL_OAUTH2_REFRESH_TOKEN'>>, names: VariableName[]): VariableName[] {
  if (config.MAIL_AUTH !== 'oauth2') return names;
  const oauth2: VariableName[] = ['MAIL_OAUTH2_TOKEN_URL', 'MAIL_OAUTH2_CLIENT_ID', ...(config.MAIL_OAUTH2_REFRESH_TOKEN ? [] : ['MAIL_OAUTH2_CLIENT_SECRET' as const])];
  return names.flatMap((n) => (n === 'IMAP_PASSWORD' ? oauth2 : [n]));
}

/** One line per variable of `names` the role needs and `config` lacks. */
function missingVariables(config: Config, names: VariableName[], role: string): string[] {
  // The description's own "(required by the sender)" would say it twice.
  return loginVariables(config, names)
    .filter((n) => config[n] === undefined || config[n] === '')
    .map((n) => `${n} is required by the ${role}: ${VARIABLES[n].description.replace(/\s*\(required by [^)]*\)$/, '').replace(/^MAIL_AUTH=oauth2: /, 'with MAIL_AUTH=oauth2, ')}`);
}

/**
 * {@link requireVariables} for several roles at once (a process that runs them all): one message naming every
 * missing variable, rather than one role's at a time as each starts.
 */
export function requireRoleVariables(config: Config, roles: ReadonlyArray<{ names: VariableName[]; role: string }>): void {
  const problems = roles.flatMap(({ names, role }) => missingVariables(config, names, role));
  if (problems.length > 0) throw new ConfigError(problems);
}

/** The configuration with sensitive values masked, for logs and `--print-config`. */
export function redactConfig(config: Config): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([k, v]) => [k, (VARIABLES as Record<string, VariableSpec>)[k]?.sensitive && v ? '***' : v]),
  );
}

/**
 * Variables without a default that a role will not start without: the poller's mailbox login (POLLER_VARIABLES), the
 * sender's server and From (SENDER_VARIABLES), the dashboard's password (unless DASHBOARD_AUTH=off) and, with
 * MAIL_AUTH=oauth2, the token request's settings (loginVariables). `.env.example` labelled them "optional" beside
 * "(required by the poller)", which read as a contradiction to a newcomer.
 */
const REQUIRED_BY_A_ROLE: ReadonlySet<string> = new Set([
  'IMAP_HOST',
  'IMAP_USER',
  'IMAP_PASSWORD',
  'SMTP_HOST',
  'MAIL_FROM',
  'DASHBOARD_PASSWORD',
  'MAIL_OAUTH2_TOKEN_URL',
  'MAIL_OAUTH2_CLIENT_ID',
  'MAIL_OAUTH2_CLIENT_SECRET',
] satisfies VariableName[]);

/** `.env.example` text generated from {@link VARIABLES}. */
export function renderEnvExample(): string {
  const lines = [
    '# helpdesk-worker configuration. Generated from src/config.ts by `npm run env:example`; do not edit by hand.',
    '# Copy to .env and fill in. The process environment overrides .env. Lines starting with # are off.',
    '',
  ];
  let group = '';
  for (const [name, spec] of Object.entries(VARIABLES) as [string, VariableSpec][]) {
    if (spec.group !== group) {
      group = spec.group;
      lines.push(`## ${group}`);
    }
    const flags = [spec.required ? 'required' : spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : REQUIRED_BY_A_ROLE.has(name) ? 'empty by default' : 'optional'];
    if (spec.sensitive) flags.push('sensitive');
    lines.push(`# ${spec.description} (${flags.join(', ')})`);
    lines.push(spec.default !== undefined || spec.required ? `${name}=${spec.default ?? ''}` : `# ${name}=`);
    for (const alias of spec.aliases ?? []) lines.push(`# ${alias}=   (older name of ${name}, also accepted)`);
    lines.push('');
  }
  return lines.join('\n');
}

/** The README's configuration table (between `<!-- config:start -->` and `<!-- config:end -->`), from {@link VARIABLES}. */
export function renderConfigTable(): string {
  const rows = (Object.entries(VARIABLES) as [string, VariableSpec][]).map(([name, spec]) => {
    const names = [name, ...(spec.aliases ?? [])].map((n) => `\`${n}\``).join(' / ');
    const def = spec.required ? 'required' : spec.default !== undefined ? (spec.default === '' ? '(empty)' : `\`${spec.default}\``) : '—';
    return `| ${names} | ${def} | ${spec.sensitive ? 'yes' : ''} | ${spec.description.replaceAll('|', '\\|')} |`;
  });
  return ['| variable | default | secret | meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

/**
 * Loads configuration for a command-line entry point, or prints the one-message error and exits with status 2.
 */
export function loadConfigOrExit(options: ParseConfigOptions = {}): Config {
  try {
    return loadConfig(process.env, process.cwd(), options);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
