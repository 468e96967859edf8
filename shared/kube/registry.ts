// The cluster registry: which clusters fleetq serves, how to reach each, which kinds it owns there,
// and per-cluster limits. Read from a YAML file validated with a schema; a bad file names the field.
// Clients are built lazily and cached per cluster, so one unreachable cluster never stops the others.
//
// Credentials: a `tokenFile` is re-read when it changes (token-file.ts), so a rotated token takes effect without
// a restart; so is a `kubeconfig` file (looked at once a second: a new KubeConfig when it changed, its inline
// certificates included; a file that no longer loads or passes the checks below keeps the last one, with a
// warning), and KubeRest builds a new connection pool for changed TLS material (tls-material.ts). A connection that would send it in clear (`http://`) or to an unverified server
// (`insecureSkipTLSVerify`, also inside a kubeconfig) needs `allowInsecure: true` in the entry, and is logged as a
// warning when used; without it the registry is refused, naming the field.
//
// `mirror.allowedNamespaces` (per cluster, or in defaults): the namespaces the example ConfigMap mirror may
// write copies into; DNS labels, or a prefix ending in `*` (`team-*`). Empty (the default) allows none, and the
// system namespaces are refused whatever the list says.
//
// `labels` (per cluster): Kubernetes-style labels a FleetRollout's cluster selectors match; `hub: true` marks the one
// cluster that holds fleetq's own resources (FleetRollouts). At most one cluster is the hub.
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ALL_KINDS, DEFAULT_OWNED_KINDS, HAND_OVER_KINDS, OWNED_TOGETHER, type Kind } from './kinds.js';
import { SYSTEM_NAMESPACES } from './names.js';
import { TOKEN_FILE_AUTH, TokenFile, TokenFileAuthenticator } from './token-file.js';
import { redactText, redactValue } from './redact-secrets.js';

const NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
/** A namespace (DNS-1123 label), or a prefix of one ending in '*'. */
const NAMESPACE_PATTERN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?|[a-z0-9][a-z0-9-]{0,61}\*)$/;

/** A label name: DNS-1123 subdomain prefix (optional, ≤253) + '/' + a name of ≤63 alphanumerics, '-', '_', '.'. */
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A label value: empty, or ≤63 alphanumerics, '-', '_', '.', beginning and ending with an alphanumeric. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Why a label key is not a valid Kubernetes label key, or undefined when it is (apimachinery's IsQualifiedName). */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `label key ${JSON.stringify(key)}: the prefix must be a lowercase DNS subdomain of at most 253 characters`;
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name))
    return `label key ${JSON.stringify(key)}: the name must be 1-63 characters, alphanumerics, '-', '_' or '.', beginning and ending with an alphanumeric (with an optional DNS prefix and '/')`;
  return undefined;
}

/** Why a label value is not a valid Kubernetes label value, or undefined when it is. */
export function labelValueProblem(value: string): string | undefined {
  if (value.length > 63 || !LABEL_VALUE.test(value))
    return "must be at most 63 characters, alphanumerics, '-', '_' or '.', beginning and ending with an alphanumeric (or empty)";
  return undefined;
}

/** A cluster's labels, matched by FleetRollout selectors: Kubernetes label keys and values. */
const labelsSchema = z
  .record(
    z.string(),
    z.string({
      error: (issue) =>
        `must be a string (quote it: ${JSON.stringify(String(issue.input))}), as Kubernetes label values are`,
    }),
    'must be a map of label keys to values',
  )
  .superRefine((labels, ctx) => {
    for (const [key, value] of Object.entries(labels)) {
      const problem = labelKeyProblem(key) ?? labelValueProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
    }
  });

const mirrorSchema = z
  .object({
    allowedNamespaces: z
      .array(
        z
          .string()
          .regex(NAMESPACE_PATTERN, "must be a namespace name or a prefix ending in '*'")
          .refine((ns) => !SYSTEM_NAMESPACES.includes(ns), 'system namespaces are never mirror targets'),
      )
      .optional(),
  })
  .strict();

/** A kind a cluster owns: one of the registered descriptors' (kinds.ts); an unknown one is refused naming them. */
const kindSchema = z.enum(ALL_KINDS as [Kind, ...Kind[]], {
  error: (issue) => `unknown kind ${JSON.stringify(issue.input)}; the known kinds are ${ALL_KINDS.join(', ')}`,
});

/**
 * Kinds whose objects a cluster hands to fleetq one at a time, through the object's own field (KEP-4368's
 * spec.managedBy: Job), while its controller-manager keeps the kind's controller for the rest: the kinds whose
 * descriptor says how to tell (`for.handedOver`).
 */
