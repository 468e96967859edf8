// npm run rbac:render            writes what derives from the registered watch descriptors: infra/k8s/*.yaml (the
//                                 roles of shared/controllers/roles.ts) and shared/kube/kinds-generated.ts
// npm run rbac:render -- --check  exits 1 naming each file that differs from what would be written
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESCRIPTORS } from '../../shared/controllers/index.js';
import { KINDS_GENERATED_FILE, renderKinds } from '../../shared/controllers/kinds-render.js';
import { manifestFiles, renderFile } from './manifests.js';

const dir = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
const files = [
  ...manifestFiles().map((f) => ({ path: join(dir, f.file), text: renderFile(f) })),
  { path: resolve(dir, '..', '..', KINDS_GENERATED_FILE), text: renderKinds(DESCRIPTORS) },
];
for (const { path, text } of files) {
  const current = (() => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  })();
  if (current === text) continue;
  if (check) {
    console.error(`${path}: differs from what the registered descriptors render (npm run rbac:render)`);
    stale++;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
