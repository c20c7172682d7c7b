import { createHelpDeskAgent } from './src/agent/create-agent.js';
import { parseConfig } from './src/config.js';
import { createSearchBackends } from './src/search/factory.js';
import { TWO_TOPIC_QUESTION } from './test/support/scripted-model.js';
import { sampleKnowledge, sampleKnowledgeEnv } from './bench/lib/sample-kb.js';
import { configureLogging } from './src/logger.js';
configureLogging('warn', { stream: 'stderr' });
const ctx: any = { tmp: '/tmp/exp', log: () => {}, memo: new Map(), quick: false };
const dataDir = await sampleKnowledge(ctx);
const config = parseConfig({ ...sampleKnowledgeEnv(dataDir), LOG_LEVEL: 'warn', OPENAI_BASE_URL: 'http://127.0.0.1:18998/v1', OPENAI_API_KEY: 'x' });
const agent = createHelpDeskAgent(config, createSearchBackends(config));
const batch = async (n: number, c: number) => { for (let i = 0; i < n; i += c) await Promise.all(Array.from({ length: c }, () => agent.runAgent(TWO_TOPIC_QUESTION))); };
for (let r = 0; r < Number(process.argv[3] ?? 10); r++) {
  const c0 = process.cpuUsage();
  await batch(320, 32);
  const c = process.cpuUsage(c0);
  (globalThis as any).gc?.();
  const m = process.memoryUsage();
  console.log('round', r, 'agent cpu/run', ((c.user + c.system) / 1000 / 320).toFixed(2), 'ms', 'heapUsed', (m.heapUsed / 2 ** 20).toFixed(1), 'rss', (m.rss / 2 ** 20).toFixed(0));
}
process.exit(0);
