// The container image `npm run image` builds (infra/image/build.ts), run the way a container runtime would run it
// and from its own files only: the OCI layout's layers are checked against their digests and unpacked in order
// into a temporary root, and the entrypoint runs there under chroot, so the image's own Node and its own glibc
// serve the process (no Docker here; we are root, and chroot keeps the host's network, where the sandbox's
// kube-apiservers listen on 127.0.0.1). First `fleetq version`; then `fleetq run` as the image's non-root user
// against the sandbox cluster fleetq-2, owning ReplicaSet: a ReplicaSet created there gets its pods from the
// process in the image.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { REPO_ROOT } from '../../infra/build/lua-files.js';
import { CMD, ENTRYPOINT, ENV, IMAGE_USER, packageInfo, pinnedNodeVersion } from '../../infra/image/image-spec.js';
import { waitFor } from '../../infra/sandbox/process.js';
import { ensureBuild } from '../helpers/build.js';
import { kwokPodTemplate, sandboxCluster, testNamespace, type TestCluster } from '../helpers/sandbox/clusters.js';

const execFileP = promisify(execFile);

type Descriptor = { mediaType: string; digest: string; size: number };
type ImageConfig = {
  config: {
    User: string;
    Entrypoint: string[];
    Cmd: string[];
    Env: string[];
    WorkingDir: string;
    Labels: Record<string, string>;
  };
  rootfs: { diff_ids: string[] };
};

type Proc = {
  readonly lines: string[];
  waitForLine(re: RegExp, timeoutMs: number): Promise<void>;
  /** Sends the signal and resolves with the exit code (null if killed). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
};

/** A process whose stdout and stderr lines are kept (test/helpers/processes.ts's spawnTsx, for any command). */
function spawnProcess(command: string, args: readonly string[], env: NodeJS.ProcessEnv, name: string): Proc {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr])
    createInterface({ input: stream }).on('line', (l) => lines.push(l));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    lines,
    waitForLine: (re, timeoutMs) =>
      waitFor(async () => lines.some((l) => re.test(l)), timeoutMs, 100, `${name}: a line matching ${re}`).catch(
        (err: unknown) => {
          throw new Error(`${String(err)}\n--- last lines of ${name} ---\n${lines.slice(-30).join('\n')}`);
        },
      ),
    stop: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** chroot(8), by its path: the processes it starts get the image's PATH, where it is not. */