const handOverSchema = z.array(
  z.enum(HAND_OVER_KINDS as [Kind, ...Kind[]], {
    error: (issue) =>
      `${JSON.stringify(issue.input)} cannot be handed over one object at a time; only ${HAND_OVER_KINDS.join(', ')} can (its own field: Job's spec.managedBy)`,
  }),
);

/** What the event log keeps of this cluster's objects (log-record.ts): ConfigMap data only when opted in. */
const eventLogSchema = z
  .object({
    /** Log ConfigMaps with their data (default false: data, binaryData and last-applied are dropped). */
    configMapData: z.boolean('must be true or false'),
  })
  .strict();

const limitsSchema = z
  .object({
    /** Reconciles of this cluster running at once, fleet-wide. */
    concurrency: z.number().int().positive().optional(),
    /**
     * API requests per second each controller sends to this cluster, fleet-wide (a token bucket per cluster and
     * controller, as kube-controller-manager gives each controller a client of its own).
     */
    qps: z.number().positive().optional(),
    /** Requests each controller may send at once after a quiet spell (the bucket's size). */
    burst: z.number().int().positive().optional(),
    /** Optional cap on every controller's requests to this cluster together, fleet-wide (unset: none). */
    clusterQps: z.number().positive().optional(),
    /** The cap's burst; with clusterQps only (default: clusterQps rounded up, at least 1). */
    clusterBurst: z.number().int().positive().optional(),
  })
  .strict();

const clusterSchema = z
  .object({
    name: z.string().regex(NAME, 'must be a lowercase DNS-style name'),
    kubeconfig: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    server: z.url().optional(),
    tokenFile: z.string().min(1).optional(),
    caFile: z.string().min(1).optional(),
    insecureSkipTLSVerify: z.boolean().optional(),
    /** Required for an http:// server or insecureSkipTLSVerify (here or in the kubeconfig). */
    allowInsecure: z.boolean().optional(),
    owns: z.array(kindSchema).optional(),
    handOver: handOverSchema.optional(),
    limits: limitsSchema.optional(),
    mirror: mirrorSchema.optional(),
    eventLog: eventLogSchema.optional(),
    /** Labels a FleetRollout's cluster selectors match. */
    labels: labelsSchema.optional(),
    /** This cluster holds fleetq's own resources (FleetRollouts); at most one cluster is the hub. */
    hub: z.boolean('must be true or false').optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.allowInsecure !== true && c.server?.toLowerCase().startsWith('http://')) {
      ctx.addIssue({
        code: 'custom',
        message: 'an http:// server sends the token in clear text; set allowInsecure: true to allow it',
        path: ['server'],
      });
    }
    if (c.allowInsecure !== true && c.insecureSkipTLSVerify === true) {
      ctx.addIssue({
        code: 'custom',
        message: "skips verifying the server's certificate; set allowInsecure: true to allow it",
        path: ['insecureSkipTLSVerify'],
      });
    }
    if (c.kubeconfig === undefined && c.server === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'needs kubeconfig (optionally with context) or server with tokenFile',
        path: ['kubeconfig'],
      });
    }
    if (c.kubeconfig !== undefined && c.server !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'give kubeconfig or server, not both', path: ['server'] });
    }
    if (c.server !== undefined && c.tokenFile === undefined) {
      ctx.addIssue({ code: 'custom', message: 'server needs tokenFile', path: ['tokenFile'] });
    }
  });

