// The Dockerfile (for users with Docker) and infra/image/build.ts (no daemon) must build the same image: the same
// Node, user, entrypoint, command, working directory, environment and app files; infra/k8s must name the image the
// build tags. Docker cannot run here, so this reads the Dockerfile as text.
import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../../infra/build/lua-files.js';
import {
  APP_DIR,
  APP_PATHS,
  CMD,
  ENTRYPOINT,
  ENV,
  IMAGE_USER,
  imageReference,
  packageInfo,
  pinnedNodeVersion,
} from '../../../../infra/image/image-spec.js';

type Instruction = { readonly op: string; readonly args: string };
type Stage = { readonly from: string; readonly name?: string; readonly instructions: Instruction[] };

/** Dockerfile → ARGs before the first FROM and its stages; continuation lines joined, comments dropped. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const upper = op.toUpperCase();
    if (upper === 'FROM') {
      const [, from = '', name] = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      stages.push({ from, name, instructions: [] });
    } else if (stages.length === 0) {
      if (upper === 'ARG') {
        const [k = '', v = ''] = rest.split('=');
        args.set(k, v);
      }
    } else {
      stages.at(-1)?.instructions.push({ op: upper, args: rest });
    }
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
const runtime = dockerfile.stages.at(-1) as Stage;
const last = (op: string): string | undefined => runtime.instructions.filter((i) => i.op === op).at(-1)?.args;

describe('Dockerfile', () => {
  it('builds on the Node version CI pins and runs on its slim image', () => {
    expect(dockerfile.args.get('NODE_VERSION')).toBe(pinnedNodeVersion());
    expect(dockerfile.stages.map((s) => s.from)).toEqual([
      'node:${NODE_VERSION}-bookworm',
      'node:${NODE_VERSION}-bookworm',
      'node:${NODE_VERSION}-bookworm-slim',
    ]);
  });

  it('runs as the non-root user of the OCI build, with its entrypoint, command, working directory and environment', () => {
    expect(IMAGE_USER.uid).toBeGreaterThan(0);
    expect(last('USER')).toBe(`${IMAGE_USER.uid}:${IMAGE_USER.gid}`);
    expect(JSON.parse(last('ENTRYPOINT') ?? 'null')).toEqual(ENTRYPOINT);
    expect(JSON.parse(last('CMD') ?? 'null')).toEqual(CMD);
    expect(last('WORKDIR')).toBe(APP_DIR);
    const env = Object.fromEntries(
      runtime.instructions
        .filter((i) => i.op === 'ENV')
        .flatMap((i) => i.args.split(/\s+/).map((kv) => kv.split('=') as [string, string])),
    );
    expect(env).toEqual(ENV);
    expect(last('RUN')).toBe(`install -d -o ${IMAGE_USER.uid} -g ${IMAGE_USER.gid} -m 0750 ${ENV.FLEETQ_DATA_DIR}`);
  });

  it('copies into /app exactly the files the OCI build puts there', () => {
    const copied = runtime.instructions
      .filter((i) => i.op === 'COPY')
      .map(
        (i) =>
          i.args
            .replace(/^--from=\S+\s+/, '')
            .split(/\s+/)
            .at(-1) ?? '',
      )
      .map((to) => to.replace(/^\.\//, '').replace(/\/$/, ''));
    expect(copied.sort()).toEqual([...APP_PATHS].sort());
  });

  it('labels the image with the package version', () => {
    expect(last('LABEL')).toContain(`org.opencontainers.image.version="${packageInfo().version}"`);
  });

  it('sends the build context the build stage copies, and no more (.dockerignore)', () => {
    const allowed = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''));
    const fromContext = dockerfile.stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.op === 'COPY' && !i.args.startsWith('--from='))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    for (const src of fromContext) expect(allowed).toContain(src);
  });
});

describe('infra/k8s', () => {
  /** Every `image: fleetq...` line in the manifests. */
  function fleetqImages(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return fleetqImages(path);
      if (!e.name.endsWith('.yaml')) return [];
      return [...readFileSync(path, 'utf8').matchAll(/^\s*image:\s*(fleetq\S*)\s*$/gm)].map((m) => m[1] ?? '');
    });
  }

  it('names the image `npm run image` tags, fleetq:<package version>', () => {
    const images = fleetqImages(join(REPO_ROOT, 'infra', 'k8s'));
    expect(images.length).toBeGreaterThanOrEqual(3);
    expect(new Set(images)).toEqual(new Set([imageReference()]));
  });
});
