// The object shapes a custom resource's controller reads, shared by the JobSet and LeaderWorkerSet models: each
// kind fills in its own metadata type (how its wire form carries ObjectMeta), spec and status.
import type { Time } from '../../kube/api/objects.js';

/** A custom resource: its kind's metadata, spec and (optional) status. */
export type CustomResource<Meta, Spec, Status> = {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec: Spec;
  status?: Status;
};

/** A headless Service as far as a controller reads it (whether it exists, its metadata such as its owner). */
export type ServiceRef<Meta> = {
  apiVersion?: string;
  kind?: string;
  metadata: Meta;
  spec?: Record<string, unknown>;
};

/** metav1.Condition, as a custom resource's status lists them. */
export type Condition = {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime?: Time;
  reason: string;
  message: string;
};
