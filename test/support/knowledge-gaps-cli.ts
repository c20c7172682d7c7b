/**
 * Test-only entry of `gaps` until the `knowledge` command line registers it: `tsx test/support/knowledge-gaps-cli.ts
 * gaps [--json] [--all]` runs the command exactly as `npm run knowledge -- gaps` will.
 */
import { Command } from 'commander';
import { registerGapsCommand } from '../../src/cli/knowledge-gaps.js';

const program = new Command('knowledge').showHelpAfterError();
registerGapsCommand(program);
await program.parseAsync();