const registrySchema = z
  .object({
    defaults: z
      .object({
        owns: z.array(kindSchema).optional(),
        handOver: handOverSchema.optional(),
        limits: limitsSchema.optional(),
        mirror: mirrorSchema.optional(),
        eventLog: eventLogSchema.optional(),
      })
      .strict()
      .optional(),
    clusters: z.array(clusterSchema).min(1, 'must list at least one cluster'),
  })
  .strict()
  .superRefine((r, ctx) => {
    const seen = new Set<string>();
    r.clusters.forEach((c, i) => {
      if (seen.has(c.name))
        ctx.addIssue({ code: 'custom', message: `duplicate cluster name ${c.name}`, path: ['clusters', i, 'name'] });
      seen.add(c.name);
    });
    if (r.defaults?.owns?.includes(HUB_KIND))
      ctx.addIssue({
        code: 'custom',
        message: `${HUB_KIND} is owned by the hub only (the entry with hub: true), not by default`,
        path: ['defaults', 'owns'],
      });
    r.clusters.forEach((c, i) => {
      if (c.hub !== true && c.owns?.includes(HUB_KIND))
        ctx.addIssue({
          code: 'custom',
          message: `${HUB_KIND} is owned by the hub only: mark this entry hub: true, or take ${HUB_KIND} out of owns`,
          path: ['clusters', i, 'owns'],
        });
    });
    r.clusters.forEach((c, i) => {
      const limits = { ...r.defaults?.limits, ...c.limits };
      if (limits.clusterBurst !== undefined && limits.clusterQps === undefined)
        ctx.addIssue({
          code: 'custom',
          message: 'clusterBurst is the burst of the cap clusterQps sets; give clusterQps too (here or in defaults)',
          path:
            c.limits?.clusterBurst !== undefined
              ? ['clusters', i, 'limits', 'clusterBurst']
              : ['defaults', 'limits', 'clusterBurst'],
        });
    });
    const defaultsApart = r.defaults?.owns && ownedApart(r.defaults.owns);
    if (defaultsApart) ctx.addIssue({ code: 'custom', message: defaultsApart, path: ['defaults', 'owns'] });
    r.clusters.forEach((c, i) => {
      const apart = c.owns && ownedApart(c.owns);
      if (apart) ctx.addIssue({ code: 'custom', message: apart, path: ['clusters', i, 'owns'] });
    });
    const hubs = r.clusters.flatMap((c, i) => (c.hub === true ? [{ name: c.name, i }] : []));
    for (const extra of hubs.slice(1)) {
      ctx.addIssue({
        code: 'custom',
        message: `${hubs[0]?.name} and ${extra.name} both say hub: true; at most one cluster is the hub`,
        path: ['clusters', extra.i, 'hub'],
      });
    }
  });

/** A token bucket's size: `qps` tokens a second, at most `burst` saved up. */
export type BudgetRate = { readonly qps: number; readonly burst: number };

export type ClusterLimits = {
  readonly concurrency?: number;
  /** Each controller's budget for this cluster, fleet-wide: `qps`/`burst` of the registry's limits. */
  readonly qps: number;
  readonly burst: number;
  /** The cap on all controllers together (registry `clusterQps`/`clusterBurst`); absent: none. */
  readonly cluster?: BudgetRate;
};

/** Where the ConfigMap mirror may write copies: namespace names or `prefix*` patterns (none by default). */
export type MirrorPolicy = { readonly allowedNamespaces: readonly string[] };

export type ClusterConfig = {
  readonly name: string;
  readonly owns: readonly Kind[];
  /**
   * Kinds not owned whose objects are reconciled one by one when they name fleetq (Job: spec.managedBy
   * `fleetq.dev/job-controller`); the cluster's own controller keeps the rest. Absent: none.
   */
  readonly handOver?: readonly Kind[];
  readonly limits: ClusterLimits;
  /** The entry's `allowInsecure: true`: http:// or unverified TLS may be used (and is logged when it is). */
  readonly allowInsecure?: boolean;
  /** Undefined: the mirror may write nowhere. */
  readonly mirror?: MirrorPolicy;
  /** Registry `eventLog.configMapData: true`: the event log keeps ConfigMap data (redacted by default). */
  readonly eventLog?: { readonly configMapData: boolean };
  /** Labels FleetRollout selectors match (absent: none). */
  readonly labels?: Readonly<Record<string, string>>;
  /** The hub: the one cluster that holds fleetq's own resources (FleetRollouts). */
  readonly hub?: true;
  /** How to connect: a kubeconfig file (+ context), or a server with a token file. */
  readonly connection:
    | { readonly type: 'kubeconfig'; readonly path: string; readonly context?: string }
    | {
        readonly type: 'token';
        readonly server: string;
        readonly tokenFile: string;
        readonly caFile?: string;
        readonly insecureSkipTLSVerify: boolean;
      };
};

export class RegistryError extends Error {
  override name = 'RegistryError';
}

/**
 * Each controller's budget when the registry does not say: kube-controller-manager's client for each controller
 * (`--kube-api-qps` 20, `--kube-api-burst` 30). No cap on the cluster as a whole.
 */
export const DEFAULT_LIMITS: ClusterLimits = { qps: 20, burst: 30 };

