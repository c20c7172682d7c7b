/**
 * `npm run build`: the long-running roles as plain JavaScript in `dist/`, one file per source file (no bundle), so
 * `node dist/workers/<role>.js` runs the same modules as `node --import tsx workers/<role>.ts`.
 *
 * Why the roles do not run under tsx like the commands: tsx compiles through Node's module hooks, which on Node 20
 * run on a loader thread with a V8 isolate of its own, about 50 MB of resident memory for the life of the process.
 * The agent worker's memory target (300 MB at concurrency 32) does not leave room for it.
 *
 * esbuild only strips types (a fraction of a second, so every role script builds before it starts and never runs
 * stale code); `npm test` type-checks with tsc. Each file is written to a temporary name and renamed over the old
 * one, so a role starting while another build runs never reads half a file. Plain JavaScript, so it runs without tsx.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outdir = path.join(root, 'dist');

const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/**/*.ts', 'workers/**/*.ts', 'jobs/**/*.ts'],
  outdir,
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Keep the sources' shape: no bundling, no renaming, readable stack traces.
  bundle: false,
  minify: false,
  keepNames: true,
  write: false,
  logLevel: 'warning',
});

await Promise.all(
  result.outputFiles.map(async (file) => {
    await mkdir(path.dirname(file.path), { recursive: true });
    const temporary = `${file.path}.${process.pid}.tmp`;
    await writeFile(temporary, file.contents);
    await rename(temporary, file.path);
  }),
);
