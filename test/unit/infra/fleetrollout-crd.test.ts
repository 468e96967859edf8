// infra/k8s/fleetrollout-crd.yaml without an apiserver: it parses as one CRD of the right group, kind and version
// with a status subresource and the printer columns; every field of the example is declared in the schema
// (the apiserver would prune an undeclared one silently), with its type, enum, pattern and required fields
// respected, and a bad object is refused by those; the schema's defaults are the parser's (types.ts). The CEL rules
// need a real apiserver: test/integration/fleetrollout-crd.test.ts.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { parseFleetRollout } from '../../../shared/rollouts/types.js';
import { exampleRollout } from '../../helpers/rollouts/example.js';

const FILE = new URL('../../../infra/k8s/fleetrollout-crd.yaml', import.meta.url);

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  pattern?: string;
  maxLength?: number;
  minItems?: number;
  default?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
};

function readCrd() {
  const docs = parseAllDocuments(readFileSync(FILE, 'utf8'));
  expect(docs.map((d) => d.errors)).toEqual([[]]);
  return docs[0]!.toJS() as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
    spec: {
      group: string;
      scope: string;
      names: { kind: string; plural: string };
      versions: Array<{
        name: string;
        served: boolean;
        storage: boolean;
        subresources?: { status?: object };
        additionalPrinterColumns: Array<{ name: string; jsonPath: string }>;
        schema: { openAPIV3Schema: Schema };
      }>;
    };
  };
}

/** What a structural schema says is wrong with `value` (types, enums, patterns, required, undeclared fields). */
function problems(schema: Schema, value: unknown, path = ''): string[] {
  if (schema['x-kubernetes-int-or-string'] === true)
    return Number.isInteger(value) || typeof value === 'string' ? [] : [`${path}: not an int or a string`];
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  const want = schema.type === 'integer' ? 'number' : schema.type;
  if (want !== undefined && type !== want) return [`${path}: ${type}, not ${schema.type}`];
  const found: string[] = [];
  if (schema.enum !== undefined && !schema.enum.includes(value)) found.push(`${path}: ${String(value)} not in enum`);
  if (typeof value === 'string' && schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
    found.push(`${path}: ${value} does not match ${schema.pattern}`);
  if (typeof value === 'string' && schema.maxLength !== undefined && value.length > schema.maxLength)
    found.push(`${path}: longer than ${schema.maxLength}`);
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) found.push(`${path}: too few items`);
    value.forEach((v, i) => found.push(...problems(schema.items ?? {}, v, `${path}[${i}]`)));
  } else if (type === 'object' && schema.type === 'object') {
    const object = value as Record<string, unknown>;
    for (const r of schema.required ?? []) if (!(r in object)) found.push(`${path}.${r}: required`);
    for (const [k, v] of Object.entries(object)) {
      const sub = schema.properties?.[k] ?? schema.additionalProperties;
      if (sub === undefined && schema.properties !== undefined) found.push(`${path}.${k}: not declared (pruned)`);
      else if (sub !== undefined) found.push(...problems(sub, v, `${path}.${k}`));
    }
  }
  return found;
}

/** `value` with the schema's defaults filled in, as the apiserver does. */
function withDefaults(schema: Schema, value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => withDefaults(schema.items ?? {}, v));
  if (value === null || typeof value !== 'object' || schema.properties === undefined) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [k, sub] of Object.entries(schema.properties)) {
    if (out[k] === undefined && sub.default !== undefined) out[k] = structuredClone(sub.default);
    if (out[k] !== undefined) out[k] = withDefaults(sub, out[k]);
  }
  return out;
}

const EXAMPLE = exampleRollout();