export function parseRegistry(text: string, source: string, baseDir = process.cwd()): ClusterConfig[] {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new RegistryError(`${source}: not valid YAML: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = registrySchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${formatPath(i.path)}: ${i.message}`);
    throw new RegistryError(`${source}: invalid cluster registry\n${lines.join('\n')}`);
  }
  const abs = (p: string): string => (isAbsolute(p) ? p : resolve(baseDir, p));
  const defaults = parsed.data.defaults ?? {};
  return parsed.data.clusters.map((c) => ({
    name: c.name,
    owns: hubOwns(c.owns ?? defaults.owns ?? DEFAULT_OWNED_KINDS, c.hub === true),
    ...((c.handOver ?? defaults.handOver ?? []).length > 0 && { handOver: c.handOver ?? defaults.handOver }),
    limits: clusterLimits({ ...defaults.limits, ...c.limits }),
    ...(c.allowInsecure === true && { allowInsecure: true }),
    ...((c.mirror ?? defaults.mirror) !== undefined && {
      mirror: { allowedNamespaces: (c.mirror ?? defaults.mirror)?.allowedNamespaces ?? [] },
    }),
    ...((c.eventLog ?? defaults.eventLog) !== undefined && { eventLog: c.eventLog ?? defaults.eventLog }),
    ...(c.labels !== undefined && Object.keys(c.labels).length > 0 && { labels: { ...c.labels } }),
    ...(c.hub === true && { hub: true as const }),
    connection:
      c.kubeconfig !== undefined
        ? { type: 'kubeconfig', path: abs(c.kubeconfig), context: c.context }
        : {
            type: 'token',
            server: c.server ?? '',
            tokenFile: abs(c.tokenFile ?? ''),
            caFile: c.caFile === undefined ? undefined : abs(c.caFile),
            insecureSkipTLSVerify: c.insecureSkipTLSVerify ?? false,
          },
  }));
}

type LimitsEntry = z.infer<typeof limitsSchema>;

/** A cluster's limits from its entry merged over the defaults' (the cap's burst defaults from its qps). */
export function clusterLimits(entry: LimitsEntry): ClusterLimits {
  const { clusterQps, clusterBurst, ...rest } = entry;
  const limits = { ...DEFAULT_LIMITS, ...rest };
  if (clusterQps === undefined) return limits;
  return { ...limits, cluster: { qps: clusterQps, burst: clusterBurst ?? Math.max(1, Math.ceil(clusterQps)) } };
}

/**
 * Why `owns` is refused for owning part of a group of kinds owned together (kinds.ts OWNED_TOGETHER: the key kinds
 * of one upstream controller), naming the group and what is missing; undefined when it owns all or none of each.
 */
export function ownedApart(
  owns: readonly string[],
  groups: readonly (readonly string[])[] = OWNED_TOGETHER,
): string | undefined {
  for (const group of groups) {
    const missing = group.filter((k) => !owns.includes(k));
    if (missing.length === 0 || missing.length === group.length) continue;
    const names = `${group.slice(0, -1).join(', ')} and ${group.at(-1)}`;
    const has = group.filter((k) => owns.includes(k)).join(', ');
    return `${names} are owned together or not at all (the keys of one upstream controller): owns ${has} without ${missing.join(', ')}`;
  }
  return undefined;
}

/** The kind of fleetq's own resources, which the hub owns (whether its entry lists it or not). */
const HUB_KIND = 'FleetRollout' as Kind;

function hubOwns(owns: readonly Kind[], hub: boolean): readonly Kind[] {
  return hub && !owns.includes(HUB_KIND) ? [...owns, HUB_KIND] : owns;
}

