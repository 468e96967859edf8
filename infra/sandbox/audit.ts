// The opt-in audit log of a sandbox cluster's kube-apiserver (ClusterSpec `audit: true`): every request at
// Metadata level (who, which user agent, verb, resource, response code and times; no bodies), written as JSON
// lines to <cluster dir>/audit.log. Benches count API requests per client from it; off by default, so the
// clusters the tests share start with the same arguments as before.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Metadata for every request; RequestReceived is left out (each request is logged once it was answered). */
export const AUDIT_POLICY = [
  'apiVersion: audit.k8s.io/v1',
  'kind: Policy',
  'omitStages:',
  '- RequestReceived',
  'rules:',
  '- level: Metadata',
  '',
].join('\n');

/** The log rotates at this size (MB), keeping this many old files beside it (audit-<time>.log). */
export const AUDIT_MAX_SIZE_MB = 1024;
export const AUDIT_MAX_BACKUPS = 2;

export type AuditFiles = { readonly policy: string; readonly log: string };

export function auditFiles(clusterDir: string): AuditFiles {
  return { policy: join(clusterDir, 'audit-policy.yaml'), log: join(clusterDir, 'audit.log') };
}

/** Writes the policy into the cluster's folder; returns the kube-apiserver flags that turn the log on. */
export function auditFlags(clusterDir: string): string[] {
  const files = auditFiles(clusterDir);
  writeFileSync(files.policy, AUDIT_POLICY);
  return [
    `--audit-policy-file=${files.policy}`,
    `--audit-log-path=${files.log}`,
    '--audit-log-format=json',
    // Blocking: each entry is written as its request completes (no batch buffer holding it back).
    '--audit-log-mode=blocking',
    `--audit-log-maxsize=${AUDIT_MAX_SIZE_MB}`,
    `--audit-log-maxbackup=${AUDIT_MAX_BACKUPS}`,
  ];
}
