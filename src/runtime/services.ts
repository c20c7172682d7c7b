/**
 * What the roles of one process share, built from a {@link Config} lazily (a sender never loads the search
 * indexes, an agent worker never opens SMTP) and closed with one {@link Services.close}.
 *
 * Redis connections follow BullMQ's production guide: one worker connection (`maxRetriesPerRequest: null`, waits
 * through outages; BullMQ duplicates it for its blocking commands) shared by every Worker of the process, and one
 * fail-fast producer connection for queue adds, the ticket store, the raw mail and the rate limit. The producer is
 * handed out only once it is ready (queues built on a connection that is still connecting stay broken); while Redis
 * cannot be reached the connection's retry strategy logs one line per attempt naming the (masked) server.
 */
import type { Redis } from 'ioredis';
import type { HelpDeskAgent } from '../agent/agent.js';
import { createHelpDeskAgent } from '../agent/create-agent.js';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../logger.js';
import { createSmtpTransport, type SmtpTransport } from '../mail/smtp-transport.js';
import { checkEvictionPolicy, createProducerConnection, createWorkerConnection, describeRedis, waitForReady } from '../queues/connection.js';
import { DEFAULT_TUNING, type JobTuning } from '../queues/job-options.js';
import { closeAll, createQueues, type Queues } from '../queues/registry.js';
import { LearnedAnswerStore, learnedPairSource } from '../knowledge/learned-answers.js';
import { createSearchBackends, type SearchBackends } from '../search/factory.js';
import { TicketStore } from '../tickets/ticket-store.js';

/** Options of {@link Services}. */
export interface ServicesOptions {
  logger?: Logger;
  /** Backoff of the jobs this process adds; tests shorten it. */
  tuning?: JobTuning;
  /** Name shown in Redis `CLIENT LIST` (`<prefix>:<name>:worker` / `:producer`). */
  processName?: string;
}

/** Thrown by the getters once {@link Services.close} has begun. */
export class ServicesClosedError extends Error {
  constructor(what: string) {
    super(`${what}: the process is shutting down`);
    this.name = 'ServicesClosedError';
  }
}

/** Shared, lazily built resources of one process; see the module comment. */
export class Services {
  readonly config: Config;
  readonly logger: Logger;
  readonly tuning: JobTuning;
  /** The Redis server as it may be logged (password masked). */
  readonly redisWhere: string;
  private readonly processName: string;
  private closed = false;
  private workerRedis?: Redis;
  private producerRedis?: Redis;
  private producerReady?: Promise<Redis>;
  private ticketStore?: TicketStore;
  private queueSet?: Queues;
  private searchBackends?: SearchBackends;
  private helpDeskAgent?: HelpDeskAgent;
  private smtpTransport?: SmtpTransport;

  constructor(config: Config, options: ServicesOptions = {}) {
    this.config = config;
    this.logger = options.logger ?? createLogger('services');
    this.tuning = options.tuning ?? DEFAULT_TUNING;
    this.processName = options.processName ?? 'helpdesk';
    this.redisWhere = describeRedis(config.REDIS_URL);
  }

  /** True once {@link close} was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** The connection every BullMQ Worker of the process shares. */
  workerConnection(): Redis {
    this.assertOpen('worker connection');
    this.workerRedis ??= createWorkerConnection(this.config.REDIS_URL, {
      logger: this.logger,
      name: `${this.config.QUEUE_PREFIX}:${this.processName}:worker`,
    });
    return this.workerRedis;
  }

  /**
   * The fail-fast producer connection, once Redis answers. While it does not, this waits (the connection keeps
   * reconnecting and logs each attempt) until Redis is back or the process shuts down. On first contact the
   * eviction policy is checked: anything but `noeviction` can silently delete queued jobs and tickets.
   */
  producer(): Promise<Redis> {
    this.assertOpen('producer connection');
    this.producerReady ??= (async () => {
      const redis = createProducerConnection(this.config.REDIS_URL, {
        logger: this.logger,
        name: `${this.config.QUEUE_PREFIX}:${this.processName}:producer`,
      });
      this.producerRedis = redis;
      for (;;) {
        try {
          await waitForReady(redis, 10_000);
          break;
        } catch (err) {
          if (this.closed) throw new ServicesClosedError('producer connection');
          this.logger.warn({ redis: this.redisWhere }, `Still waiting for Redis at ${this.redisWhere}: ${(err as Error).message}`);
        }
      }
      this.logger.info({ redis: this.redisWhere }, `Connected to Redis at ${this.redisWhere}`);
      await checkEvictionPolicy(redis, this.logger);
      return redis;
    })();
    return this.producerReady;
  }

