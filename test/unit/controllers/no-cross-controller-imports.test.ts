// A controller's folder (shared/controllers/<kind>/) imports only from itself, from the shared folders (common/,
// pod-utils/) and from outside shared/controllers/<folder>/; what two controllers share lives in common/. The shared
// folders import no controller's folder.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const CONTROLLERS = join(ROOT, 'shared', 'controllers');
const SHARED_FOLDERS = new Set(['common', 'pod-utils']);

/** The module specifiers of a source's import and export-from statements, dynamic imports included. */
export function specifiersOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const p of patterns) for (const m of code.matchAll(p)) found.push(m[1]!);
  return found;
}

/** The first folder under shared/controllers/ of a path inside it; undefined for a top-level file or outside. */
function folderOf(path: string): string | undefined {
  const rel = relative(CONTROLLERS, path);
  if (rel.startsWith('..')) return undefined;
  const parts = rel.split(sep);
  return parts.length > 1 ? parts[0] : undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

type Edge = { readonly from: string; readonly to: string };

/** Imports from one folder of shared/controllers/ into another, as paths relative to shared/controllers/. */
function crossFolderImports(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(CONTROLLERS)) {
    const from = folderOf(file);
    if (from === undefined) continue; // the registry and the shared types at the top level
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      edges.push({ from: relative(CONTROLLERS, file), to: relative(CONTROLLERS, target) });
    }
  }
  return edges;
}

function isAllowed(e: Edge): boolean {
  // Into a shared folder; never one controller's folder into another's, nor a shared folder into a controller's.
  return SHARED_FOLDERS.has(e.to.split(sep)[0]!);
}

describe('no controller imports another controller’s folder', () => {
  it('finds the import statements it is meant to judge (the scanner sees them)', () => {
    expect(
      specifiersOf(
        [
          "import { a } from '../deployment/x.js';",
          "import type { B } from '../job/types.js';",
          'import {\n  c,\n  d,\n} from "../daemonset/y.js";',
          "export { e } from '../statefulset/z.js';",
          "export * from '../replicaset/w.js';",
          "import '../cronjob/side-effect.js';",
          "const m = await import('../ttl-after-finished/lazy.js');",
          "// import { no } from '../comment/only.js';",
          "/* import { no } from '../block/comment.js'; */",
        ].join('\n'),
      ),
    ).toEqual([
      '../deployment/x.js',
      '../job/types.js',
      '../daemonset/y.js',
      '../statefulset/z.js',
      '../replicaset/w.js',
      '../cronjob/side-effect.js',
      '../ttl-after-finished/lazy.js',
    ]);
  });

  it('controllers reach one another only through common/ and pod-utils/', () => {
    const edges = crossFolderImports();
    // Not vacuous: the controllers do import the shared folders.
    expect(edges.filter((e) => e.to.startsWith(`common${sep}`)).length).toBeGreaterThan(10);
    expect(edges.filter((e) => !isAllowed(e)).map((e) => `${e.from} → ${e.to}`)).toEqual([]);
  });
});
