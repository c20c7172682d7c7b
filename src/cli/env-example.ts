/** `npm run env:example`: writes `.env.example` from the variable table in src/config.ts. */
import { writeFileSync } from 'node:fs';
import { renderEnvExample } from '../config.js';

writeFileSync('.env.example', renderEnvExample());
process.stdout.write('wrote .env.example\n');
