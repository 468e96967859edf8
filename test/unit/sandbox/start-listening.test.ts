// A sandbox component given a port that another process took before it listened (the sandbox's clusters start side
// by side on ports picked free a moment before) is started again on a new port. Real processes and sockets: the
// component is a small Node server that, as etcd and kube-apiserver do, logs "address already in use" and exits
// when its port is taken.
import { afterEach, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isAlive, spawnDetached, startListening, stopProcess } from '../../../infra/sandbox/process.js';

const COMPONENT = `
const port = Number(process.argv[1]);
const server = require('node:net').createServer((socket) => socket.end('ok'));
server.on('error', (err) => { console.error('listen tcp 127.0.0.1:' + port + ': bind: address already in use'); process.exit(1); });
server.listen(port, '127.0.0.1', () => console.log('listening on ' + port));
`;

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { server, port };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'start-listening-'));
  cleanup.push(async () => rmSync(dir, { recursive: true, force: true }));
  const log = join(dir, 'component.log');
  const pids: number[] = [];
  cleanup.push(async () => {
    for (const pid of pids) await stopProcess(pid, 500);
  });
  let port = 0;
  const start = (ports: () => Promise<number>) =>
    startListening({
      what: 'component',
      log,
      timeoutMs: 10_000,
      pickPorts: async () => {
        port = await ports();
      },
      spawn: () => {
        const pid = spawnDetached(process.execPath, ['-e', COMPONENT, String(port)], log);
        pids.push(pid);
        return pid;
      },
      ready: async () => readFileSync(log, 'utf8').includes(`listening on ${port}`),
    });
  return { log, pids, start, port: () => port };
}

it('a port taken before the component listened: started again on another, which it listens on', async () => {
  const taken = await holdPort();
  const c = setup();
  const picks = [taken.port];
  await c.start(async () => picks.shift() ?? (await freePort()));
  expect(c.pids).toHaveLength(2);
  expect(c.port()).not.toBe(taken.port);
  expect(isAlive(c.pids[1] as number)).toBe(true);
  expect(readFileSync(c.log, 'utf8')).toContain(`${taken.port}: bind: address already in use`);
});

it('its port taken on every try: fails after 3, saying so', async () => {
  const taken = await holdPort();
  const c = setup();
  await expect(c.start(async () => taken.port)).rejects.toThrow(
    'component: a port it was given was taken before it listened, 3 times',
  );
  expect(c.pids).toHaveLength(3);
});
