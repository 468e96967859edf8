// The `apply` action (server-side apply): its shape (applyAction), the request it becomes (apply-request.ts: PATCH
// of the object's path, application/apply-patch+yaml, fieldManager and force as query parameters, the configuration
// as the body), the configurations the apiserver would refuse found before any request, and how the writer sends it
// (after the creates, with the updates, patches and deletes; its events). What the apiserver then does is
// test/integration/server-side-apply.test.ts's.
import { describe, expect, it } from '@jest/globals';
import { applyAction, type Action } from '../../../shared/kube/actions.js';
import { applyProblem, applyRequest, type ApplyAction } from '../../../shared/kube/apply-request.js';
import { ApiError } from '../../../shared/kube/errors.js';
import type { EventSpec, ResolvedEvent } from '../../../shared/kube/events/types.js';
import type { ApiObject } from '../../../shared/kube/meta/object.js';
import type { KubeRest, RequestOptions } from '../../../shared/kube/rest.js';
import { applyActions } from '../../../shared/kube/writer.js';

const fence = { held: () => true, confirm: async () => Promise.resolve(true) };

const configMap = (o: { name?: string; namespace?: string; extra?: Record<string, unknown> } = {}): ApiObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: o.name ?? 'cm', namespace: o.namespace ?? 'ns', labels: { app: 'a' }, ...o.extra },
    data: { k: 'v' },
  }) as ApiObject;

const spec = (reason: string, detail?: 'error'): EventSpec => ({
  regarding: { kind: 'ConfigMap', apiVersion: 'v1', namespace: 'ns', name: 'cm', uid: 'u' },
  source: 'test',
  type: detail === undefined ? 'Normal' : 'Warning',
  reason,
  message: detail === undefined ? 'applied' : 'failed: ',
  ...(detail !== undefined && { detail }),
});

const apply = (over: Partial<ApplyAction> = {}): ApplyAction => ({
  ...(applyAction(configMap(), { fieldManager: 'lws', force: true, reason: 'Test' }) as ApplyAction),
  ...over,
});

type Sent = { method: string; path: string; options: RequestOptions };

function recordingRest(answer: (s: Sent) => unknown = () => ({})) {
  const sent: Sent[] = [];
  const rest = {
    async request(method: string, path: string, o: RequestOptions = {}) {
      await Promise.resolve();
      if (o.sendAfter) await o.sendAfter;
      o.beforeSend?.();
      const { sendAfter: _after, beforeSend: _before, ...options } = o;
      const s = { method, path, options };
      sent.push(s);
      const out = answer(s);
      if (out instanceof Error) throw out;
      return out;
    },
  } as unknown as KubeRest;
  return { rest, sent };
}

describe('applyAction', () => {
  it('names its target after the configuration, and carries the manager, force, reason and events', () => {
    const events = { onSuccess: [spec('Applied')] };
    expect(applyAction(configMap(), { fieldManager: 'm', force: false, reason: 'R', events })).toEqual({
      type: 'apply',
      target: { kind: 'ConfigMap', namespace: 'ns', name: 'cm' },
      configuration: configMap(),
      fieldManager: 'm',
      force: false,
      reason: 'R',
      events,
    });
    expect(applyAction(configMap(), { fieldManager: 'm', force: true, reason: 'R' })).not.toHaveProperty('events');
  });
});

