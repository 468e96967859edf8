// The fence a reconcile's writes check (kube/writer.ts): is the lease on this key still ours?
//
// A lease is ours until the queue says otherwise (a refused renewal) or until its local deadline passes:
// leaseMs counted on this process's monotonic clock (performance.now) from just before the request that
// granted or last renewed it, minus a safety margin. The server starts the lease when its script runs, which
// is after we sent the request, so a deadline counted from the send is never later than the real expiry
// (up to clock-rate drift, covered by the margin). Wall-clock jumps do not move a monotonic clock; a process
// stopped (SIGSTOP) or stalled past the deadline finds held() false when it resumes, before any write.
import { ReconcileError } from '../kube/errors.js';
import type { Fence } from '../kube/writer.js';
import type { Lease, WorkQueue } from '../queue/work-queue.js';
import { timedPhase } from './reconcile-phases.js';

export type LeaseFenceOptions = {
  readonly leaseMs: number;
  /** Monotonic clock in ms; default performance.now. */
  readonly clock?: () => number;
  /** When the lease was granted on `clock`; default lease.grantedAt, else now. */
  readonly grantedAt?: number;
};

/** Subtracted from leaseMs: 5 % of it, at most 1 s. */
export function safetyMarginMs(leaseMs: number): number {
  return Math.min(1_000, leaseMs * 0.05);
}

export class LeaseFence implements Fence {
  private readonly clock: () => number;
  private readonly leaseMs: number;
  private deadline: number;
  private lost: string | undefined;

  constructor(
    private readonly queue: Pick<WorkQueue, 'renew'>,
    readonly lease: Lease,
    options: LeaseFenceOptions,
  ) {
    this.clock = options.clock ?? (() => performance.now());
    this.leaseMs = options.leaseMs;
    const granted = options.grantedAt ?? lease.grantedAt ?? this.clock();
    this.deadline = granted + this.leaseMs - safetyMarginMs(this.leaseMs);
  }

  /** Why the lease is no longer ours, or undefined while it is. */
  get lostReason(): string | undefined {
    if (this.lost === undefined && this.clock() >= this.deadline) {
      this.lost = `local lease deadline passed (${this.leaseMs} ms lease not renewed in time)`;
    }
    return this.lost;
  }

  readonly held = (): boolean => this.lostReason === undefined;

  /** Renews through the queue; a refusal marks the lease lost for good. Errors leave the deadline as it was. */
  readonly renew = async (): Promise<boolean> => {
    if (!this.held()) return false;
    const sentAt = this.clock();
    const ok = await this.queue.renew(this.lease);
    if (!ok) this.markLost('lease renewal refused (the key was handed to another holder)');
    else if (this.lost === undefined)
      this.deadline = Math.max(this.deadline, sentAt + this.leaseMs - safetyMarginMs(this.leaseMs));
    return ok && this.held();
  };

  /** The writer's check before a batch: a renewal, timed as the run's `fence` phase. */
  readonly confirm = (): Promise<boolean> => timedPhase('fence', this.renew);

  markLost(reason: string): void {
    this.lost ??= reason;
  }

  /** Throws LeaseLost when the lease is no longer ours. */
  assertHeld(): void {
    const reason = this.lostReason;
    if (reason !== undefined) throw new ReconcileError('LeaseLost', `not writing: ${reason}`, false);
  }
}
