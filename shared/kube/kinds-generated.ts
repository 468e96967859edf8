// Generated from the registered watch descriptors (shared/controllers/index.ts) by `npm run rbac:render`
// (shared/controllers/kinds-render.ts); edit the descriptors, not this file. kube/kinds.ts and kube/resources.ts
// read it: the kinds a cluster registry accepts, and the API resource of each kind that is one of its own.

// prettier-ignore
export const REGISTERED_KINDS = {
  "all": [
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob",
    "TTLAfterFinished",
    "ConfigMap",
    "JobSet",
    "FleetRollout",
    "LeaderWorkerSet",
    "LeaderWorkerSetPod"
  ],
  "defaultOwned": [
    "Deployment",
    "ReplicaSet"
  ],
  "workloads": [
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "CronJob"
  ],
  "handOver": [
    "Job"
  ],
  "ownedTogether": [
    [
      "LeaderWorkerSet",
      "LeaderWorkerSetPod"
    ]
  ]
} as const;

// prettier-ignore
export const REGISTERED_RESOURCES = [
  {
    "kind": "Deployment",
    "apiVersion": "apps/v1",
    "group": "apps",
    "version": "v1",
    "plural": "deployments",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "ReplicaSet",
    "apiVersion": "apps/v1",
    "group": "apps",
    "version": "v1",
    "plural": "replicasets",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "StatefulSet",
    "apiVersion": "apps/v1",
    "group": "apps",
    "version": "v1",
    "plural": "statefulsets",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "DaemonSet",
    "apiVersion": "apps/v1",
    "group": "apps",
    "version": "v1",
    "plural": "daemonsets",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "Job",
    "apiVersion": "batch/v1",
    "group": "batch",
    "version": "v1",
    "plural": "jobs",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "CronJob",
    "apiVersion": "batch/v1",
    "group": "batch",
    "version": "v1",
    "plural": "cronjobs",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "JobSet",
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "group": "jobset.x-k8s.io",
    "version": "v1alpha2",
    "plural": "jobsets",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "FleetRollout",
    "apiVersion": "fleetq.dev/v1alpha1",
    "group": "fleetq.dev",
    "version": "v1alpha1",
    "plural": "fleetrollouts",
    "namespaced": true,
    "status": true
  },
  {
    "kind": "LeaderWorkerSet",
    "apiVersion": "leaderworkerset.x-k8s.io/v1",
    "group": "leaderworkerset.x-k8s.io",
    "version": "v1",
    "plural": "leaderworkersets",
    "namespaced": true,
    "status": true
  }
] as const;
