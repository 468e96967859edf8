// The DevTools protocol over a process's inspector WebSocket (a process started with --inspect): the benches read
// a process's V8 heap through it without any code of the product serving it.
import { WebSocket } from 'undici';

/** A DevTools-protocol session with the forwarder's inspector (started by --inspect). */
export class Inspector {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const p = msg.id === undefined ? undefined : this.pending.get(msg.id);
      if (!p || msg.id === undefined) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error.message));
      else p.resolve(msg.result);
    });
    ws.addEventListener('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector closed'));
      this.pending.clear();
    });
  }

  static async connect(url: string, timeoutMs: number): Promise<Inspector> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`inspector ${url}: no connection in ${timeoutMs} ms`)),
        timeoutMs,
      );
      ws.addEventListener('open', () => (clearTimeout(timer), resolve()), { once: true });
      ws.addEventListener('error', () => (clearTimeout(timer), reject(new Error(`inspector ${url}: error`))), {
        once: true,
      });
    });
    return new Inspector(ws);
  }

  call<T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector ${method}: no answer in ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v as T)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * V8 heap used after a full GC (the main isolate: tsx's loader thread is not in it, though it is in the RSS),
   * and of it what code spaces hold (compiled code grows as the process warms up, not with objects).
   */
  async heapUsedAfterGc(): Promise<{ used: number; code: number }> {
    await this.call('HeapProfiler.collectGarbage');
    const used = (await this.call<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
    const spaces = await this.call<{ result: { value?: unknown } }>('Runtime.evaluate', {
      // The inspector's command-line API gives `require` in the process's main context.
      expression:
        "require('v8').getHeapSpaceStatistics().filter((s) => s.space_name.startsWith('code')).reduce((a, s) => a + s.space_used_size, 0)",
      includeCommandLineAPI: true,
      returnByValue: true,
    });
    return { used, code: typeof spaces.result.value === 'number' ? spaces.result.value : NaN };
  }

  close(): void {
    this.ws.close();
  }
}
