// Blocked get() calls of the memory driver: each waits for a state change or its own timeout.
// Every change wakes all waiters; each re-checks and goes back to sleep if it got nothing (cheap in-process).

export class MemoryWaiters {
  private readonly wakers = new Set<() => void>();

  wait(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      // setTimeout caps at 2^31-1 ms; an infinite wait is re-armed by the caller's loop.
      const timer = setTimeout(wake, Math.min(ms, 2_147_483_647));
      this.wakers.add(wake);
    });
  }

  wakeAll(): void {
    if (this.wakers.size === 0) return;
    for (const wake of [...this.wakers]) wake();
  }
}
