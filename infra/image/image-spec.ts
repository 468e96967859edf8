// What the fleetq image is, in one place: infra/image/build.ts assembles it without a daemon, the top-level
// Dockerfile builds the same image with Docker, and test/unit/image/dockerfile.test.ts checks that the two agree
// (user, entrypoint, command, working directory, the app's files) and that infra/k8s names the image this builds.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../build/lua-files.js';

/** The user the image runs as: uid and gid 1000, as infra/k8s's pods set with runAsUser/runAsGroup. */
export const IMAGE_USER = { name: 'fleetq', uid: 1000, gid: 1000, home: '/var/lib/fleetq' } as const;

export const NODE_PATH = '/usr/local/bin/node';
export const APP_DIR = '/app';
/** `fleetq run` keeps its checkpoints and event log here (FLEETQ_DATA_DIR), the one folder the user may write. */
export const DATA_DIR = IMAGE_USER.home;

export const ENTRYPOINT = [NODE_PATH, `${APP_DIR}/dist/functions/cli.js`] as const;
export const CMD = ['run'] as const;

export const ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  NODE_ENV: 'production',
  FLEETQ_DATA_DIR: DATA_DIR,
} as const;

/** The app layer's contents, relative to the package root and to APP_DIR: the npm package's files and its production dependencies. */
export const APP_PATHS = ['package.json', 'dist/functions', 'dist/shared', 'node_modules'] as const;

export type PackageInfo = { readonly name: string; readonly version: string; readonly description: string };

export function packageInfo(root = REPO_ROOT): PackageInfo {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageInfo;
  return { name: pkg.name, version: pkg.version, description: pkg.description };
}

/** `fleetq:<version>`: the name and tag infra/k8s uses and the OCI layout's index annotates. */
export function imageReference(pkg: PackageInfo = packageInfo()): string {
  return `${pkg.name}:${pkg.version}`;
}

/** The Node.js version the image carries: the one CI runs on, `install_node 22 <version>` in .ci/run. */
export function pinnedNodeVersion(root = REPO_ROOT): string {
  const ci = readFileSync(join(root, '.ci', 'run'), 'utf8');
  const match = /^install_node 22 (\d+\.\d+\.\d+)$/m.exec(ci);
  if (!match?.[1])
    throw new Error('.ci/run has no `install_node 22 <version>` line: the image pins the Node CI runs on');
  return match[1];
}