describe('infra/k8s/fleetrollout-crd.yaml', () => {
  const crd = readCrd();
  const version = crd.spec.versions[0]!;
  const schema = version.schema.openAPIV3Schema;

  it('is the namespaced FleetRollout CRD of fleetq.dev/v1alpha1 with a status subresource and printer columns', () => {
    expect(crd).toMatchObject({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'fleetrollouts.fleetq.dev' },
      spec: { group: 'fleetq.dev', scope: 'Namespaced', names: { kind: 'FleetRollout', plural: 'fleetrollouts' } },
    });
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
    expect(version.additionalPrinterColumns.map((c) => [c.name, c.jsonPath])).toEqual([
      ['Target', '.spec.target.name'],
      ['Revision', '.status.revision'],
      ['Wave', '.status.wave'],
      ['Phase', '.status.phase'],
      ['Age', '.metadata.creationTimestamp'],
    ]);
  });

  it("accepts the issue's example, every field declared, and parses it the same with the schema's defaults", () => {
    expect(problems(schema, EXAMPLE)).toEqual([]);
    expect(parseFleetRollout(withDefaults(schema, EXAMPLE))).toEqual(parseFleetRollout(EXAMPLE));
  });

  it('declares every field of a ledger the planner writes', () => {
    const status = {
      observedGeneration: 3,
      phase: 'Progressing',
      revision: 'r2',
      wave: 'canary',
      approvals: [{ revision: 'r2', wave: 'early', at: '2026-01-01T00:00:00.000Z' }],
      retry: { revision: 'r2', at: '2026-01-01T00:00:00.000Z' },
      revisions: [
        {
          revision: 'r2',
          attempt: 1,
          startedAt: '2026-01-01T00:00:00.000Z',
          phase: 'Progressing',
          wave: 'canary',
          stoppedAt: '2026-01-01T00:10:00.000Z',
          stopReason: 'x',
          departed: [{ cluster: 'c9', wave: 'rest', at: '2026-01-01T00:00:00.000Z' }],
          clusters: [
            {
              cluster: 'c0',
              wave: 'canary',
              joinedAt: '2026-01-01T00:00:00.000Z',
              admittedAt: '2026-01-01T00:00:00.000Z',
              previousRevision: 'r1',
              availableSince: '2026-01-01T00:00:00.000Z',
              verdict: 'Failed',
              verdictAt: '2026-01-01T00:00:00.000Z',
              reason: 'ImagePullBackOff',
              failure: { signature: 'ImagePullBackOff', image: 'shop/web:2' },
              failedAt: '2026-01-01T00:00:00.000Z',
              observedGeneration: 7,
            },
          ],
        },
      ],
    };
    expect(problems(schema, { ...EXAMPLE, status })).toEqual([]);
    expect(parseFleetRollout({ ...EXAMPLE, status }).status).toEqual(status);
  });

  it('fills the same defaults as the parser for a minimal rollout', () => {
    const minimal = { ...EXAMPLE, spec: { target: EXAMPLE.spec.target, clusters: {}, waves: [{ name: 'all' }] } };
    expect(problems(schema, minimal)).toEqual([]);
    expect(withDefaults(schema, minimal)).toMatchObject({
      spec: {
        waves: [{ name: 'all', maxConcurrency: 1, soak: '0', approval: false }],
        progressDeadline: '10m',
        failureBudget: { maxFailedClusters: 0 },
        onFailure: 'Rollback',
        paused: false,
      },
    });
    expect(parseFleetRollout(withDefaults(schema, minimal))).toEqual(parseFleetRollout(minimal));
  });

  it('refuses a bad object: unknown target kind, a duration that is not one, a missing wave name, an undeclared field', () => {
    const bad = {
      ...EXAMPLE,
      spec: {
        ...EXAMPLE.spec,
        target: { kind: 'ReplicaSet', namespace: 'shop', name: 'web' },
        progressDeadline: '5 minutes',
        waves: [{ soak: '1h30m' }],
        onFailure: 'Retry',
        pause: true,
      },
    };
    expect(problems(schema, bad)).toEqual([
      '.spec.target.kind: ReplicaSet not in enum',
      '.spec.waves[0].name: required',
      expect.stringMatching(/^\.spec\.progressDeadline: 5 minutes does not match/),
      '.spec.onFailure: Retry not in enum',
      '.spec.pause: not declared (pruned)',
    ]);
  });
});
