// Pure pod helpers shared by the workload planners (ReplicaSet now, Deployment and others later).
export * from './deletion-rank.js';
export * from './pod-state.js';
