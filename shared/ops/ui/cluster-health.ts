// Whether each registered cluster's apiserver answers, for `fleetq ui`: one GET /version per cluster (readable by
// any client, authenticated or not: the system:public-info-viewer role), with a short timeout so an unreachable
// cluster costs a page refresh no more than that. A client per cluster is kept between probes (its connection
// pool with it), and rebuilt only by its registry entry's kubeconfig changing (KubeRest does that itself).
import { ApiError } from '../../kube/errors.js';
import { redactText } from '../../kube/redact-secrets.js';
import type { ClusterRegistry } from '../../kube/registry.js';
import { KubeRest, NO_RATE_LIMIT } from '../../kube/rest.js';
import { displayText } from '../terminal-text.js';

export const HEALTH = {
  /** The apiserver answered /version. */
  ok: 'ok',
  /** It answered with an error status (credentials refused, a proxy in the way). */
  refused: 'refused',
  /** No answer: connection refused, DNS, TLS, or the timeout. */
  unreachable: 'unreachable',
  /** Not in the registry (a cluster only the queue names): nothing to ask. */
  unknown: 'unknown',
} as const;
export type HealthState = (typeof HEALTH)[keyof typeof HEALTH];

export type ClusterHealth = {
  readonly state: HealthState;
  /** The apiserver's version when it answered, else what went wrong, in words (redacted, one line). */
  readonly detail: string;
};

export class ClusterHealthProbe {
  private readonly clients = new Map<string, KubeRest>();

  constructor(
    readonly registry: ClusterRegistry,
    private readonly timeoutMs = 3_000,
  ) {}

  /** Every registered cluster's health, asked at once. */
  async probeAll(): Promise<Map<string, ClusterHealth>> {
    const names = this.registry.clusters.map((c) => c.name);
    const results = await Promise.all(names.map((name) => this.probe(name)));
    return new Map(names.map((name, i) => [name, results[i] as ClusterHealth]));
  }

  async probe(name: string): Promise<ClusterHealth> {
    if (this.registry.get(name) === undefined) return { state: HEALTH.unknown, detail: 'not in the registry' };
    try {
      const version = await this.client(name).request<{ gitVersion?: string }>('GET', '/version', {
        timeoutMs: this.timeoutMs,
      });
      return { state: HEALTH.ok, detail: oneLine(version?.gitVersion ?? 'answered') };
    } catch (err) {
      if (err instanceof ApiError) return { state: HEALTH.refused, detail: oneLine(`HTTP ${err.code} ${err.reason}`) };
      return { state: HEALTH.unreachable, detail: oneLine(errorText(err)) };
    }
  }

  private client(name: string): KubeRest {
    let c = this.clients.get(name);
    if (!c) this.clients.set(name, (c = new KubeRest(name, () => this.registry.kubeConfig(name), NO_RATE_LIMIT)));
    return c;
  }
}

/** The error and its causes' messages (undici hides ECONNREFUSED in `cause`). */
export function errorText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    if (e instanceof Error) {
      if (e.name === 'TimeoutError') parts.push('no answer within the timeout');
      else if (e.message && !parts.includes(e.message)) parts.push(e.message);
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(': ') || 'no answer';
}

const oneLine = (text: string): string => displayText(redactText(text), 300);
