// KubeRest tells the write observer of its async context about each write the apiserver accepted, and nothing
// else: the read-your-writes tracker of a reconcile (cache/write-tracker.ts) gets its own writes only, never a
// read, never a concurrent reconcile's write. The apiserver is a local HTTP server answering like one.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { WriteTracker, trackWrites } from '../../../shared/cache/write-tracker.js';
import { KubeRest } from '../../../shared/kube/rest.js';
import { currentWriteObserver } from '../../../shared/kube/write-observer.js';

let server: Server;
let rest: KubeRest;
let nextVersion = 100;
/** The resourceVersion the server gave each name last. */
const given = new Map<string, number>();

beforeAll(async () => {
  // Answers every request with a ConfigMap of a new resourceVersion (named as in the path), as a create would.
  server = createServer((req, res) => {
    const name = req.url?.split('?')[0]?.split('/').pop() ?? 'x';
    given.set(name, nextVersion);
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        kind: 'ConfigMap',
        apiVersion: 'v1',
        metadata: { name, namespace: 'ns', resourceVersion: String(nextVersion++) },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      // Plain HTTP on loopback: client-node asks for skipTLSVerify to allow it.
      { name: 'local', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'nobody' }],
    contexts: [{ name: 'local', cluster: 'local', user: 'nobody' }],
    currentContext: 'local',
  });
  rest = new KubeRest('local', kc, { take: async () => undefined });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const write = (name: string) =>
  rest.request('PUT', `/api/v1/namespaces/ns/configmaps/${name}`, { body: { metadata: { name } } });

describe('write observer', () => {
  it("gives a reconcile's tracker the resourceVersion of its writes, not of its reads", async () => {
    const tracker = new WriteTracker();
    await trackWrites(tracker, async () => {
      await write('a');
      await rest.request('GET', '/api/v1/namespaces/ns/configmaps/read');
    });
    expect(given.get('read')).toBeGreaterThan(given.get('a')!);
    expect(tracker.record()).toEqual({ resourceVersions: { ConfigMap: String(given.get('a')) }, deleted: [] });
  });

  it('keeps concurrent reconciles apart, and tells no one of a write outside them', async () => {
    const [one, two] = [new WriteTracker(), new WriteTracker()];
    await write('outside');
    expect(currentWriteObserver()).toBeUndefined();
    await Promise.all([
      trackWrites(one, async () => {
        await write('one');
        await write('one-again');
      }),
      trackWrites(two, () => write('two')),
    ]);
    // Each tracker holds the newest version of its own writes only.
    expect(one.record()?.resourceVersions).toEqual({ ConfigMap: String(given.get('one-again')) });
    expect(two.record()?.resourceVersions).toEqual({ ConfigMap: String(given.get('two')) });
  });
});
