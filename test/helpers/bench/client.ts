// A bench's own client of a sandbox cluster: the admin token, no rate limit, and a user agent of its own
// (BENCH_USER_AGENT), so that the apiserver's audit log tells its requests apart from the controllers' (the
// components of a sandbox cluster, and fleetq with CONFORMANCE_CREDENTIALS=admin, share the admin token).
// Raw JSON in and out, like the conformance harness' KubeRest, plus a watch that reports when each event arrived.
import { KubeConfig, RequestContext, type HttpMethod } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';
import { ApiError, isConflict } from '../../../shared/kube/errors.js';

export const BENCH_USER_AGENT = 'fleetq-bench/read-path';

export type RawObject = { metadata?: { name?: string; namespace?: string; resourceVersion?: string } };
export type RawEvent = { readonly type: string; readonly object: RawObject };

/** A running watch: stop() ends it; it watches again from the last resourceVersion when the server ends it. */
export type RunningWatch = { stop(): void };

type Response = Awaited<ReturnType<typeof fetch>>;
type Body = NonNullable<Response['body']>;

export class BenchClient {
  private readonly server: string;
  /** One connection pool for every request (client-node makes a new Agent, a TLS handshake, per request). */
  private dispatcher: Dispatcher | undefined;

  constructor(private readonly kc: KubeConfig) {
    const c = kc.getCurrentCluster();
    if (!c) throw new Error('kubeconfig has no current cluster');
    this.server = c.server.replace(/\/$/, '');
  }

  static fromKubeconfig(path: string): BenchClient {
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    return new BenchClient(kc);
  }

  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const res = await this.send(method, path, { body, contentType });
    const text = await res.text();
    if (res.status >= 400) throw new ApiError(res.status, method, path, res.statusText, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Read-modify-replace, retried on conflict (controllers write the object's status meanwhile). */
  async update<T extends { metadata: { resourceVersion?: string } }>(path: string, mutate: (o: T) => void): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const obj = await this.request<T>('GET', path);
      mutate(obj);
      try {
        return await this.request<T>('PUT', path, obj);
      } catch (err) {
        if (!isConflict(err) || attempt >= 20) throw err;
      }
    }
  }

  /**
   * Watches `path` (a collection) from `resourceVersion`; `onEvent` gets each ADDED/MODIFIED/DELETED event with
   * the time its chunk arrived. Resolves once the first stream is open.
   */
  async watch(
    path: string,
    resourceVersion: string,
    onEvent: (e: RawEvent, receivedAt: number) => void,
  ): Promise<RunningWatch> {
    const stop = new AbortController();
    let rv = resourceVersion;
    const open = async (): Promise<Body> => {
      const query = `watch=true&resourceVersion=${encodeURIComponent(rv)}&timeoutSeconds=3600`;
      const res = await this.send('GET', `${path}?${query}`, { signal: stop.signal });
      if (res.status !== 200 || !res.body) throw new ApiError(res.status, 'GET', path, await res.text(), '');
      return res.body;
    };
    const consume = async (body: Body): Promise<void> => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of body) {
        const at = Date.now();
        buffer += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (line.trim() === '') continue;
          const e = JSON.parse(line) as RawEvent;
          if (e.type === 'ERROR') {
            // 410 Gone cannot be resumed from here: the bench's watches are short, so it ends the watch.
            console.error(`bench watch ${path} ended: ${line.slice(0, 300)}`);
            stop.abort();
            return;
          }
          rv = e.object.metadata?.resourceVersion ?? rv;
          onEvent(e, at);
        }
      }
    };
    const first = await open();
    void (async () => {
      let body: Body | undefined = first;
      while (!stop.signal.aborted) {
        try {
          body ??= await open();
          await consume(body);
        } catch (err) {
          if (stop.signal.aborted) return;
          console.error(`bench watch ${path}: ${err instanceof Error ? err.message : String(err)}; watching again`);
          await new Promise((r) => setTimeout(r, 500));
        }
        body = undefined;
      }
    })();
    return { stop: () => stop.abort() };
  }

  private async send(
    method: string,
    path: string,
    o: { body?: unknown; contentType?: string; signal?: AbortSignal },
  ): Promise<Response> {
    const url = new URL(this.server + path);
    const ctx = new RequestContext(url.toString(), method as HttpMethod);
    await this.kc.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = {
      ...ctx.getHeaders(),
      accept: 'application/json',
      'user-agent': BENCH_USER_AGENT,
    };
    if (o.body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
    return fetch(url, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      dispatcher: (this.dispatcher ??= ctx.getDispatcher() as Dispatcher | undefined),
      signal: o.signal ?? AbortSignal.timeout(60_000),
    });
  }
}
