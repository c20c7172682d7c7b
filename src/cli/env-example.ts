/**
 * `npm run env:example`: regenerates `.env.example` and the README's configuration table from the variable table in
 * src/config.ts, so neither can drift from the code (a unit test compares them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { renderConfigTable, renderEnvExample } from '../config.js';

const START = '<!-- config:start -->';
const END = '<!-- config:end -->';
const USAGE = 'usage: npm run env:example\n\nRewrites .env.example and the configuration table in README.md from the variables in src/config.ts.\n';

let help: boolean | undefined;
try {
  ({ help } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } }).values);
} catch (err) {
  process.stderr.write(`env:example: ${(err as Error).message}\n${USAGE}`);
  process.exit(2);
}
if (help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

writeFileSync('.env.example', renderEnvExample());
const readme = readFileSync('README.md', 'utf8');
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from < 0 || to < from) throw new Error(`README.md lacks the ${START} … ${END} markers`);
writeFileSync('README.md', `${readme.slice(0, from + START.length)}\n${renderConfigTable()}\n${readme.slice(to)}`);
process.stdout.write('wrote .env.example and the README configuration table\n');