  /** The ticket store on the producer connection. */
  async store(): Promise<TicketStore> {
    const redis = await this.producer();
    this.ticketStore ??= new TicketStore(redis, { prefix: this.config.QUEUE_PREFIX });
    return this.ticketStore;
  }

  /** Producer handles of every queue. */
  async queues(): Promise<Queues> {
    const redis = await this.producer();
    if (!this.queueSet) {
      this.queueSet = createQueues(redis, this.config.QUEUE_PREFIX);
      for (const queue of [this.queueSet.tickets, this.queueSet.outbound, this.queueSet.maintenance, this.queueSet.sentcopy]) {
        // Without a listener BullMQ prints each connection error with a stack trace; the connection's retry
        // strategy already reports the outage.
        queue.on('error', (err: Error) => this.logger.debug({ err: err.message }, 'Queue connection error'));
      }
    }
    return this.queueSet;
  }

  /** Manual and Q&A search (no I/O until first use); the Q&A search includes the accepted learned answers. */
  search(): SearchBackends {
    this.assertOpen('search backends');
    this.searchBackends ??= createSearchBackends(this.config, { learned: this.learnedSource() });
    return this.searchBackends;
  }

  /**
   * The accepted learned answers for the embedded Q&A index, read on the producer connection. A search never waits
   * for Redis: while the connection is not up, reading fails and the index answers from its file alone.
   */
  private learnedSource() {
    const store = async () => {
      const redis = this.producerRedis;
      if (redis?.status !== 'ready') {
        if (!this.closed) void this.producer().catch(() => undefined);
        throw new Error(`Redis at ${this.redisWhere} is not connected`);
      }
      return new LearnedAnswerStore(redis, { prefix: this.config.QUEUE_PREFIX });
    };
    return learnedPairSource({ version: async () => (await store()).version(), qaPairs: async () => (await store()).qaPairs() });
  }

  /** The help-desk agent over {@link search}; reads PROMPTS_FILE once, here. */
  agent(): HelpDeskAgent {
    this.assertOpen('agent');
    this.helpDeskAgent ??= createHelpDeskAgent(this.config, this.search(), undefined, createLogger('agent'));
    return this.helpDeskAgent;
  }

  /** The SMTP transport (SMTP_HOST must be set; the sender checks that at start). */
  smtp(): SmtpTransport {
    this.assertOpen('SMTP transport');
    this.smtpTransport ??= createSmtpTransport(this.config);
    return this.smtpTransport;
  }

  /**
   * Closes everything that was built, queues before connections. Idempotent. Workers are not closed here: each role
   * closes its own first (letting active jobs finish), which is why the entry files stop roles before services.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.smtpTransport?.close();
    const closables = [
      ...(this.queueSet ? [this.queueSet] : []),
      ...(this.searchBackends?.manual.close ? [{ close: () => this.searchBackends!.manual.close!() }] : []),
      ...(this.searchBackends?.qa.close ? [{ close: () => this.searchBackends!.qa.close!() }] : []),
    ];
    try {
      await closeAll(...closables);
    } catch (err) {
      this.logger.warn({ err }, 'Some resources did not close cleanly');
    }
    for (const redis of [this.producerRedis, this.workerRedis]) {
      if (!redis || redis.status === 'end') continue;
      // QUIT would wait for a connection that is down (the worker connection queues commands offline); a plain
      // disconnect loses nothing then, since nothing is pending on a connection that is not up.
      if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
      else redis.disconnect();
    }
  }

  private assertOpen(what: string): void {
    if (this.closed) throw new ServicesClosedError(what);
  }
}
