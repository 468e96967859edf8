// When KubeRest builds a new connection pool: the TLS material a KubeConfig names changed (its files replaced,
// or another KubeConfig), and when a registry's kubeconfig file is loaded again. Temp files, a fixed clock.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterRegistry, parseRegistry } from '../../../shared/kube/registry.js';
import { TlsMaterial } from '../../../shared/kube/tls-material.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fleetq-tls-material-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function replace(path: string, text: string): void {
  writeFileSync(`${path}.next`, text);
  renameSync(`${path}.next`, path);
}

function kubeConfig(caFile: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:6443', caFile }],
    users: [{ name: 'u', certFile: join(dir, 'cert'), keyFile: join(dir, 'key') }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  return kc;
}

describe('TlsMaterial', () => {
  it('says changed the first time, after a file is replaced (looked at once per checkEveryMs), and for another KubeConfig', () => {
    let now = 0;
    const tls = new TlsMaterial({ checkEveryMs: 1_000, now: () => now });
    for (const f of ['ca', 'cert', 'key']) replace(join(dir, f), `${f}-1`);
    const kc = kubeConfig(join(dir, 'ca'));
    expect(tls.changed(kc)).toBe(true);
    expect(tls.changed(kc)).toBe(false);
    replace(join(dir, 'key'), 'key-2');
    now = 999;
    expect(tls.changed(kc)).toBe(false); // not looked at yet
    now = 1_000;
    expect(tls.changed(kc)).toBe(true);
    now = 2_000;
    expect(tls.changed(kc)).toBe(false);
    rmSync(join(dir, 'cert')); // mid-rotation: missing, then back
    now = 3_000;
    expect(tls.changed(kc)).toBe(true);
    replace(join(dir, 'cert'), 'cert-2');
    now = 4_000;
    expect(tls.changed(kc)).toBe(true);
    expect(tls.changed(kubeConfig(join(dir, 'ca')))).toBe(true); // a KubeConfig loaded again
    tls.forget();
    now = 4_001;
    expect(tls.changed(kc)).toBe(true);
  });
});

describe('ClusterRegistry.kubeConfig with a kubeconfig file', () => {
  const config = (server: string, extra = '') =>
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: c, cluster: { server: "${server}"${extra} } }]`,
      'users: [{ name: u, user: { token: not-a-secret-in-this-test } }]',
      'contexts: [{ name: c, context: { cluster: c, user: u } }]',
      'current-context: c',
    ].join('\n');

  it('loads the file again when it changed; keeps the last one when the new one does not load or is insecure', async () => {
    const path = join(dir, 'kubeconfig.yaml');
    replace(path, config('https://a.example:6443'));
    const warnings: Array<Record<string, unknown>> = [];
    const registry = new ClusterRegistry(
      parseRegistry(`clusters:\n  - name: c\n    kubeconfig: ${path}\n`, join(dir, 'fleet.yaml')),
      (message, fields) => warnings.push({ message, ...fields }),
    );
    const first = registry.kubeConfig('c');
    expect(registry.kubeConfig('c')).toBe(first);
    /** The registry looks at the file once a second: asks until `done` (3 s deadline). */
    const until = async (done: () => boolean): Promise<void> => {
      const deadline = Date.now() + 3_000;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    };

    replace(path, 'clusters: [ {{ not yaml client-key-data: c2VjcmV0');
    await until(() => registry.kubeConfig('c') !== first || warnings.length === 1);
    expect(registry.kubeConfig('c')).toBe(first);
    expect(warnings).toEqual([
      expect.objectContaining({ message: 'Kubeconfig file not reloaded, the last one kept; fix the file', path }),
    ]);
    expect(JSON.stringify(warnings)).not.toContain('c2VjcmV0'); // the file is never quoted

    replace(path, config('https://a.example:6443', ', insecure-skip-tls-verify: true'));
    await until(() => registry.kubeConfig('c') !== first || warnings.length === 2);
    expect(registry.kubeConfig('c')).toBe(first);
    expect(warnings.at(-1)?.error).toContain('allowInsecure');

    replace(path, config('https://b.example:6443'));
    await until(() => registry.kubeConfig('c') !== first);
    const reloaded = registry.kubeConfig('c');
    expect(reloaded).not.toBe(first);
    expect(reloaded.getCurrentCluster()?.server).toBe('https://b.example:6443');
  });
});
