// The cluster circuit on a real socket: an "apiserver" on 127.0.0.1 that accepts connections and never answers
// (what a stopped kube-apiserver process does: its port stays open) holds a request until its timeout; once
// one request went unanswered, only one probe at a time is sent and the others are refused at once, without
// being sent; when the server answers again, the next probe closes the circuit and requests flow.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterCircuit, ClusterUnavailableError } from '../../shared/kube/circuit.js';
import { KubeRest } from '../../shared/kube/rest.js';
import { TokenBucket } from '../../shared/kube/token-bucket.js';

describe('KubeRest with a ClusterCircuit against a server that stops answering', () => {
  let server: Server;
  let port = 0;
  let answering = false;
  let requests = 0;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        requests += (chunk.toString('latin1').match(/^GET /gm) ?? []).length;
        if (!answering) return; // hung: the request is read and never answered
        const body = '{"kind":"Status","status":"Success"}';
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  function rest(circuit: ClusterCircuit): KubeRest {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'hung', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'hung', cluster: 'hung', user: 'u' }],
      currentContext: 'hung',
    });
    return new KubeRest('hung', kc, new TokenBucket(1000, 1000), undefined, circuit);
  }

  it('one probe at a time while unanswered, the rest refused at once; closed by the first answer', async () => {
    answering = false;
    const circuit = new ClusterCircuit('hung');
    const r = rest(circuit);
    const get = (timeoutMs = 400) => r.request('GET', '/api/v1/namespaces/default/pods', { timeoutMs });

    // Closed: the first request is sent and times out; that opens the circuit.
    await expect(get()).rejects.toThrow(/timeout|aborted/i);
    expect(circuit.isOpen).toBe(true);

    // Open: one probe goes out (and hangs); ten more are refused without a connection, in well under the timeout.
    const before = requests;
    const probe = get(1_500);
    const refusedStarted = performance.now();
    const refused = await Promise.allSettled(Array.from({ length: 10 }, () => get(1_500)));
    const refusedMs = performance.now() - refusedStarted;
    expect(refused.every((x) => x.status === 'rejected' && x.reason instanceof ClusterUnavailableError)).toBe(true);
    expect(refusedMs).toBeLessThan(500);
    await expect(probe).rejects.toThrow(/timeout|aborted/i);
    expect(requests - before).toBe(1);
    expect(circuit.isOpen).toBe(true);

    // The server answers again: the next probe gets its answer and closes the circuit; requests flow at once.
    answering = true;
    await expect(get(2_000)).resolves.toMatchObject({ status: 'Success' });
    expect(circuit.isOpen).toBe(false);
    const after = await Promise.allSettled(Array.from({ length: 5 }, () => get(2_000)));
    expect(after.every((x) => x.status === 'fulfilled')).toBe(true);
  });
});
