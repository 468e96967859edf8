// npm run rbac:render            writes infra/k8s/*.yaml from shared/kube/rbac.ts
// npm run rbac:render -- --check  exits 1 naming each file that differs from what would be written
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { manifestFiles, renderFile } from './manifests.js';

const dir = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const f of manifestFiles()) {
  const path = join(dir, f.file);
  const text = renderFile(f);
  const current = (() => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  })();
  if (current === text) continue;
  if (check) {
    console.error(`${path}: differs from shared/kube/rbac.ts (npm run rbac:render)`);
    stale++;
  } else {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale > 0 ? 1 : 0);
