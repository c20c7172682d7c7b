/**
 * Process entry of the agent worker (`npm run agent-worker`): answers tickets (reindex jobs run in the scheduler role). Wiring and
 * shutdown only; see `src/runtime/agent-worker.ts`.
 */
import { startAgentWorker } from '../src/runtime/agent-worker.js';
import { runProcess } from '../src/runtime/main.js';

await runProcess('agent-worker', (services) => [() => startAgentWorker(services)]);
