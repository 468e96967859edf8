// API requests as a sandbox apiserver saw them, read from its audit log (infra/sandbox/audit.ts), grouped by
// client and by verb + resource. A request counts once (its audit ID; a watch is logged when its response
// starts and again when it ends) if the apiserver received it inside the window.
//
// Clients, from the authenticated user and the user agent:
//   fleetq/<serviceaccount>  fleetq's forwarder and handlers (their ServiceAccounts in fleetq-system);
//   fleetq/admin             fleetq on the admin token (CONFORMANCE_CREDENTIALS=admin): an admin request whose
//                            user agent is not a sandbox component's nor the bench's;
//   kcm/<controller>         kube-controller-manager: client-go's AddUserAgent suffixes each controller's name
//                            ("kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/<commit>/replicaset-controller");
//   bench                    the bench's own client (BENCH_USER_AGENT);
//   else the user agent's product (kube-scheduler, kwok, kube-apiserver, ...).
import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { WORKLOAD_CONTROLLERS } from '../../../infra/sandbox/modes.js';
import { BENCH_USER_AGENT } from '../bench/client.js';

type AuditEvent = {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly user?: { readonly username?: string };
  readonly userAgent?: string;
  readonly objectRef?: { readonly resource?: string; readonly subresource?: string; readonly apiGroup?: string };
  readonly responseStatus?: { readonly code?: number };
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp?: string;
};

/**
 * Requests of one client: by "verb resource[/subresource]", and by response code; `serverMs` sums the time the
 * apiserver took to answer them (received → response complete), over `timed` requests (watches left out).
 */
export type ClientCounts = {
  total: number;
  byRequest: Map<string, number>;
  byCode: Map<number, number>;
  serverMs?: number;
  timed?: number;
};
export type Tally = Map<string, ClientCounts>;

const KCM = /^kube-controller-manager\/\S+ \([^)]*\) kubernetes\/[^/\s]+(?:\/(.+))?$/;
const FLEETQ_SA = /^system:serviceaccount:fleetq-system:(.+)$/;
const COMPONENTS = new Set(['kube-controller-manager', 'kube-scheduler', 'kwok', 'kube-apiserver', 'kubectl']);

export function clientOf(username: string, userAgent: string, fleetqOnAdminToken: boolean): string {
  if (userAgent.startsWith(BENCH_USER_AGENT)) return 'bench';
  const sa = FLEETQ_SA.exec(username);
  if (sa) return `fleetq/${sa[1]}`;
  const kcm = KCM.exec(userAgent);
  if (kcm) return `kcm/${kcm[1] ?? 'main'}`;
  const product = userAgent.split('/')[0] || '(none)';
  if (fleetqOnAdminToken && username === 'sandbox-admin' && !COMPONENTS.has(product)) return 'fleetq/admin';
  return product;
}

/**
 * The user-agent suffixes of kube-controller-manager's workload controllers' clients: their --controllers names,
 * except the DaemonSet controller's, whose client is "daemon-set-controller" (cmd/kube-controller-manager/app/apps.go
 * at v1.37.2).
 */
const KCM_WORKLOAD_CLIENTS: ReadonlySet<string> = new Set([...WORKLOAD_CONTROLLERS, 'daemon-set-controller']);

/** The controller side of a comparison: fleetq itself, or kube-controller-manager's workload controllers. */
export function isControllerSide(client: string): boolean {
  if (client.startsWith('fleetq/')) return true;
  const kcm = client.startsWith('kcm/') ? client.slice(4) : undefined;
  return kcm !== undefined && KCM_WORKLOAD_CLIENTS.has(kcm);
}

/** The apiserver's time to answer a request (ms), from a ResponseComplete line; undefined for a watch. */
function serverTime(e: AuditEvent): number | undefined {
  if (e.stage !== 'ResponseComplete' || e.verb === 'watch' || !e.stageTimestamp) return undefined;
  return Date.parse(e.stageTimestamp) - Date.parse(e.requestReceivedTimestamp);
}

