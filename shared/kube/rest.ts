// A small REST client for one cluster: the credentials of its KubeConfig, a rate limiter (the cluster's
// QPS/burst: fleet-wide in Redis, redis-token-bucket.ts, or per process, token-bucket.ts), an optional
// circuit (one probe at a time while the cluster does not answer; circuit.ts), and a count of every request
// for metrics and benchmarks. Its connection pool is built again when the TLS material changes (tls-material.ts).
// Every write the apiserver accepts is told to the write observer of the context the request runs in
// (write-observer.ts: a reconcile's read-your-writes tracker).
import type { KubeConfig, HttpMethod } from '@kubernetes/client-node';
import { RequestContext } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';
import type { ClusterCircuit } from './circuit.js';
import { ApiError } from './errors.js';
import { TlsMaterial } from './tls-material.js';
import { currentWriteObserver } from './write-observer.js';

export type RequestOptions = {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  readonly contentType?: string;
  /** Default 30 s; 0: none of its own (undici's idle timeouts still apply: 300 s for headers, and between chunks). */
  readonly timeoutMs?: number;
  /**
   * Awaited after the rate limiter's wait, before beforeSend: the writer's lease confirmation, whose round trip
   * overlaps the limiter's; a rejection stops the request unsent.
   */
  readonly sendAfter?: Promise<unknown>;
  /** Called right before the request is sent (after the rate limiter's wait); throwing stops it (fencing). */
  readonly beforeSend?: () => void;
};

/** Waits until one more request to the cluster is within its API budget. */
export type RateLimiter = { take(): Promise<void> };

/** No client-side budget: for requests that never went through the cluster's (the forwarder's lists). */
export const NO_RATE_LIMIT: RateLimiter = { take: async () => undefined };

export type RequestObserver = (e: { cluster: string; method: string; code: number; ms: number }) => void;

export class KubeRest {
  private server: string;
  private requests = 0;
  /**
   * The connection pool every request of this client goes through. client-node's applySecurityAuthentication
   * makes a new undici Agent (a new TLS context and connection) for each request it authenticates: a TLS
   * handshake per API request, on both sides, and most of this process's CPU under a rollout (a CPU profile of
   * a 50-pod StatefulSet rollout). One is kept, as client-go keeps one transport per client, until the CA or
   * the client certificate or key change (a rotated file, a kubeconfig loaded again): then the Agent made for
   * that request replaces it, and the old one closes once its requests are done. The credentials in the
   * headers (a rotated token file) are still read on every request.
   */
  private dispatcher: Dispatcher | undefined;
  private readonly tls = new TlsMaterial();
  private readonly kubeConfig: () => KubeConfig;

  constructor(
    readonly cluster: string,
    /** The cluster's KubeConfig, or where to get its current one (a kubeconfig file loaded again when it changes). */
    kc: KubeConfig | (() => KubeConfig),
    private readonly limiter: RateLimiter,
    private readonly observe?: RequestObserver,
    private readonly circuit?: ClusterCircuit,
  ) {
    this.kubeConfig = typeof kc === 'function' ? kc : () => kc;
    this.server = serverOf(cluster, this.kubeConfig());
  }

  /** Requests issued so far (for API-requests-per-reconcile figures). */
  get requestCount(): number {
    return this.requests;
  }

  async request<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    // Refused before the rate limiter's wait: a cluster that does not answer costs no slot time.
    const ticket = this.circuit?.admit();
    const progress = { sent: false, answered: false };
    try {
      return await this.send<T>(method, path, o, progress);
    } finally {
      ticket?.settle(progress.sent ? progress.answered : undefined);
    }
  }

  /**
   * Lets go of the connection pool (its kept-alive sockets, their parsers and buffers): the requests it carries
   * finish, then it closes; the next request builds a new one, as after a rotation. For clients that will stay
   * unused a while (runtime/clients.ts forgets idle clusters' clients): a pool keeps its sockets open as long as
   * the apiserver's keep-alive allows, and the sockets keep the pool.
   */
  releaseConnections(): void {
    this.replaceDispatcher(undefined);
    this.tls.forget();
  }

  /** The new pool takes the next requests; the old one closes once the requests it carries are done. */
  private replaceDispatcher(next: Dispatcher | undefined): void {
    const old = this.dispatcher;
    this.dispatcher = next;
    if (old && old !== next) old.close().catch(() => undefined);
  }

  private async send<T>(
    method: string,
    path: string,
    o: RequestOptions,
    progress: { sent: boolean; answered: boolean },
  ): Promise<T> {
    await this.limiter.take();
    if (o.sendAfter) await o.sendAfter;
    const kc = this.kubeConfig();
    // Looked at before client-node reads the files for this request's Agent: a change after the look is seen
    // by the next one.
    const rotated = this.tls.changed(kc);
    let server = this.server;
    let url: URL;
    let ctx: RequestContext;
    try {
      if (rotated) server = serverOf(this.cluster, kc);
      url = new URL(server + path);
      for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
      ctx = new RequestContext(url.toString(), method as HttpMethod);
      await kc.applySecurityAuthentication(ctx);
    } catch (err) {
      if (rotated) this.tls.forget(); // the new material was not taken up: look again next request
      throw err;
    }
    if (rotated) {
      this.server = server;
      this.replaceDispatcher(ctx.getDispatcher() as Dispatcher | undefined);
    }
    o.beforeSend?.();
    const headers: Record<string, string> = { ...ctx.getHeaders(), accept: 'application/json' };
    if (o.body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
    const started = Date.now();
    this.requests++;
    let code = 0;
    try {
      progress.sent = true;
      const res = await fetch(url, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
        dispatcher: this.dispatcher,
        signal: o.timeoutMs === 0 ? undefined : AbortSignal.timeout(o.timeoutMs ?? 30_000),
      });
      code = res.status;
      progress.answered = true;
      const text = await res.text();
      if (res.status >= 400) throw new ApiError(res.status, method, path, reasonOf(text, res.statusText), text);
      const parsed = (text === '' ? undefined : JSON.parse(text)) as T;
      // Read-your-writes: the reconcile this request belongs to (if any) learns what its write returned.
      if (method !== 'GET') currentWriteObserver()?.noteWrite(method, path, o.body, parsed);
      return parsed;
    } finally {
      this.observe?.({ cluster: this.cluster, method, code, ms: Date.now() - started });
    }
  }
}

function serverOf(cluster: string, kc: KubeConfig): string {
  const c = kc.getCurrentCluster();
  if (!c) throw new Error(`cluster ${cluster}: kubeconfig has no current cluster`);
  return c.server.replace(/\/$/, '');
}

function reasonOf(body: string, fallback: string): string {
  try {
    const status = JSON.parse(body) as { reason?: string; message?: string };
    return [status.reason, status.message].filter(Boolean).join(': ') || fallback;
  } catch {
    return fallback;
  }
}
