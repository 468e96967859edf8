// Files of Go modules at pinned versions, read from the local module cache: the sandbox installs an upstream
// project's own manifests (JobSet's CRD) from the module that ships them, never from a copy in this repository.
// `go mod download -json <module>@<version>` fetches the module once (later calls find it cached) and names its
// folder (`Dir`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GoModuleFile } from '../../shared/controllers/descriptor.js';

const dirs = new Map<string, string>();

export function isGoModuleFile(source: unknown): source is GoModuleFile {
  return (
    typeof source === 'object' &&
    source !== null &&
    !(source instanceof URL) &&
    typeof (source as GoModuleFile).module === 'string' &&
    typeof (source as GoModuleFile).version === 'string' &&
    typeof (source as GoModuleFile).path === 'string'
  );
}

/** The folder of `module@version` in the module cache (downloaded first when missing). */
export function goModuleDir(module: string, version: string): string {
  const key = `${module}@${version}`;
  const known = dirs.get(key);
  if (known !== undefined) return known;
  let out: string;
  try {
    // Outside any module (tmpdir), with no inherited -mod flag: this only fetches and names the module.
    out = execFileSync('go', ['mod', 'download', '-json', key], {
      cwd: tmpdir(),
      env: { ...process.env, GOFLAGS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 5 * 60_000,
    }).toString();
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    const stdout = (err as { stdout?: Buffer }).stdout?.toString().trim();
    throw new Error(
      `go mod download ${key} failed (Go >= 1.26 on PATH, e.g. /usr/local/go/bin?): ${stderr || stdout || String(err)}`,
    );
  }
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (dir === undefined || !existsSync(dir)) throw new Error(`go mod download ${key} named no module folder: ${out}`);
  dirs.set(key, dir);
  return dir;
}

/** The local path of a file of a Go module. */
export function goModuleFilePath(file: GoModuleFile): string {
  if (file.path.startsWith('/') || file.path.split('/').includes('..'))
    throw new Error(`${file.module}@${file.version}: ${file.path} is not a path inside the module`);
  const path = join(goModuleDir(file.module, file.version), ...file.path.split('/'));
  if (!existsSync(path)) throw new Error(`${file.module}@${file.version} has no file ${file.path}`);
  return path;
}
