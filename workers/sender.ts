/**
 * Process entry of the sender (`npm run sender`): mails drafted and approved replies. Wiring and shutdown only;
 * see `src/runtime/sender.ts`.
 */
import { runProcess } from '../src/runtime/main.js';
import { startSender } from '../src/runtime/sender.js';

await runProcess('sender', (services) => [() => startSender(services)]);
