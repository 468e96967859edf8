// Log format v1 (shared/queue/history/log-record.ts): the record, the version check, redaction by default,
// and the registry field that opts a cluster's ConfigMap data in.
import { describe, expect, it } from '@jest/globals';
import type { LoggedEvent } from '../../../shared/queue/history/event-log.js';
import { decodeRecord, encodeRecord, LogFormatError, redact } from '../../../shared/queue/history/log-record.js';
import { parseRegistry, RegistryError } from '../../../shared/kube/registry.js';
import { parseDuration, parseInstant, timeWindow } from '../../../shared/replay/time-window.js';

const T = Date.parse('2026-12-03T12:00:00Z');
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const event = (resource: string, object: unknown, type: LoggedEvent['type'] = 'ADDED'): LoggedEvent => ({
  type,
  cluster: 'c1',
  resource,
  observedAt: T,
  object,
});
const configMap = {
  kind: 'ConfigMap',
  metadata: {
    name: 'cm',
    namespace: 'ns',
    resourceVersion: '42',
    annotations: { [LAST_APPLIED]: '{"data":{"password":"hunter2"}}', keep: 'me' },
  },
  data: { password: 'hunter2' },
  binaryData: { blob: 'aHVudGVyMg==' },
};

describe('log format v1', () => {
  it('writes the version, the resourceVersion and the event fields', () => {
    const pod = { kind: 'Pod', metadata: { name: 'p', namespace: 'ns', resourceVersion: '7' } };
    const line = encodeRecord(event('pods', pod, 'MODIFIED'), 0);
    expect(JSON.parse(line ?? '')).toEqual({
      v: 1,
      cluster: 'c1',
      resource: 'pods',
      type: 'MODIFIED',
      resourceVersion: '7',
      observedAt: T,
      object: pod,
    });
    expect(decodeRecord(line ?? '', 'here')).toEqual(JSON.parse(line ?? ''));
  });

  it.each([
    {
      name: 'a newer version',
      line: '{"v":2,"cluster":"c1"}',
      want: /here: log format version 2 is unknown; this reader knows v1/,
    },
    {
      name: 'no version',
      line: '{"type":"ADDED","cluster":"c1","resource":"pods","observedAt":1}',
      want: /no format version "v"/,
    },
    { name: 'not JSON', line: '{"v":1', want: /here: not JSON/ },
    { name: 'no type', line: '{"v":1,"cluster":"c1","resource":"pods","observedAt":1}', want: /not a v1 record/ },
    {
      name: 'an unknown type',
      line: '{"v":1,"type":"BOOKMARK","cluster":"c","resource":"p","observedAt":1}',
      want: /not a v1 record/,
    },
  ])('refuses $name, naming where', ({ line, want }) => {
    expect(() => decodeRecord(line, 'here')).toThrow(LogFormatError);
    expect(() => decodeRecord(line, 'here')).toThrow(want);
  });
});

describe('redaction', () => {
  it('never logs a Secret, by resource or by kind', () => {
    const secret = { kind: 'Secret', metadata: { name: 's' }, data: { password: 'aHVudGVyMg==' } };
    expect(encodeRecord(event('secrets', secret), 0)).toBeNull();
    expect(encodeRecord(event('things', secret), 0)).toBeNull();
    expect(encodeRecord(event('secrets', secret), 0, { keepConfigMapData: () => true })).toBeNull();
  });

  it('drops ConfigMap data, binaryData and the last-applied annotation, and says so', () => {
    const line = encodeRecord(event('configmaps', configMap), 0) ?? '';
    expect(line).not.toContain('hunter2');
    expect(line).not.toContain('aHVudGVyMg==');
    expect(JSON.parse(line).object).toEqual({
      kind: 'ConfigMap',
      metadata: { name: 'cm', namespace: 'ns', resourceVersion: '42', annotations: { keep: 'me' } },
      fleetqRedacted: ['data', 'binaryData', `metadata.annotations.${LAST_APPLIED}`],
    });
  });

  it('keeps ConfigMap data of a cluster that opts in, and only of that one', () => {
    const policy = { keepConfigMapData: (c: string) => c === 'c1' };
    expect(redact(event('configmaps', configMap), policy)?.object).toEqual(configMap);
    expect(redact({ ...event('configmaps', configMap), cluster: 'c2' }, policy)?.object).not.toHaveProperty('data');
  });

  it('leaves other kinds alone', () => {
    const pod = { kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [] } };
    expect(redact(event('pods', pod))?.object).toBe(pod);
  });
});

describe('registry eventLog.configMapData', () => {
  const base = 'clusters:\n  - name: c1\n    kubeconfig: /k\n';
  it('reads it per cluster and from defaults', () => {
    expect(parseRegistry(`${base}    eventLog: { configMapData: true }\n`, 'r.yaml')[0]?.eventLog).toEqual({
      configMapData: true,
    });
    expect(parseRegistry(`defaults: { eventLog: { configMapData: true } }\n${base}`, 'r.yaml')[0]?.eventLog).toEqual({
      configMapData: true,
    });
    expect(parseRegistry(base, 'r.yaml')[0]?.eventLog).toBeUndefined();
  });

  it.each([
    {
      name: 'a string',
      yaml: 'eventLog: { configMapData: "yes" }',
      want: /clusters\[0\]\.eventLog\.configMapData: must be true or false/,
    },
    { name: 'a misspelt field', yaml: 'eventLog: { configmapData: true }', want: /clusters\[0\]\.eventLog/ },
  ])('refuses $name, naming the field', ({ yaml, want }) => {
    expect(() => parseRegistry(`${base}    ${yaml}\n`, 'r.yaml')).toThrow(RegistryError);
    expect(() => parseRegistry(`${base}    ${yaml}\n`, 'r.yaml')).toThrow(want);
  });
});

describe('time arguments', () => {
  it.each([
    { text: '2026-12-03T11:00:00Z', want: T - 3_600_000 },
    { text: String(T - 5), want: T - 5 },
    { text: '90m', want: T - 90 * 60_000 },
    { text: '2h', want: T - 7_200_000 },
  ])('$text', ({ text, want }) => expect(parseInstant(text, '--since', T)).toBe(want));

  it('refuses what it cannot read, naming the flag', () => {
    expect(() => parseInstant('yesterday', '--since', T)).toThrow(/--since "yesterday"/);
    expect(() => parseDuration('5 minutes', '--older-than')).toThrow(/--older-than/);
    expect(() => timeWindow('1h', '2h', T)).toThrow(/--until .* is before --since/);
  });
});
