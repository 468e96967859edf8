// Pure pod helpers shared by the workload planners (ReplicaSet now, Deployment and others later).
export * from './controller-ref.js';
export * from './deletion-rank.js';
export * from './label-selector.js';
export * from './pod-state.js';
export * from './time.js';
