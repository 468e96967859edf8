// Kubernetes name rules, for every string that comes from cluster data before it reaches a request path or a
// decision (apimachinery validation: IsDNS1123Label, IsDNS1123Subdomain), and the namespaces fleetq never
// writes into on anyone's behalf.
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** A namespace name (DNS-1123 label, at most 63 characters). */
export function isDnsLabel(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 63 && DNS_LABEL.test(s);
}

/** An object name of every kind fleetq touches (DNS-1123 subdomain, at most 253 characters). */
export function isDnsSubdomain(s: unknown): s is string {
  return typeof s === 'string' && s.length <= 253 && DNS_SUBDOMAIN.test(s);
}

/** The control plane's own namespaces: never a target of a write that cluster data asked for. */
export const SYSTEM_NAMESPACES: readonly string[] = ['kube-system', 'kube-public', 'kube-node-lease'];

export function isSystemNamespace(namespace: string): boolean {
  return SYSTEM_NAMESPACES.includes(namespace);
}
