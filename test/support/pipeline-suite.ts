/**
 * One set of pipeline servers for a test file (see pipeline.ts): started before its first test and stopped after its
 * last; after each test the roles it started are stopped and their keys removed, anything else it registered in
 * `cleanups` runs (last first), the SMTP catcher is emptied and the model server answers as the plain scripted model
 * again. A module of its own because it registers vitest hooks, and the benchmark imports pipeline.ts.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { scriptedModel } from '../../src/dev/scripted-model.js';
import { pipelineEnv, removePrefix, startPipelineServers, startRoles, type PipelineServers, type RolesOptions, type RunningRoles } from './pipeline.js';

/** What {@link pipelineSuite} gives a test file. */
export interface PipelineSuite {
  /** The servers; set once the file's first hook ran. */
  readonly servers: PipelineServers;
  /** Run after the current test, last first. */
  readonly cleanups: Array<() => Promise<void>>;
  /** Starts the roles on `pipelineEnv(servers, overrides)` (a fresh prefix), stopped and removed after the test. */
  run(overrides?: Record<string, string>, options?: RolesOptions): Promise<RunningRoles>;
}

/** Registers the file's hooks; call it once at the top level of a test file. */
export function pipelineSuite(): PipelineSuite {
  let servers: PipelineServers | undefined;
  const cleanups: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    servers = await startPipelineServers();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    servers!.smtp.clear();
    servers!.llm.setHandler(scriptedModel());
    servers!.llm.reset();
  });
  afterAll(async () => {
    await servers?.stop();
  });
  return {
    get servers() {
      if (!servers) throw new Error('pipelineSuite: the servers start in beforeAll');
      return servers;
    },
    cleanups,
    async run(overrides = {}, options = {}) {
      const config = parseConfig(pipelineEnv(this.servers, overrides));
      const running = await startRoles(config, options);
      cleanups.push(async () => {
        await running.stop();
        await removePrefix(this.servers.redis.url, config.QUEUE_PREFIX);
      });
      return running;
    },
  };
}
