// Faults of one sandbox cluster's kube-apiserver, for the chaos suite's own clusters only (never fleetq-1/2,
// upstream-1 or chaos-1, which others share):
//   pause()   SIGSTOP: the process keeps its port, so connections are accepted by the kernel and then hang
//             (a black-holed apiserver: every request runs into its client's timeout);
//   kill()    SIGKILL: the port closes, connections are refused at once (a crashed apiserver);
//   restart() the same binary, arguments and environment again (read from /proc before the kill), on the same
//             port and etcd, so the cluster's state is kept; the sandbox state file gets the new pid under the
//             sandbox's lock (the same mkdir protocol as infra/sandbox/sandbox.ts), so `sandbox down` and
//             health checks see the right process;
//   heal()    whatever state it was left in: SIGCONT, restart if gone, wait until /readyz answers.
// A paused apiserver also gets a detached watchdog that sends SIGCONT after a deadline, so a test process that
// dies mid-fault (jest killed, machine busy) cannot leave the cluster stopped.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterState } from '../../../infra/sandbox/cluster.js';
import { ensurePki } from '../../../infra/sandbox/pki.js';
import { isAlive, spawnDetached, waitFor } from '../../../infra/sandbox/process.js';
import { httpsGet } from '../../../infra/sandbox/probe.js';
import { sandboxRoot, updateClusterState } from '../../../infra/sandbox/sandbox.js';

export type ApiserverFault = {
  /** The apiserver's pid now (changes on restart). */
  readonly pid: number;
  pause(): void;
  kill(): Promise<void>;
  restart(): Promise<void>;
  /** SIGCONT, and a restart when the process is gone; resolves once /readyz answers 200. */
  heal(): Promise<void>;
  /** Resolves once the state file holds the current pid (restarts update it in the background). */
  settled(): Promise<void>;
};

type Command = { readonly bin: string; readonly args: string[]; readonly env: NodeJS.ProcessEnv };

function commandOf(pid: number, port: number): Command {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const [bin, ...args] = argv;
  // Refuse to signal anything that is not this cluster's apiserver (a pid in a stale state file may be reused).
  if (!bin?.endsWith('kube-apiserver') || !args.includes(`--secure-port=${port}`))
    throw new Error(`pid ${pid} is not the kube-apiserver on port ${port}: ${argv.join(' ').slice(0, 200)}`);
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
  return { bin, args, env };
}

export function apiserverFault(state: ClusterState, o: { watchdogMs?: number } = {}): ApiserverFault {
  if (!/^chaos-[2-9]$/.test(state.name)) throw new Error(`refusing to fault ${state.name}: not a chaos-only cluster`);
  const root = sandboxRoot();
  const pki = ensurePki(root);
  const port = state.ports.apiserver;
  let pid = state.pids['kube-apiserver'];
  const command = commandOf(pid, port);
  let watchdog: number | undefined;
  let stateWrite: Promise<void> = Promise.resolve();

  const stopWatchdog = (): void => {
    if (watchdog !== undefined && isAlive(watchdog)) process.kill(watchdog, 'SIGKILL');
    watchdog = undefined;
  };
  const ready = (timeoutMs: number): Promise<void> =>
    waitFor(
      async () => (await httpsGet(`${state.server}/readyz`, pki)).status === 200,
      timeoutMs,
      250,
      `kube-apiserver of ${state.name} ready`,
    );
  const restart = async (): Promise<void> => {
    if (isAlive(pid)) throw new Error(`kube-apiserver ${pid} of ${state.name} is still running`);
    pid = spawnDetached(command.bin, command.args, join(state.dir, 'logs', 'kube-apiserver.log'), command.env);
    const newPid = pid;
    stateWrite = stateWrite.then(() => recordPid(root, state.name, newPid));
    await ready(120_000);
  };

  return {
    get pid() {
      return pid;
    },
    pause() {
      process.kill(pid, 'SIGSTOP');
      stopWatchdog();
      const ms = o.watchdogMs ?? 15 * 60_000;
      const dog = spawn('sh', ['-c', `sleep ${Math.ceil(ms / 1000)}; kill -CONT ${pid}`], {
        detached: true,
        stdio: 'ignore',
      });
      dog.unref();
      watchdog = dog.pid;
    },
    async kill() {
      stopWatchdog();
      const killed = pid;
      process.kill(killed, 'SIGKILL');
      await waitFor(async () => !isAlive(killed), 10_000, 20, `kube-apiserver ${killed} gone`);
    },
    restart,
    async heal() {
      stopWatchdog();
      if (isAlive(pid)) process.kill(pid, 'SIGCONT');
      else await restart();
      await ready(120_000);
    },
    settled: () => stateWrite,
  };
}

/** Writes the apiserver's new pid into the sandbox state file, holding the sandbox lock. */
function recordPid(root: string, cluster: string, pid: number): Promise<void> {
  return updateClusterState(cluster, (c) => ({ ...c, pids: { ...c.pids, 'kube-apiserver': pid } }), root);
}
