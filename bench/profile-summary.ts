// `npm run bench:profile -- <file.cpuprofile> [top]`: the top entries of a CPU profile written by
// BENCH_CPU_PROFILE, by self time (function and file) and by the share of time spent under our own modules,
// so BENCHMARKS.md can say where a path's time goes without opening DevTools. Given a .heapprofile
// (BENCH_HEAP_PROFILE=1), the same for the bytes allocated, and the bytes allocated under each of our functions.
import fs from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples?: number[];
  timeDeltas?: number[];
}

function shortUrl(url: string): string {
  if (!url) return '(native)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('node_modules/');
  if (nm >= 0) return clean.slice(nm + 'node_modules/'.length);
  const src = clean.indexOf('/src/');
  if (src >= 0) return clean.slice(src + 1);
  const bench = clean.indexOf('/bench/');
  if (bench >= 0) return clean.slice(bench + 1);
  return path.basename(clean);
}

/** Package or top folder of a frame: fastify, typebox, pglite, src/refunds, node:internal … */
function groupOf(url: string): string {
  const s = shortUrl(url);
  if (s.startsWith('src/')) return s.split('/').slice(0, 2).join('/');
  if (s.startsWith('node:') || !s.includes('/')) return s.startsWith('node:') ? 'node' : s;
  const parts = s.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

/** A frame as the summaries name it: function, file and line. */
function frameKey(frame: ProfileNode['callFrame']): string {
  return `${frame.functionName || '(anonymous)'}  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
}

/** `part` as a share of `total`, padded for a column. */
function share(part: number, total: number): string {
  return `${((100 * part) / total).toFixed(1).padStart(5)} %`;
}

export function summarize(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let total = 0;
  for (let i = 0; i < samples.length; i++) {
    const dt = Math.max(0, deltas[i] ?? 0);
    self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + dt);
    total += dt;
  }
  const fnSelf = new Map<string, number>();
  const groupSelf = new Map<string, number>();
  let idle = 0;
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName || '(anonymous)';
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      if (name === '(idle)') idle += t;
      fnSelf.set(name, (fnSelf.get(name) ?? 0) + t);
      continue;
    }
    const key = frameKey(n.callFrame);
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + t);
    const g = groupOf(n.callFrame.url);
    groupSelf.set(g, (groupSelf.get(g) ?? 0) + t);
  }
  const pct = (t: number) => share(t, total);
  const lines: string[] = [];
  lines.push(`total ${(total / 1e6).toFixed(2)} s sampled, idle ${pct(idle).trim()}`);
  lines.push('', 'self time by package / source folder:');
  for (const [g, t] of [...groupSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t)}  ${g}`);
  lines.push('', 'self time by function:');
  for (const [f, t] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) lines.push(`  ${pct(t)}  ${f}`);
  return lines.join('\n');
}

interface AllocationNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: AllocationNode[];
}

/** A sampling heap profile (garbage included): bytes allocated by package, by function, and under our functions. */
export function summarizeAllocations(profile: { head: AllocationNode }, top: number): string {
  const selfBy = new Map<string, number>();
  const groupBy = new Map<string, number>();
  const under = new Map<string, number>();
  let total = 0;
  // Iteratively (deep stacks): each node with the set of our own functions above it.
  const stack: Array<{ node: AllocationNode; ours: ReadonlySet<string> }> = [{ node: profile.head, ours: new Set() }];
  while (stack.length > 0) {
    const { node, ours: above } = stack.pop()!;
    const key = frameKey(node.callFrame);
    const ours = shortUrl(node.callFrame.url).startsWith('src/') && !above.has(key) ? new Set([...above, key]) : above;
    const bytes = node.selfSize;
    total += bytes;
    selfBy.set(key, (selfBy.get(key) ?? 0) + bytes);
    const g = groupOf(node.callFrame.url);
    groupBy.set(g, (groupBy.get(g) ?? 0) + bytes);
    for (const k of ours) under.set(k, (under.get(k) ?? 0) + bytes);
    for (const child of node.children) stack.push({ node: child, ours });
  }
  const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, b]) => `  ${share(b, total)}  ${k}`);
  return [
    `total ${(total / 1e6).toFixed(1)} MB allocated (sampled, collected objects included)`,
    '',
    'self bytes by package / source folder:',
    ...list(groupBy),
    '',
    'self bytes by function:',
    ...list(selfBy),
    '',
    'bytes allocated under our functions (inclusive):',
    ...list(under),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [file, topArg] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npm run bench:profile -- <file.cpuprofile | file.heapprofile> [top entries, default 25]');
    process.exit(2);
  }
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile | { head: AllocationNode };
  const top = Number(topArg ?? 25);
  console.log('head' in parsed ? summarizeAllocations(parsed, top) : summarize(parsed, top));
}