function requestOf(e: AuditEvent): string {
  const ref = e.objectRef;
  if (!ref?.resource) return `${e.verb} (non-resource)`;
  const group = ref.resource === 'events' && ref.apiGroup ? ` (${ref.apiGroup})` : '';
  return `${e.verb} ${ref.resource}${ref.subresource ? `/${ref.subresource}` : ''}${group}`;
}

/** The log and its rotated backups (audit-<time>.log), oldest first. */
function logFiles(log: string): string[] {
  const dir = dirname(log);
  const stem = basename(log, '.log');
  const backups = existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.startsWith(`${stem}-`) && f.endsWith('.log'))
        .sort()
        .map((f) => join(dir, f))
    : [];
  return [...backups, ...(existsSync(log) ? [log] : [])];
}

/**
 * A cluster's audit log, read from where the last `mark()` left it (rotation since then: every file is read,
 * the window still applies).
 */
export class AuditLog {
  private offset = 0;
  private files: string[] = [];

  constructor(
    readonly path: string,
    private readonly fleetqOnAdminToken: boolean,
  ) {}

  /** Remembers the end of the log: the next tally reads from here. */
  mark(): void {
    this.files = logFiles(this.path);
    this.offset = existsSync(this.path) ? statSync(this.path).size : 0;
  }

  async tally(fromMs: number, toMs: number): Promise<Tally> {
    const files = logFiles(this.path);
    const rotated = files.join('\n') !== this.files.join('\n');
    const reads = rotated ? files.map((f) => ({ f, start: 0 })) : [{ f: this.path, start: this.offset }];
    const seen = new Map<string, { client: string; request: string; code: number; ms: number | undefined }>();
    for (const { f, start } of reads) {
      if (!existsSync(f)) continue;
      const lines = createInterface({ input: createReadStream(f, { start }), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line === '') continue;
        let e: AuditEvent;
        try {
          e = JSON.parse(line) as AuditEvent;
        } catch {
          continue; // the last line, still being written: a request after the window (tallies run after it)
        }
        const at = Date.parse(e.requestReceivedTimestamp);
        if (at < fromMs || at > toMs) continue;
        const code = e.responseStatus?.code ?? 0;
        const known = seen.get(e.auditID);
        if (known) {
          if (e.stage === 'ResponseComplete' || e.stage === 'Panic') {
            known.code = code;
            known.ms = serverTime(e);
          }
          continue;
        }
        const client = clientOf(e.user?.username ?? '', e.userAgent ?? '', this.fleetqOnAdminToken);
        seen.set(e.auditID, { client, request: requestOf(e), code, ms: serverTime(e) });
      }
    }
    const tally: Tally = new Map();
    for (const { client, request, code, ms } of seen.values()) {
      let c = tally.get(client);
      if (!c) tally.set(client, (c = { total: 0, byRequest: new Map(), byCode: new Map() }));
      c.total++;
      c.byRequest.set(request, (c.byRequest.get(request) ?? 0) + 1);
      c.byCode.set(code, (c.byCode.get(code) ?? 0) + 1);
      if (ms !== undefined) {
        c.serverMs = (c.serverMs ?? 0) + ms;
        c.timed = (c.timed ?? 0) + 1;
      }
    }
    return tally;
  }
}

/** The sum of the controller side's clients: total, by request, by code. */
export function controllerSide(tally: Tally): ClientCounts {
  const sum: ClientCounts = { total: 0, byRequest: new Map(), byCode: new Map() };
  for (const [client, c] of tally) {
    if (!isControllerSide(client)) continue;
    sum.total += c.total;
    for (const [k, n] of c.byRequest) sum.byRequest.set(k, (sum.byRequest.get(k) ?? 0) + n);
    for (const [k, n] of c.byCode) sum.byCode.set(k, (sum.byCode.get(k) ?? 0) + n);
    if (c.timed) {
      sum.serverMs = (sum.serverMs ?? 0) + (c.serverMs ?? 0);
      sum.timed = (sum.timed ?? 0) + c.timed;
    }
  }
  return sum;
}
