/**
 * Process entry of the dashboard (`npm run dashboard`): the review page, the JSON API, Bull Board, health and
 * metrics on DASHBOARD_PORT. Wiring and shutdown only; see `src/runtime/dashboard.ts`.
 */
import { runProcess } from '../src/runtime/main.js';
import { startDashboardRole } from '../src/runtime/dashboard.js';

await runProcess('dashboard', (services, config) => [() => startDashboardRole(config, { services })]);