export function loadRegistry(path: string): ClusterConfig[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new RegistryError(
      `cannot read cluster registry ${path}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return parseRegistry(text, path, dirname(path));
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
}

export type RegistryWarning = (message: string, fields: Record<string, unknown>) => void;

/** Default warning sink: one JSON line on stderr, in the runtime logger's shape (credentials hidden, as there). */
const stderrWarning: RegistryWarning = (message, fields) => {
  const safe = redactValue(fields) as Record<string, unknown>;
  const line = { level: 'warn', time: new Date().toISOString(), message: redactText(message), ...safe };
  process.stderr.write(`${JSON.stringify(line)}\n`);
};

/** A kubeconfig file is looked at (one stat) at most this often. */
const KUBECONFIG_CHECK_MS = 1_000;

/** Builds each cluster's KubeConfig on first use and keeps it (a kubeconfig file: until the file changes). */
export class ClusterRegistry {
  private readonly byName: ReadonlyMap<string, ClusterConfig>;
  private readonly configs = new Map<string, { kc: KubeConfig; file?: { signature: string; checkedAt: number } }>();

  constructor(
    readonly clusters: readonly ClusterConfig[],
    private readonly warn: RegistryWarning = stderrWarning,
  ) {
    this.byName = new Map(clusters.map((c) => [c.name, c]));
  }

  get(name: string): ClusterConfig | undefined {
    return this.byName.get(name);
  }

  owns(cluster: string, kind: string): boolean {
    return this.byName.get(cluster)?.owns.includes(kind as Kind) ?? false;
  }

  /** The cluster hands objects of `kind` over one by one (and does not own the kind). */
  handsOver(cluster: string, kind: string): boolean {
    return !this.owns(cluster, kind) && (this.byName.get(cluster)?.handOver?.includes(kind as Kind) ?? false);
  }

  kubeConfig(name: string): KubeConfig {
    const cached = this.configs.get(name);
    const c = this.byName.get(name);
    if (cached && !this.kubeconfigChanged(c, cached.file)) return cached.kc;
    if (!c) throw new RegistryError(`unknown cluster ${name}`);
    if (!cached) return this.load(c);
    try {
      return this.load(c);
    } catch (err) {
      // A parser's message may quote the file, whose inline keys must not reach the logs: only ours are shown.
      const path = c.connection.type === 'kubeconfig' ? c.connection.path : undefined;
      this.warn('Kubeconfig file not reloaded, the last one kept; fix the file', {
        cluster: name,
        path,
        error: err instanceof RegistryError ? err.message : `it does not load as a kubeconfig (${errorName(err)})`,
      });
      return cached.kc;
    }
  }

  /** Whether the cluster's kubeconfig file changed since it was loaded (looked at once per KUBECONFIG_CHECK_MS). */
  private kubeconfigChanged(c: ClusterConfig | undefined, file: { signature: string; checkedAt: number } | undefined) {
    if (!c || c.connection.type !== 'kubeconfig' || !file) return false;
    const now = Date.now();
    if (now - file.checkedAt < KUBECONFIG_CHECK_MS) return false;
    file.checkedAt = now;
    const signature = fileSignature(c.connection.path);
    if (signature === file.signature) return false;
    file.signature = signature; // a file that fails to load is tried again when it changes again
    return true;
  }

  private load(c: ClusterConfig): KubeConfig {
    const signature = c.connection.type === 'kubeconfig' ? fileSignature(c.connection.path) : undefined;
    const kc = new KubeConfig();
    if (c.connection.type === 'kubeconfig') {
      kc.loadFromFile(c.connection.path);
      if (c.connection.context) kc.setCurrentContext(c.connection.context);
    } else {
      const conn = c.connection;
      const http = conn.server.toLowerCase().startsWith('http://');
      // The token is read on each request from the file (re-read when it changes), never kept in the config.
      kc.addAuthenticator(new TokenFileAuthenticator(new TokenFile(conn.tokenFile)));
      kc.loadFromOptions({
        clusters: [
          {
            name: c.name,
            server: conn.server,
            caFile: conn.caFile,
            // client-node refuses http:// unless TLS verification is off; the schema required allowInsecure for it.
            skipTLSVerify: conn.insecureSkipTLSVerify || http,
          },
        ],
        users: [{ name: `${c.name}-user`, authProvider: { name: TOKEN_FILE_AUTH, config: {} } }],
        contexts: [{ name: c.name, cluster: c.name, user: `${c.name}-user` }],
        currentContext: c.name,
      });
    }
    this.checkInsecure(c, kc);
    // The identity seen before the read: a change after it is seen at the next look.
    this.configs.set(c.name, { kc, ...(signature !== undefined && { file: { signature, checkedAt: Date.now() } }) });
    return kc;
  }

  /** Refuses an insecure connection without allowInsecure (a kubeconfig may say so); warns when one is used. */
  private checkInsecure(c: ClusterConfig, kc: KubeConfig): void {
    const cluster = kc.getCurrentCluster();
    const reasons = [
      ...(cluster?.server.toLowerCase().startsWith('http://') ? ['http:// server'] : []),
      ...(cluster?.skipTLSVerify && !cluster.server.toLowerCase().startsWith('http://')
        ? ['TLS verification skipped']
        : []),
    ];
    if (reasons.length === 0) return;
    if (c.allowInsecure !== true) {
      const where = c.connection.type === 'kubeconfig' ? `kubeconfig ${c.connection.path}` : 'its entry';
      throw new RegistryError(
        `cluster ${c.name}: ${where} uses an insecure connection (${reasons.join(', ')}); set allowInsecure: true in its registry entry to allow it`,
      );
    }
    this.warn('Insecure connection to cluster allowed by allowInsecure', {
      cluster: c.name,
      server: cluster?.server,
      insecure: reasons,
    });
  }
}

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

function fileSignature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'unreadable';
  }
}

/** What a cluster's forwarder watches and maps for: the kinds it owns and those it hands over one by one. */
export function servedKinds(c: Pick<ClusterConfig, 'owns' | 'handOver'>): Kind[] {
  return [...new Set([...c.owns, ...(c.handOver ?? [])])];
}