const CHROOT = ['/usr/sbin/chroot', '/usr/bin/chroot'].find((p) => existsSync(p)) ?? 'chroot';

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('the fleetq image (OCI layout), unpacked and run under chroot', () => {
  const work = mkdtempSync(join(tmpdir(), 'fleetq-image-'));
  const root = join(work, 'rootfs');
  let layout: string;
  let config: ImageConfig;
  /** The image's Env, as a runtime passes it to the process. */
  let env: NodeJS.ProcessEnv;
  let worker: Proc | undefined;

  beforeAll(async () => {
    await ensureBuild();
    // The build as a user runs it (npm run image), with dist as test/helpers/build.ts left it; a second run with
    // the same inputs keeps the image already there.
    const { stdout } = await execFileP(process.execPath, ['--import', 'tsx', 'infra/image/build.ts', '--skip-build'], {
      cwd: REPO_ROOT,
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 900_000,
      maxBuffer: 16 << 20,
    });
    const done = /^fleetq:\S+ (?:built|unchanged): (\S+)$/m.exec(stdout);
    if (!done?.[1]) throw new Error(`npm run image printed no result line:\n${stdout}`);
    layout = done[1];

    const blob = (digest: string): Buffer =>
      readFileSync(join(layout, 'blobs', 'sha256', digest.replace(/^sha256:/, '')));
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
    expect(index.manifests).toHaveLength(1);
    const manifestBytes = blob(index.manifests[0]!.digest);
    expect(sha256(manifestBytes)).toBe(index.manifests[0]!.digest);
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as { config: Descriptor; layers: Descriptor[] };
    const configBytes = blob(manifest.config.digest);
    expect(sha256(configBytes)).toBe(manifest.config.digest);
    config = JSON.parse(configBytes.toString('utf8')) as ImageConfig;

    // Each layer: its blob matches its digest and size, its tar the config's diff_id; unpacked in order.
    mkdirSync(root);
    chmodSync(root, 0o755);
    expect(manifest.layers).toHaveLength(config.rootfs.diff_ids.length);
    for (const [i, layer] of manifest.layers.entries()) {
      const gz = blob(layer.digest);
      expect({ digest: sha256(gz), size: gz.length }).toEqual({ digest: layer.digest, size: layer.size });
      expect(sha256(gunzipSync(gz))).toBe(config.rootfs.diff_ids[i]);
      await execFileP('tar', [
        '--numeric-owner',
        '--same-permissions',
        '-xzf',
        join(layout, 'blobs', 'sha256', layer.digest.slice(7)),
        '-C',
        root,
      ]);
    }
    env = Object.fromEntries(
      config.config.Env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
  });

  afterAll(async () => {
    await worker?.stop('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('is configured to run fleetq as a non-root user', () => {
    expect(config.config).toMatchObject({
      User: `${IMAGE_USER.uid}:${IMAGE_USER.gid}`,
      Entrypoint: [...ENTRYPOINT],
      Cmd: [...CMD],
      WorkingDir: '/app',
    });
    expect(env).toEqual(ENV);
    expect(config.config.Labels['org.opencontainers.image.version']).toBe(packageInfo().version);
    expect(readFileSync(join(root, 'etc', 'passwd'), 'utf8')).toContain(
      `${IMAGE_USER.name}:x:${IMAGE_USER.uid}:${IMAGE_USER.gid}:`,
    );
    const data = statSync(join(root, ENV.FLEETQ_DATA_DIR));
    expect({ uid: data.uid, gid: data.gid }).toEqual({ uid: IMAGE_USER.uid, gid: IMAGE_USER.gid });
    expect(existsSync(join(root, 'bin', 'sh'))).toBe(false);
  });

  it("prints the version from the image's own Node and files", async () => {
    const { stdout } = await execFileP(CHROOT, [root, ...ENTRYPOINT, 'version'], { env, timeout: 60_000 });
    expect(stdout).toBe(`fleetq ${packageInfo().version} (Node.js ${pinnedNodeVersion()}, linux/x64)\n`);
    const asUser = await execFileP(
      CHROOT,
      [`--userspec=${IMAGE_USER.uid}:${IMAGE_USER.gid}`, root, ...ENTRYPOINT, 'version', '-o', 'json'],
      { env, timeout: 60_000 },
    );
    expect(JSON.parse(asUser.stdout)).toMatchObject({ fleetq: packageInfo().version, node: pinnedNodeVersion() });
  });

  describe('fleetq run against the sandbox cluster fleetq-2', () => {
    let c: TestCluster;
    let ns: { name: string; remove: () => Promise<void> };

    beforeAll(async () => {
      c = await sandboxCluster('fleetq-2');
      ns = await testNamespace(c.kc);
    });
    afterAll(async () => {
      await ns?.remove();
    });

    it('makes the pods of a ReplicaSet, as the image user, and stops on SIGTERM', async () => {
      // The cluster's kubeconfig with its CA inlined, and a registry naming it, at paths inside the image's root.
      const kubeconfig = parse(readFileSync(c.state.kubeconfig, 'utf8')) as {
        clusters: Array<{ cluster: Record<string, string> }>;
      };
      for (const { cluster } of kubeconfig.clusters) {
        const ca = cluster['certificate-authority'];
        if (ca) {
          cluster['certificate-authority-data'] = readFileSync(ca).toString('base64');
          delete cluster['certificate-authority'];
        }
      }
      mkdirSync(join(root, 'work'));
      const registry = { clusters: [{ name: 'fleetq-2', kubeconfig: '/work/kubeconfig.yaml', owns: ['ReplicaSet'] }] };
      for (const [file, text] of [
        ['kubeconfig.yaml', stringify(kubeconfig)],
        ['registry.yaml', stringify(registry)],
      ] as const) {
        writeFileSync(join(root, 'work', file), text, { mode: 0o600 });
        chownSync(join(root, 'work', file), IMAGE_USER.uid, IMAGE_USER.gid);
      }

      worker = spawnProcess(
        CHROOT,
        [
          `--userspec=${IMAGE_USER.uid}:${IMAGE_USER.gid}`,
          root,
          ...ENTRYPOINT,
          'run',
          '--registry',
          '/work/registry.yaml',
          '--driver',
          'memory',
        ],
        env,
        'fleetq run (image)',
      );
      await worker.waitForLine(/fleetq: running 1 cluster\(s\) on the memory queue/, 120_000);

      const labels = { app: 'image-e2e' };
      const apps = c.kc.makeApiClient(AppsV1Api);
      const core = c.kc.makeApiClient(CoreV1Api);
      await apps.createNamespacedReplicaSet({
        namespace: ns.name,
        body: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: 'web' },
          spec: { replicas: 3, selector: { matchLabels: labels }, template: kwokPodTemplate(labels) },
        },
      });
      await waitFor(
        async () => {
          const pods = (await core.listNamespacedPod({ namespace: ns.name })).items;
          return (
            pods.filter((p) => p.metadata?.ownerReferences?.some((o) => o.kind === 'ReplicaSet' && o.name === 'web'))
              .length === 3
          );
        },
        120_000,
        500,
        'the 3 pods of ReplicaSet web, made by fleetq in the image',
      ).catch((err: unknown) => {
        throw new Error(`${String(err)}\n--- fleetq run (image) ---\n${worker?.lines.slice(-30).join('\n')}`);
      });

      expect(await worker.stop('SIGTERM')).toBe(0);
      // What `fleetq run` keeps with the memory driver went to FLEETQ_DATA_DIR, the one folder the user may write.
      expect(readdirSync(join(root, ENV.FLEETQ_DATA_DIR)).length).toBeGreaterThan(0);
    });
  });
});
