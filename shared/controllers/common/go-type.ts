// The shape of one Go type in the table go-types.ts (generated from k8s.io/api by reflection): enough for
// common/pod-template-hash.ts to print a pod template the way kube-controller-manager's hash printer does.
export type GoKind = 'struct' | 'slice' | 'map' | 'ptr' | 'string' | 'int' | 'uint' | 'bool' | 'custom';

/** [Go field name, JSON name (',inline' for an embedded struct), type id] */
export type GoField = readonly [string, string, string];

export type GoType = {
  readonly kind: GoKind;
  /** reflect.Type.String(): the type name spew prints, e.g. "v1.PodSpec", "[]v1.Container", "*int64". */
  readonly str: string;
  readonly elem?: string;
  readonly key?: string;
  readonly fields?: readonly GoField[];
};
