// The cluster registry: which clusters fleetq serves, how to reach each, which kinds it owns there,
// and per-cluster limits. Read from a YAML file validated with a schema; a bad file names the field.
// Clients are built lazily and cached per cluster, so one unreachable cluster never stops the others.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ALL_KINDS, DEFAULT_OWNED_KINDS, type Kind } from './kinds.js';

const NAME = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;

const limitsSchema = z
  .object({
    /** Reconciles of this cluster running at once, fleet-wide. */
    concurrency: z.number().int().positive().optional(),
    /** API requests per second from one process to this cluster (token bucket). */
    qps: z.number().positive().optional(),
    burst: z.number().int().positive().optional(),
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
    owns: z.array(z.enum(ALL_KINDS as [Kind, ...Kind[]])).optional(),
    limits: limitsSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
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
      .object({ owns: z.array(z.enum(ALL_KINDS as [Kind, ...Kind[]])).optional(), limits: limitsSchema.optional() })
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
  });

export type ClusterLimits = { readonly concurrency?: number; readonly qps: number; readonly burst: number };

export type ClusterConfig = {
  readonly name: string;
  readonly owns: readonly Kind[];
  readonly limits: ClusterLimits;
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

/** client-go's defaults for a controller (QPS 20, burst 30 in kube-controller-manager). */
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
    owns: c.owns ?? defaults.owns ?? DEFAULT_OWNED_KINDS,
    limits: { ...DEFAULT_LIMITS, ...defaults.limits, ...c.limits },
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

/** Builds each cluster's KubeConfig on first use and keeps it. */
export class ClusterRegistry {
  private readonly byName: ReadonlyMap<string, ClusterConfig>;
  private readonly configs = new Map<string, KubeConfig>();

  constructor(readonly clusters: readonly ClusterConfig[]) {
    this.byName = new Map(clusters.map((c) => [c.name, c]));
  }

  get(name: string): ClusterConfig | undefined {
    return this.byName.get(name);
  }

  owns(cluster: string, kind: string): boolean {
    return this.byName.get(cluster)?.owns.includes(kind as Kind) ?? false;
  }

  kubeConfig(name: string): KubeConfig {
    const cached = this.configs.get(name);
    if (cached) return cached;
    const c = this.byName.get(name);
    if (!c) throw new RegistryError(`unknown cluster ${name}`);
    const kc = new KubeConfig();
    if (c.connection.type === 'kubeconfig') {
      kc.loadFromFile(c.connection.path);
      if (c.connection.context) kc.setCurrentContext(c.connection.context);
    } else {
      const conn = c.connection;
      kc.loadFromOptions({
        clusters: [
          { name: c.name, server: conn.server, caFile: conn.caFile, skipTLSVerify: conn.insecureSkipTLSVerify },
        ],
        users: [{ name: `${c.name}-user`, token: readFileSync(conn.tokenFile, 'utf8').trim() }],
        contexts: [{ name: c.name, cluster: c.name, user: `${c.name}-user` }],
        currentContext: c.name,
      });
    }
    this.configs.set(name, kc);
    return kc;
  }
}
