// The admission server keeps an idle connection open past the apiserver's webhook client's own idle timeout (90 s):
// the client reuses an idle connection, and one the server closes under it fails the review with "connection reset
// by peer" (failurePolicy Fail: the object is refused). Node's default closes idle connections after 5 s.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startAdmissionServer, type RunningAdmissionServer } from '../../../shared/admission/server.js';
import { makeTestPki, type TestPki } from '../../helpers/sandbox/test-pki.js';

/** Longer than Node's default keep-alive timeout (5 s). The claim is about an idle window, so it is waited out. */
const IDLE_MS = 6_000;

describe('admission server keep-alive', () => {
  let dir = '';
  let pki: TestPki;
  let running: RunningAdmissionServer;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fleetq-admission-keepalive-'));
    pki = makeTestPki(dir, { caName: 'keep-alive test CA' });
    running = await startAdmissionServer({
      cert: readFileSync(pki.serverCertFile),
      key: readFileSync(pki.serverKeyFile),
      host: '127.0.0.1',
      port: 0,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    agent.destroy();
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const healthz = () =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: running.port, path: '/healthz', agent, ca: readFileSync(pki.caFile) },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it(
    'an idle connection is still open after longer than Node’s default, and is reused',
    async () => {
      expect(await healthz()).toEqual({ status: 200, reused: false });
      await new Promise((r) => setTimeout(r, IDLE_MS));
      expect(await healthz()).toEqual({ status: 200, reused: true });
    },
    IDLE_MS + 10_000,
  );
});
