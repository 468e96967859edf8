// A per-process circuit for one cluster's API: while the cluster does not answer, only one request at a time
// (the probe) is sent to it, and every other request fails at once with ClusterUnavailableError instead of
// holding a worker slot until its timeout. Without it, a hung apiserver (a stopped process keeps its port:
// connections open and nothing answers) takes every slot of every worker, each for the request timeout, and
// the healthy clusters' keys wait behind them.
//
// - closed: requests go out as usual. A request that gets no HTTP answer (timeout, refused, reset) opens it.
// - open: the first request while no probe is in flight becomes the probe; the others are refused without being
//   sent. Any HTTP answer to any request (even an error status) closes it: the cluster answers again.
// A refusal is a transient failure like any other (retryable; the key backs off, without end): only the slot
// time is saved. When the cluster answers again, the forwarder's relist adds every key, and an add makes a key
// in backoff ready at once.
import { ReconcileError } from './errors.js';

export class ClusterUnavailableError extends ReconcileError {
  constructor(cluster: string, openForMs: number) {
    super(
      'ClusterUnavailable',
      `cluster ${cluster} has not answered for ${Math.round(openForMs)} ms; a probe request is in flight`,
      true,
    );
  }
}

export type CircuitTicket = {
  /**
   * true: an HTTP response came back (any status); false: sent and no answer (timeout, connection error);
   * undefined: never sent (stopped before the send, e.g. by the lease fence): tells nothing about the cluster.
   */
  settle(answered: boolean | undefined): void;
};

export class ClusterCircuit {
  private openedAt: number | undefined;
  private probing = false;

  constructor(
    readonly cluster: string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get isOpen(): boolean {
    return this.openedAt !== undefined;
  }

  /** Before sending a request: a ticket to settle with its outcome, or ClusterUnavailableError. */
  admit(): CircuitTicket {
    let probe = false;
    if (this.openedAt !== undefined) {
      if (this.probing) throw new ClusterUnavailableError(this.cluster, this.now() - this.openedAt);
      this.probing = probe = true;
    }
    let settled = false;
    return {
      settle: (answered) => {
        if (settled) return;
        settled = true;
        if (probe) this.probing = false;
        if (answered === true) this.openedAt = undefined;
        else if (answered === false) this.openedAt ??= this.now();
      },
    };
  }
}
