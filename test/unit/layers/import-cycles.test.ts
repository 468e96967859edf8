// No import cycles among the modules of shared/ and functions/: every import counts (type-only ones, re-exports
// and dynamic import() too), so a module and what it imports can always be read, tested and moved bottom up.
// The layer order between folders is eslint.config.js's (no-restricted-imports); this covers the modules
// within a folder as well. The graph is read with the TypeScript compiler's import scanner.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The module a relative specifier names ('./x.js' → x.ts, './dir' → dir/index.ts), or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c));
}

/** Module → the modules of the graph it imports (paths relative to the repository). */
function moduleGraph(folders: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((f) => tsFiles(join(ROOT, f)))) {
    const imported = ts
      .preProcessFile(readFileSync(file, 'utf8'), true, true)
      .importedFiles.map((i) => i.fileName)
      .filter((s) => s.startsWith('.'))
      .flatMap((s) => resolveSpecifier(file, s) ?? []);
    graph.set(relative(ROOT, file), [...new Set(imported.map((f) => relative(ROOT, f)))]);
  }
  for (const [from, to] of graph) graph.set(from, to.filter((t) => graph.has(t)).sort());
  return graph;
}

/** Each cycle once, as the path from its first module (in sorted order) back to it. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of two or more modules (or one importing itself) holds
  // a cycle, shown as one shortest path around it.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(shortestCycle(graph, component));
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return found;
}

function shortestCycle(graph: ReadonlyMap<string, readonly string[]>, component: string[]): string[] {
  const inside = new Set(component);
  const start = [...component].sort()[0]!;
  const before = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!inside.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(before.get(path[0]!)!);
        return [...path, start];
      }
      if (!before.has(w)) {
        before.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

describe('import cycles', () => {
  it('finds a cycle, and only a cycle', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
      ['e', ['e']],
    ]);
    expect(cycles(graph)).toEqual([
      ['a', 'b', 'c', 'a'],
      ['e', 'e'],
    ]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('reads the imports of the project, type-only and dynamic ones included', () => {
    const graph = moduleGraph(['shared', 'functions']);
    expect(graph.get('shared/kube/rest.ts')).toContain('shared/kube/errors.ts');
    expect(graph.get('shared/runtime/registry-watch.ts')).toContain('shared/kube/registry.ts'); // `import type`
    expect(graph.get('functions/cli/process-run.ts')).toContain('functions/all-in-one.ts'); // `await import('../all-in-one.js')`
  });

  it('shared/ and functions/ have none', () => {
    expect(cycles(moduleGraph(['shared', 'functions'])).map((c) => c.join(' → '))).toEqual([]);
  });
});
