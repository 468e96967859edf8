// The Kubernetes objects the controllers read and write, as their JSON travels on the wire: what a list page
// (kube/list-page.ts), a watch event, a cache read or a GET hands over, and what the writer sends. Every
// timestamp (metav1.Time, metav1.MicroTime) is an RFC 3339 string here, never a Date: nothing on the way
// converts the apiserver's JSON into client-node's model classes. A planner that writes a time writes
// wireTime(...) (controllers/common/wire-time.ts): whole seconds, UTC, as metav1.Time serializes.
//
// The shapes are client-node's models with every Date turned into a string (Json<T>), so they keep the full
// field set of the API version client-node was generated from. Fields an apiserver sends beyond that set are
// kept at run time (nothing prunes them) but are not typed. This is the one module through which the
// controllers see client-node's model types; shared/controllers imports object types from here only.
import type {
  CoreV1Event,
  IntOrString as ClientIntOrString,
  KubernetesObject as ClientKubernetesObject,
  V1Affinity,
  V1ConfigMap,
  V1Container,
  V1ContainerStatus,
  V1ControllerRevision,
  V1CronJob,
  V1DaemonSet,
  V1DaemonSetCondition,
  V1DaemonSetStatus,
  V1DaemonSetUpdateStrategy,
  V1Deployment,
  V1DeploymentCondition,
  V1Job,
  V1JobCondition,
  V1LabelSelector,
  V1LabelSelectorRequirement,
  V1Namespace,
  V1Node,
  V1NodeCondition,
  V1NodeSelector,
  V1NodeSelectorRequirement,
  V1NodeSelectorTerm,
  V1ObjectMeta,
  V1OwnerReference,
  V1PersistentVolumeClaim,
  V1Pod,
  V1PodCondition,
  V1PodSpec,
  V1PodTemplateSpec,
  V1ReplicaSet,
  V1ReplicaSetCondition,
  V1ReplicaSetStatus,
  V1StatefulSet,
  V1StatefulSetSpec,
  V1StatefulSetStatus,
  V1Taint,
  V1Toleration,
  V1Volume,
} from '@kubernetes/client-node';

/** A client-node model as JSON: every Date becomes its RFC 3339 string, recursively; the rest is kept as it is. */
export type Json<T> = T extends Date
  ? string
  : T extends readonly (infer E)[]
    ? Json<E>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

/** A metav1.Time (or MicroTime) on the wire: RFC 3339. */
export type Time = string;

export type IntOrString = ClientIntOrString;
/** Any object: apiVersion, kind and metadata. */
export type KubernetesObject = Json<ClientKubernetesObject>;
export type ObjectMeta = Json<V1ObjectMeta>;
export type OwnerReference = Json<V1OwnerReference>;
export type LabelSelector = Json<V1LabelSelector>;
export type LabelSelectorRequirement = Json<V1LabelSelectorRequirement>;

export type Pod = Json<V1Pod>;
export type PodSpec = Json<V1PodSpec>;
export type PodTemplateSpec = Json<V1PodTemplateSpec>;
export type PodCondition = Json<V1PodCondition>;
export type Container = Json<V1Container>;
export type ContainerStatus = Json<V1ContainerStatus>;
export type Volume = Json<V1Volume>;
export type Affinity = Json<V1Affinity>;
export type Toleration = Json<V1Toleration>;

export type Node = Json<V1Node>;
export type NodeCondition = Json<V1NodeCondition>;
export type NodeSelector = Json<V1NodeSelector>;
export type NodeSelectorTerm = Json<V1NodeSelectorTerm>;
export type NodeSelectorRequirement = Json<V1NodeSelectorRequirement>;
export type Taint = Json<V1Taint>;

export type Namespace = Json<V1Namespace>;
export type ConfigMap = Json<V1ConfigMap>;
export type PersistentVolumeClaim = Json<V1PersistentVolumeClaim>;
export type Event = Json<CoreV1Event>;

export type Deployment = Json<V1Deployment>;
export type DeploymentCondition = Json<V1DeploymentCondition>;
export type ReplicaSet = Json<V1ReplicaSet>;
export type ReplicaSetStatus = Json<V1ReplicaSetStatus>;
export type ReplicaSetCondition = Json<V1ReplicaSetCondition>;
export type StatefulSet = Json<V1StatefulSet>;
export type StatefulSetSpec = Json<V1StatefulSetSpec>;
export type StatefulSetStatus = Json<V1StatefulSetStatus>;
export type DaemonSet = Json<V1DaemonSet>;
export type DaemonSetStatus = Json<V1DaemonSetStatus>;
export type DaemonSetCondition = Json<V1DaemonSetCondition>;
export type DaemonSetUpdateStrategy = Json<V1DaemonSetUpdateStrategy>;
export type ControllerRevision = Json<V1ControllerRevision>;
export type Job = Json<V1Job>;
export type JobCondition = Json<V1JobCondition>;
export type CronJob = Json<V1CronJob>;
