// Doctor: is a registered cluster reachable? Each way it is not gets its own message: the kubeconfig file missing,
// its context not in the file, the token file missing, an insecure connection not allowed, the server refusing
// the connection, not answering, or failing TLS.
import { existsSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiError } from '../kube/errors.js';
import { redactText } from '../kube/redact-secrets.js';
import type { ClusterRegistry } from '../kube/registry.js';
import { KubeRest, NO_RATE_LIMIT } from '../kube/rest.js';
import { CheckStatus, type Check } from './doctor-check.js';

export type Connected = { readonly check: Check; readonly rest?: KubeRest };

export async function connectCluster(registry: ClusterRegistry, name: string, timeoutMs: number): Promise<Connected> {
  const c = registry.get(name);
  const check = (status: CheckStatus, message: string, fix?: string): Check => ({
    name: `cluster ${name}: reachable`,
    status,
    message: redactText(message),
    cluster: name,
    ...(fix !== undefined && { fix }),
  });
  if (c === undefined) return { check: check(CheckStatus.fail, 'not in the registry') };
  const conn = c.connection;
  if (conn.type === 'kubeconfig') {
    if (!existsSync(conn.path))
      return {
        check: check(
          CheckStatus.fail,
          `kubeconfig file ${conn.path} does not exist`,
          "fix the entry's kubeconfig path in the registry (relative paths are relative to the registry file)",
        ),
      };
    const contextMissing = missingContext(conn.path, conn.context);
    if (contextMissing !== undefined)
      return { check: check(CheckStatus.fail, contextMissing.message, contextMissing.fix) };
  } else if (!existsSync(conn.tokenFile)) {
    return {
      check: check(
        CheckStatus.fail,
        `token file ${conn.tokenFile} does not exist`,
        "fix the entry's tokenFile in the registry, or mount the ServiceAccount token there",
      ),
    };
  }
  let rest: KubeRest;
  let server: string;
  try {
    const kc = registry.kubeConfig(name);
    server = kc.getCurrentCluster()?.server ?? '(no server)';
    rest = new KubeRest(name, () => registry.kubeConfig(name), NO_RATE_LIMIT);
  } catch (err) {
    return {
      check: check(CheckStatus.fail, messageOf(err), "fix the cluster's registry entry or its kubeconfig"),
    };
  }
  try {
    const version = await rest.request<{ gitVersion?: string }>('GET', '/version', { timeoutMs });
    return { check: check(CheckStatus.ok, `${server} answers (Kubernetes ${version?.gitVersion ?? '?'})`), rest };
  } catch (err) {
    const { message, fix } = unreachable(err, server, timeoutMs);
    return { check: check(CheckStatus.fail, message, fix) };
  }
}

/** The registry entry's context (or the file's current one) is missing from the kubeconfig: what to say. */
function missingContext(path: string, context: string | undefined): { message: string; fix: string } | undefined {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (err) {
    return {
      message: `kubeconfig file ${path} does not load (${err instanceof Error ? err.name : 'error'})`,
      fix: 'fix the file (kubectl --kubeconfig FILE config view shows what is wrong)',
    };
  }
  const names = kc.getContexts().map((x) => x.name);
  const wanted = context ?? kc.getCurrentContext();
  if (wanted && names.includes(wanted) && kc.getContextObject(wanted) && clusterOf(kc, wanted)) return undefined;
  const has = names.length === 0 ? 'none' : names.join(', ');
  if (!wanted)
    return {
      message: `kubeconfig file ${path} has no current context (its contexts: ${has})`,
      fix: "set the entry's context in the registry",
    };
  if (!names.includes(wanted))
    return {
      message: `context "${wanted}" is not in kubeconfig file ${path} (its contexts: ${has})`,
      fix: `set the entry's context to one of ${has}, or add "${wanted}" to the file`,
    };
  return {
    message: `context "${wanted}" in kubeconfig file ${path} names a cluster the file does not have`,
    fix: 'fix the context or add its cluster to the file',
  };
}

function clusterOf(kc: KubeConfig, context: string): boolean {
  const name = kc.getContextObject(context)?.cluster;
  return name !== undefined && kc.getCluster(name) !== null;
}

/** Why a request to the cluster did not get an answer, and what to do. */
function unreachable(err: unknown, server: string, timeoutMs: number): { message: string; fix: string } {
  if (err instanceof ApiError)
    return {
      message: `${server} answered /version with ${err.code} ${err.reason}`,
      fix: 'check that the server address is a kube-apiserver',
    };
  const code = causeCode(err);
  if (code === 'ECONNREFUSED')
    return {
      message: `cannot connect to ${server}: connection refused`,
      fix: "is the apiserver running, and are the server address and port right (the kubeconfig's, or the registry entry's server)?",
    };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return { message: `cannot resolve the host of ${server}`, fix: 'fix the server address in the kubeconfig' };
  if (
    err instanceof Error &&
    (err.name === 'TimeoutError' || err.name === 'AbortError' || code === 'UND_ERR_CONNECT_TIMEOUT')
  )
    return {
      message: `${server} did not answer within ${timeoutMs / 1000} s`,
      fix: 'check the network path to the apiserver (firewall, VPN, security groups) and that it is up',
    };
  if (code !== undefined && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return {
      message: `TLS with ${server} failed: ${code}`,
      fix: "the apiserver's certificate does not verify with the kubeconfig's CA (certificate-authority, caFile)",
    };
  return { message: `cannot reach ${server}: ${messageOf(err)}`, fix: 'check the server address and the network' };
}

function causeCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function messageOf(err: unknown): string {
  const base = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return redactText(base + cause);
}
