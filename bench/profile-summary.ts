/**
 * Summarises `.cpuprofile` files written by `npm run bench -- --cpu-prof DIR`: self time by package (or source
 * directory of this repository) and the top functions, so a CPU figure can be traced to where the time goes.
 *
 *   npx tsx bench/profile-summary.ts DIR/agent-worker-c32-1/CPU.*.cpuprofile [--top 25] [--from SECONDS]
 *
 * `--from` skips the first seconds of the profile (process start: module loading under tsx).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' }, from: { type: 'string', default: '0' } }, allowPositionals: true });

for (const file of positionals) {
  const profile = JSON.parse(await readFile(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  // Inclusive time per package: a sample counts once for every package on its stack.
  const inclusive = new Map<string, number>();
  const skipUs = Number(values.from) * 1e6;
  let at = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (at < skipUs) return;
    self.set(id, (self.get(id) ?? 0) + dt);
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') return;
    const onStack = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const f = byId.get(n)!.callFrame;
      if (f.url) onStack.add(groupOf(f.url, f.functionName));
    }
    for (const g of onStack) inclusive.set(g, (inclusive.get(g) ?? 0) + dt);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = [...self].filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)!.callFrame.functionName)).reduce((a, [, t]) => a + t, 0);
  const busy = total - idle;
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, t] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)' || functionName === '(program)') continue;
    groups.set(groupOf(url, functionName), (groups.get(groupOf(url, functionName)) ?? 0) + t);
    const key = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
    functions.set(key, (functions.get(key) ?? 0) + t);
  }
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %  ${(t / 1000).toFixed(0).padStart(6)} ms`;
  process.stdout.write(`\n${file}\nbusy ${(busy / 1000).toFixed(0)} ms of ${(total / 1000).toFixed(0)} ms sampled\n\nself time by package:\n`);
  for (const [g, t] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 20)) process.stdout.write(`  ${pct(t)}  ${g}\n`);
  process.stdout.write('\ntime with the package on the stack (inclusive):\n');
  for (const [g, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 20)) process.stdout.write(`  ${pct(t)}  ${g}\n`);
  process.stdout.write('\ntop functions (self):\n');
  for (const [f, t] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) process.stdout.write(`  ${pct(t)}  ${f}\n`);
}

function groupOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return url;
  const repo = /\/(src|jobs|workers|bench|test)\/([^/]+)/.exec(url);
  return repo ? `${repo[1]}/${repo[2]}` : url;
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '').replace(/^.*\/(src|jobs|workers|bench|test)\//, '$1/');
}