describe('applyRequest', () => {
  it('a PATCH of the object’s path: apply-patch+yaml, fieldManager and force, the configuration as the body', () => {
    expect(applyRequest(apply())).toEqual({
      method: 'PATCH',
      path: '/api/v1/namespaces/ns/configmaps/cm',
      query: { fieldManager: 'lws', force: true },
      contentType: 'application/apply-patch+yaml',
      body: configMap(),
    });
    expect(applyRequest(apply({ force: false })).query).toEqual({ fieldManager: 'lws', force: false });
  });

  it('never sends the trimmed-annotations marker (a field the apiserver must not see)', () => {
    const marked = configMap({ extra: { fleetqDroppedAnnotations: ['big'] } });
    expect(applyRequest(apply({ configuration: marked })).body).toEqual(configMap());
  });

  const cases: Array<{ name: string; over: Partial<ApplyAction>; want: string; ref?: string }> = [
    { name: 'no field manager', over: { fieldManager: '' }, want: 'no field manager (an apply must name one)' },
    {
      name: 'a field manager of 129 characters',
      over: { fieldManager: 'm'.repeat(129) },
      want: 'field manager longer than 128 characters',
    },
    {
      name: 'a field manager with a control character',
      over: { fieldManager: 'lws\n' },
      want: 'field manager with characters that are not printable',
    },
    {
      name: 'another kind than the target',
      over: { configuration: { ...configMap(), kind: 'Secret' } },
      want: 'configuration of kind Secret applied to a ConfigMap',
    },
    {
      name: 'no apiVersion',
      over: { configuration: { ...configMap(), apiVersion: undefined } },
      want: 'configuration of apiVersion (none), not v1',
    },
    {
      name: 'another name than the target',
      over: { configuration: configMap({ name: 'other' }) },
      want: 'configuration named other, not cm',
    },
    {
      name: 'another namespace than the target',
      over: { configuration: configMap({ namespace: 'elsewhere' }) },
      want: 'configuration in namespace elsewhere, not ns',
    },
    {
      name: 'a namespaced kind without a namespace',
      over: { target: { kind: 'ConfigMap', namespace: '', name: 'cm' }, configuration: configMap({ namespace: '' }) },
      want: 'ConfigMap is namespaced: no namespace given',
      ref: 'ConfigMap cm',
    },
    {
      name: 'managedFields set',
      over: { configuration: configMap({ extra: { managedFields: [] } }) },
      want: 'configuration carries metadata.managedFields',
    },
  ];

  it.each(cases)('refused before any request: $name', ({ over, want, ref = 'ConfigMap ns/cm' }) => {
    expect(applyProblem(apply(over))).toBe(want);
    expect(() => applyRequest(apply(over))).toThrow(
      expect.objectContaining({ code: 'PlanFailed', retryable: false, message: `apply of ${ref} (Test): ${want}` }),
    );
  });

  it('a field manager of 128 characters, of any printable script, is fine', () => {
    expect(applyProblem(apply({ fieldManager: 'é'.repeat(128) }))).toBeUndefined();
    expect(applyProblem(apply({ fieldManager: 'kube controller-manager/v1 (ü) é' }))).toBeUndefined();
  });
});

describe('writer: apply', () => {
  it('sends the request applyRequest makes, after the creates, counted as an update, its success events recorded', async () => {
    const { rest, sent } = recordingRest();
    const recorded: ResolvedEvent[] = [];
    const create: Action = { type: 'create', object: configMap({ name: 'first' }), reason: 'Test' };
    const r = await applyActions(rest, [apply({ events: { onSuccess: [spec('Applied')] } }), create], fence, {
      events: { record: (e) => recorded.push(e) },
    });
    expect(sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'POST /api/v1/namespaces/ns/configmaps',
      'PATCH /api/v1/namespaces/ns/configmaps/cm',
    ]);
    const { method: _m, path: _p, ...options } = applyRequest(apply());
    expect(sent[1]?.options).toEqual(options);
    expect(r).toMatchObject({ created: 1, updated: 1, deleted: 0 });
    expect(recorded.map((e) => e.reason)).toEqual(['Applied']);
  });

  it('a refusal (409 Conflict of an apply not forced) is thrown, with its failure event', async () => {
    const conflict = new ApiError(409, 'PATCH', '/x', 'Conflict: Apply failed with 1 conflict', '{}');
    const { rest } = recordingRest(() => conflict);
    const recorded: ResolvedEvent[] = [];
    const action = apply({
      force: false,
      events: { onSuccess: [spec('Applied')], onFailure: spec('Failed', 'error') },
    });
    await expect(applyActions(rest, [action], fence, { events: { record: (e) => recorded.push(e) } })).rejects.toBe(
      conflict,
    );
    expect(recorded.map((e) => [e.reason, e.message])).toEqual([
      ['Failed', 'failed: PATCH /x: 409 Conflict: Apply failed with 1 conflict'],
    ]);
  });

  it('a configuration the apiserver would refuse: PlanFailed, no request, no failure event', async () => {
    const { rest, sent } = recordingRest();
    const recorded: ResolvedEvent[] = [];
    const action = apply({ fieldManager: '', events: { onFailure: spec('Failed', 'error') } });
    await expect(
      applyActions(rest, [action], fence, { events: { record: (e) => recorded.push(e) } }),
    ).rejects.toMatchObject({ code: 'PlanFailed' });
    expect(sent).toEqual([]);
    expect(recorded).toEqual([]);
  });
});
