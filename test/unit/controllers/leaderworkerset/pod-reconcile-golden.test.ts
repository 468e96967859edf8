// Whole pod reconcile passes against upstream's: fixtures/pod-reconcile-golden.json runs PodReconciler.Reconcile
// once per case on a fake client; here planLwsPod's plan is applied to the same world and the pods, StatefulSets,
// Services, events, requeue and error compared.
import { describe, expect, it } from '@jest/globals';
import type { ControllerRevision } from '../../../../shared/kube/api/objects.js';
import { controllerRefOf } from '../../../../shared/kube/meta/controller-ref.js';
import type { LwsEvent } from '../../../../shared/controllers/leaderworkerset/events.js';
import { planLwsPod } from '../../../../shared/controllers/leaderworkerset/pod-reconcile.js';
import { groupPodsOf, leaderNameOf } from '../../../../shared/controllers/leaderworkerset/restart-policy.js';
import { newRevision } from '../../../../shared/controllers/leaderworkerset/revision.js';
import { expandLws, expandPod, expandSts, loadGolden } from './golden-cases.js';
import { createdFields, recordedEvents } from './golden-fields.js';

describe('PodReconciler.Reconcile, one pass (upstream)', () => {
  it.each(loadGolden('pod-reconcile-golden.json'))('$name', (c) => {
    const lws = expandLws(c.lws);
    lws.spec.startupPolicy = c.startup;
    const pods = (c.pods ?? []).map(expandPod);
    const targetName = expandPod(c.target!).metadata?.name;
    const pod = pods.find((p) => p.metadata?.name === targetName)!;
    const statefulSets = (c.statefulSets ?? []).map(expandSts);
    const revisions: ControllerRevision[] = (c.revisionKeys ?? []).map((k, i) => {
      const cr = newRevision(lws, [], k);
      return { ...cr, metadata: { ...cr.metadata, name: `${lws.metadata.name}-${k}-${i + 1}` }, revision: i + 1 };
    });
    const services = c.services ?? [];
    const podName = pod.metadata?.name ?? '';
    const ownerName = controllerRefOf(pod)?.name;
    const plan = planLwsPod(pod, lws, {
      groupPods: groupPodsOf(pod, pods),
      leader: pods.find((p) => p.metadata?.name === leaderNameOf(pod)) ?? null,
      ownerStatefulSet: statefulSets.find((s) => s.metadata?.name === ownerName) ?? null,
      revisions,
      groupServiceExists: services.includes(podName),
      workerStatefulSetExists: statefulSets.some((s) => s.metadata?.name === podName),
      leaderNodeLabels: pod.spec?.nodeName === 'n1' ? (c.nodeLabels ?? null) : null,
    });

    let podsAfter = pods.map((p) => p.metadata?.name ?? '');
    const servicesAfter = [...services];
    const stsAfter: Record<string, unknown> = Object.fromEntries(
      statefulSets.map((s) => [s.metadata?.name ?? '', 'existing']),
    );
    let events: LwsEvent[] = [];
    let requeueAfterMs = 0;
    let error: string | undefined;
    if (plan.kind === 'recreateGroup') {
      podsAfter = podsAfter.filter((n) => n !== plan.leader.metadata?.name);
      events = [plan.event];
    } else if (plan.kind === 'error') {
      error = plan.message;
    } else if (plan.kind === 'leader') {
      const p = plan.plan;
      events = [...p.events];
      if (p.createService !== undefined) servicesAfter.push(p.createService.metadata.name ?? '');
      if (p.createWorkerStatefulSet !== undefined) {
        const sts = p.createWorkerStatefulSet.object;
        stsAfter[sts.metadata?.name ?? ''] = createdFields(sts);
        events.push(p.createWorkerStatefulSet.onSuccess);
      }
      requeueAfterMs = p.requeueAfterMs ?? 0;
      error = p.error;
    }
    expect({
      pods: podsAfter.sort(),
      services: servicesAfter.sort(),
      statefulSets: stsAfter,
      events: recordedEvents(events),
      requeueAfterMs,
      ...(error !== undefined && { error }),
    }).toEqual(c.want);
  });
});
