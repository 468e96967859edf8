// JobSet's update checks, as jobset v0.12.0's webhook ValidateUpdate makes them: spec.replicatedJobs and
// spec.managedBy are immutable, except that a JobSet that is or is getting suspended may change its pod templates'
// labels, annotations, nodeSelector, tolerations and schedulingGates (Kueue), and, with the ElasticJobSet gate, an
// Indexed ReplicatedJob of a JobSet not yet finished may change parallelism and completions (kept equal, >= 1).
// "Equal" is apimachinery's semantic equality on the Go types: an absent field, null, "" and an empty list or map
// read the same. The refused value is printed as the request's JSON; Go prints its own struct encoding (which adds
// empty fields such as `resources: {}`), so the field path and reason match upstream, the printed value may not.
import type { JobSet, ReplicatedJob } from '../controllers/jobset/types.js';
import type { FieldError } from './field-errors.js';
import { forbidden, invalid, path } from './field-errors.js';
import type { JobSetFeatures } from './jobset-validation.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const isEmpty = (v: unknown) =>
  v === undefined ||
  v === null ||
  v === '' ||
  (Array.isArray(v) && v.length === 0) ||
  (isObject(v) && Object.values(v).every((x) => x === undefined));

/** apimachinery's semantic DeepEqual over decoded JSON: nil and empty read the same. */
export function semanticEqual(a: unknown, b: unknown): boolean {
  if (isEmpty(a) && isEmpty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => semanticEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!semanticEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

const jobSpecOf = (r: unknown): Json => {
  const template = isObject(r) ? r.template : undefined;
  return isObject(template) && isObject(template.spec) ? template.spec : {};
};
const podTemplateOf = (r: unknown): Json => {
  const t = jobSpecOf(r).template;
  return isObject(t) ? t : {};
};

function conditionTrue(js: JobSet, type: string): boolean {
  return (js.status?.conditions ?? []).some((c) => c?.type === type && c?.status === 'True');
}

export function validateJobSetUpdate(oldJs: JobSet, newJs: JobSet, features: JobSetFeatures = {}): FieldError[] {
  const errs: FieldError[] = [];
  const newRJobs: unknown[] = Array.isArray(newJs.spec?.replicatedJobs) ? newJs.spec.replicatedJobs : [];
  const oldRJobs: unknown[] = Array.isArray(oldJs.spec?.replicatedJobs) ? oldJs.spec.replicatedJobs : [];
  const munged = structuredClone(newRJobs) as Json[];
  const oldByName = new Map<unknown, Json>();
  for (const r of oldRJobs) if (isObject(r)) oldByName.set(r.name, r);

  if (features.elasticJobSet) {
    const terminal = conditionTrue(oldJs, 'Completed') || conditionTrue(oldJs, 'Failed');
    newRJobs.forEach((newRJob, i) => {
      const oldRJob = isObject(newRJob) ? oldByName.get(newRJob.name) : undefined;
      if (oldRJob === undefined) return;
      const field = path('spec', 'replicatedJobs', i, 'template', 'spec');
      const n = jobSpecOf(newRJob);
      const o = jobSpecOf(oldRJob);
      if (n.completionMode === 'Indexed') {
        const parallelismChanged = n.parallelism !== o.parallelism;
        const completionsChanged = n.completions !== o.completions;
        if (parallelismChanged || completionsChanged) {
          if (terminal) {
            errs.push(
              forbidden(
                field,
                'Cannot mutate parallelism or completions when JobSet is in a terminal state (Completed or Failed)',
              ),
            );
          } else {
            if (parallelismChanged && typeof n.parallelism === 'number' && n.parallelism < 1) {
              errs.push(invalid(path(field, 'parallelism'), n.parallelism, 'parallelism must be >= 1'));
            }
            if (completionsChanged && typeof n.completions === 'number' && n.completions < 1) {
              errs.push(invalid(path(field, 'completions'), n.completions, 'completions must be >= 1'));
            }
            if (
              typeof n.parallelism === 'number' &&
              typeof n.completions === 'number' &&
              n.parallelism !== n.completions
            ) {
              errs.push(
                invalid(
                  path(field, 'completions'),
                  n.completions,
                  'completions must be equal to parallelism for Elastic Indexed Jobs',
                ),
              );
            }
          }
        }
        const m = jobSpecOf(munged[i]);
        m.parallelism = o.parallelism;
        m.completions = o.completions;
      }
    });
  }

  if (oldJs.spec?.suspend === true || newJs.spec?.suspend === true) {
    newRJobs.forEach((newRJob, i) => {
      const oldRJob = isObject(newRJob) ? oldByName.get(newRJob.name) : undefined;
      if (oldRJob === undefined) return;
      const mTemplate = podTemplateOf(munged[i]);
      const oTemplate = podTemplateOf(oldRJob);
      const oMeta = isObject(oTemplate.metadata) ? oTemplate.metadata : {};
      const mMeta = isObject(mTemplate.metadata) ? mTemplate.metadata : (mTemplate.metadata = {});
      mMeta.annotations = oMeta.annotations;
      mMeta.labels = oMeta.labels;
      const oSpec = isObject(oTemplate.spec) ? oTemplate.spec : {};
      const mSpec = isObject(mTemplate.spec) ? mTemplate.spec : (mTemplate.spec = {});
      mSpec.nodeSelector = oSpec.nodeSelector;
      mSpec.tolerations = oSpec.tolerations;
      mSpec.schedulingGates = oSpec.schedulingGates;
    });
  }

  if (!semanticEqual(munged, oldRJobs)) {
    errs.push(invalid(path('spec', 'replicatedJobs'), munged as ReplicatedJob[], 'field is immutable'));
  }
  if (!semanticEqual(newJs.spec?.managedBy, oldJs.spec?.managedBy)) {
    errs.push(invalid(path('spec', 'managedBy'), newJs.spec?.managedBy ?? null, 'field is immutable'));
  }
  return errs;
}
