// JobSet's admission checks, as jobset v0.12.0's webhook ValidateCreate/ValidateUpdate makes them
// (pkg/webhooks/jobset_webhook.go), with upstream's messages and field paths. Feature gates as upstream's
// defaults: InPlaceRestart, RestartJob and ElasticJobSet are off unless the options turn them on.
// Not ported: the volume-claim check that reads an existing PVC of the generated name from the cluster (this
// function reads no cluster). Added: a JobSet asking for exclusive placement is refused (fleetq does not run the
// pod webhooks that placement needs).
import type { JobSet, ReplicatedJob } from '../controllers/jobset/types.js';
import type { FieldError } from './field-errors.js';
import { invalid, path, plain, required, tooLong } from './field-errors.js';
import {
  byteLength,
  httpPathRe,
  HTTP_PATH,
  isDNS1035Label,
  isDNS1123Subdomain,
  isValidLabelValue,
  regexError,
} from './names.js';

export type JobSetFeatures = { inPlaceRestart?: boolean; restartJob?: boolean; elasticJobSet?: boolean };

export const EXCLUSIVE_TOPOLOGY_KEY = 'alpha.jobset.sigs.k8s.io/exclusive-topology';
export const COORDINATOR_KEY = 'jobset.sigs.k8s.io/coordinator';

const MAX_INT32 = 2147483647;
const MAX_MANAGED_BY_LENGTH = 63;
const MAX_VOLUME_CLAIM_LENGTH = 63;
const MAX_REPLICAS_WITH_RESTART_JOB = 1024;
const DNS1035_TOO_LONG = 'must be no more than 63 characters';
const GROUP_NAME_TOO_LONG = '.spec.replicatedJob[].groupName is too long, must be less than 63 characters';
const JOB_NAME_TOO_LONG = 'JobSet name is too long, job names generated for this JobSet will exceed 63 characters';
const POD_NAME_TOO_LONG = 'JobSet name is too long, pod names generated for this JobSet will exceed 63 characters';
const SUBDOMAIN_TOO_LONG = '.spec.network.subdomain is too long, must be less than 63 characters';
const VALID_FAILURE_REASONS = [
  'BackoffLimitExceeded',
  'DeadlineExceeded',
  'FailedIndexes',
  'MaxFailedIndexesExceeded',
  'PodFailurePolicy',
];
const RULE_NAME_RE = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = <T>(v: T[] | undefined | null): T[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number => (typeof v === 'number' ? v : 0);
const jobSpec = (r: ReplicatedJob): Json => (isObject(r.template?.spec) ? (r.template.spec as Json) : {});
const podSpec = (r: ReplicatedJob): Json => {
  const template = jobSpec(r).template;
  return isObject(template) && isObject(template.spec) ? template.spec : {};
};
const optInt = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** DNS-1035 messages, with the length message replaced by upstream's own for this field. */
function dns1035(value: string, tooLongMessage: string): string[] {
  return isDNS1035Label(value).map((m) => (m.includes(DNS1035_TOO_LONG) ? tooLongMessage : m));
}

/** validation.IsDomainPrefixedPath. */
function domainPrefixedPath(field: string, value: string): FieldError[] {
  if (value.length === 0) return [required(field)];
  const slash = value.indexOf('/');
  const host = slash < 0 ? '' : value.slice(0, slash);
  const rest = slash < 0 ? '' : value.slice(slash + 1);
  if (slash < 0 || host === '' || rest === '') {
    return [invalid(field, value, 'must be a domain-prefixed path (such as "acme.io/foo")')];
  }
  const errs = isDNS1123Subdomain(host).map((m) => invalid(field, host, m));
  if (!httpPathRe.test(rest)) errs.push(invalid(field, rest, regexError('Invalid path', HTTP_PATH)));
  return errs;
}

/** The exclusive-placement refusal, or undefined: the annotation on the JobSet or on a ReplicatedJob's Job template. */
export function exclusivePlacementRefusal(js: JobSet): string | undefined {
  const where: string[] = [];
  if (js.metadata?.annotations?.[EXCLUSIVE_TOPOLOGY_KEY] !== undefined) where.push('metadata.annotations');
  list(js.spec?.replicatedJobs).forEach((r, i) => {
    if (r?.template?.metadata?.annotations?.[EXCLUSIVE_TOPOLOGY_KEY] !== undefined) {
      where.push(`spec.replicatedJobs[${i}].template.metadata.annotations`);
    }
  });
  if (where.length === 0) return undefined;
  return (
    `exclusive placement (annotation "${EXCLUSIVE_TOPOLOGY_KEY}" in ${where.join(', ')}) is not supported ` +
    `by fleetq's admission function: it needs the pod webhooks of the upstream JobSet controller, which supports it`
  );
}

/** ValidateCreate: every error, in upstream's order; empty when the JobSet is admitted. */
export function validateJobSetCreate(js: JobSet, features: JobSetFeatures = {}): FieldError[] {
  const errs: FieldError[] = [];
  const spec = js.spec ?? {};
  const name = str(js.metadata?.name);
  const failurePolicy = spec.failurePolicy;
  const inPlace = failurePolicy?.restartStrategy === 'InPlaceRestart';

  if (!features.inPlaceRestart && inPlace) {
    errs.push(plain('InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled'));
  }
  const rJobs = list(spec.replicatedJobs).filter(isObject) as ReplicatedJob[];
  const first = rJobs[0];
  if (first !== undefined && first.dependsOn !== undefined && first.dependsOn !== null) {
    errs.push(plain("DependsOn can't be set for the first ReplicatedJob"));
  }

  const subdomain = str(spec.network?.subdomain);
  if (subdomain !== '') {
    const field = path('spec', 'network', 'subdomain');
    for (const m of isDNS1123Subdomain(subdomain)) errs.push(invalid(field, subdomain, m));
    for (const m of dns1035(subdomain, SUBDOMAIN_TOO_LONG)) errs.push(invalid(field, subdomain, m));
  }

  if (spec.managedBy !== undefined && spec.managedBy !== null) {
    const manager = str(spec.managedBy);
    const field = path('spec', 'managedBy');
    errs.push(...domainPrefixedPath(field, manager));
    if (byteLength(manager) > MAX_MANAGED_BY_LENGTH) errs.push(tooLong(field, MAX_MANAGED_BY_LENGTH));
  }

  const rJobNames = new Set<string>();
  rJobs.forEach((rJob, i) => {
    const field = (...rest: string[]) => path('spec', 'replicatedJobs', i, ...rest);
    const rName = str(rJob.name);
    rJobNames.add(rName);
    const replicas = int(rJob.replicas);
    const jSpec = jobSpec(rJob);
    const parallelism = optInt(jSpec.parallelism) ?? 1;
    if (parallelism * replicas > MAX_INT32) {
      errs.push(
        plain(`the product of replicas and parallelism must not exceed ${MAX_INT32} for replicatedJob '${rName}'`),
      );
    }
    const groupName = str(rJob.groupName);
    for (const m of dns1035(groupName, GROUP_NAME_TOO_LONG)) errs.push(invalid(field('groupName'), groupName, m));
    const longestJobName = `${name}-${rName}-${replicas - 1}`;
    for (const m of dns1035(longestJobName, JOB_NAME_TOO_LONG)) {
      errs.push(invalid(field('name'), longestJobName, m));
    }
    const completions = optInt(jSpec.completions);
    if (jSpec.completionMode === 'Indexed' && completions !== undefined) {
      const longestPodName = `${name}-${rName}-${replicas - 1}-${completions - 1}-abcde`;
      for (const m of dns1035(longestPodName, POD_NAME_TOO_LONG)) {
        errs.push(invalid(field('name'), longestJobName, m));
      }
    }
    for (const dep of list(rJob.dependsOn)) {
      if (!rJobNames.has(str(dep?.name))) {
        errs.push(plain(`replicatedJob: ${rName} cannot depend on replicatedJob: ${str(dep?.name)}`));
      }
    }
    if (features.inPlaceRestart && inPlace) {
      const backoffLimit = optInt(jSpec.backoffLimit);
      if (backoffLimit !== MAX_INT32) {
        errs.push(
          invalid(
            field('template', 'spec', 'backoffLimit'),
            backoffLimit ?? null,
            `replicatedJob ${rName}: must be set to ${MAX_INT32} (MaxInt32) when in-place restart is enabled`,
          ),
        );
      }
      if (jSpec.podReplacementPolicy !== 'Failed') {
        errs.push(
          invalid(
            field('template', 'spec', 'podReplacementPolicy'),
            jSpec.podReplacementPolicy ?? null,
            `replicatedJob ${rName}: must be set to Failed when in-place restart is enabled`,
          ),
        );
      }
      const p = optInt(jSpec.parallelism);
      if (completions === undefined || p === undefined || completions !== p) {
        errs.push(
          invalid(
            field('template', 'spec', 'completions'),
            completions ?? null,
            `replicatedJob ${rName}: completions and parallelism must be set and equal to each other when in-place restart is enabled`,
          ),
        );
      }
    }
  });

  for (const target of list(spec.successPolicy?.targetReplicatedJobs)) {
    if (!rJobNames.has(target)) {
      errs.push(plain(`invalid replicatedJob name '${target}' does not appear in .spec.ReplicatedJobs`));
    }
  }

  if (isObject(failurePolicy)) errs.push(...validateFailurePolicy(js, rJobs, rJobNames, features));

  if (isObject(spec.coordinator)) {
    const coordinatorError = validateCoordinator(js, rJobs);
    if (coordinatorError !== undefined) errs.push(plain(coordinatorError));
    const labelError = validateCoordinatorLabelValue(js);
    if (labelError !== undefined) errs.push(plain(labelError));
  }

  const policies = list(spec.volumeClaimPolicies as unknown[] | undefined);
  if (policies.length > 0) errs.push(...validateVolumeClaimPolicies(name, policies, rJobs));

  return errs;
}

function validateFailurePolicy(
  js: JobSet,
  rJobs: ReplicatedJob[],
  rJobNames: Set<string>,
  features: JobSetFeatures,
): FieldError[] {
  const errs: FieldError[] = [];
  const rules = list(js.spec.failurePolicy?.rules).filter(isObject);
  const hasRestartJob = rules.some((r) => r.action === 'RestartJob' || r.action === 'RestartJobAndIgnoreMaxRestarts');
  if (hasRestartJob) {
    if (!features.restartJob) {
      return [
        plain(
          'RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not allowed when RestartJob feature gate is disabled',
        ),
      ];
    }
    if (rJobs.some((r) => int(r.replicas) > MAX_REPLICAS_WITH_RESTART_JOB)) {
      errs.push(
        plain(
          `JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts action and a replicated job with replicas > ${MAX_REPLICAS_WITH_RESTART_JOB}`,
        ),
      );
    }
  }
  // Go walks a map here (random order); rules sharing a name are reported in order of first appearance.
  const byName = new Map<string, number[]>();
  rules.forEach((rule, index) => {
    const ruleName = str(rule.name);
    const length = byteLength(ruleName);
    if (length < 1 || length > 128) {
      errs.push(
        plain(
          `invalid failure policy rule name of length ${length}, the rule name must be at least 1 characters long and at most 128 characters long`,
        ),
      );
    }
    byName.set(ruleName, [...(byName.get(ruleName) ?? []), index]);
    if (!RULE_NAME_RE.test(ruleName)) {
      errs.push(
        plain(
          `invalid failure policy rule name '${ruleName}', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'`,
        ),
      );
    }
    for (const target of list(rule.targetReplicatedJobs)) {
      if (!rJobNames.has(target)) {
        errs.push(
          plain(`invalid replicatedJob name '${target}' in failure policy does not appear in .spec.ReplicatedJobs`),
        );
      }
    }
    for (const reason of list(rule.onJobFailureReasons)) {
      if (!VALID_FAILURE_REASONS.includes(reason)) {
        errs.push(
          plain(`invalid job failure reason '${reason}' in failure policy is not a recognized job failure reason`),
        );
      }
    }
  });
  for (const [ruleName, indices] of byName) {
    if (indices.length > 1) {
      errs.push(
        plain(
          `rule names are not unique, rules with indices [${indices.join(' ')}] all have the same name '${ruleName}'`,
        ),
      );
    }
  }
  return errs;
}

function validateCoordinator(js: JobSet, rJobs: ReplicatedJob[]): string | undefined {
  const c = js.spec.coordinator!;
  const rJob = rJobs.find((r) => r.name === c.replicatedJob);
  if (rJob === undefined) return `coordinator replicatedJob ${str(c.replicatedJob)} does not exist`;
  const jobIndex = int(c.jobIndex);
  const podIndex = int(c.podIndex);
  if (jobIndex < 0 || jobIndex >= int(rJob.replicas)) {
    return `coordinator job index ${jobIndex} is invalid for replicatedJob ${rJob.name}`;
  }
  const jSpec = jobSpec(rJob);
  const completions = optInt(jSpec.completions);
  if (jSpec.completionMode === undefined || completions === undefined || jSpec.completionMode !== 'Indexed') {
    return 'job for coordinator pod must be indexed completion mode, and completions number must be set';
  }
  if (podIndex < 0 || podIndex >= completions) {
    return `coordinator pod index ${podIndex} is invalid for replicatedJob ${str(c.replicatedJob)} job index ${jobIndex}`;
  }
  return undefined;
}

function validateCoordinatorLabelValue(js: JobSet): string | undefined {
  const c = js.spec.coordinator!;
  const name = str(js.metadata?.name);
  const subdomain = str(js.spec.network?.subdomain) || name;
  const value = `${name}-${str(c.replicatedJob)}-${int(c.jobIndex)}-${int(c.podIndex)}.${subdomain}`;
  const errs = isValidLabelValue(value);
  if (errs.length === 0) return undefined;
  return `spec will lead to invalid label value ${JSON.stringify(value)} for coordinator label ${JSON.stringify(COORDINATOR_KEY)} (long JobSet / ReplicatedJob / SubDomain name?): ${errs.join(', ')}`;
}

function validateVolumeClaimPolicies(jobSetName: string, policies: unknown[], rJobs: ReplicatedJob[]): FieldError[] {
  const errs: FieldError[] = [];
  const claimNames = new Set<string>();
  policies.forEach((policy, p) => {
    const templates = isObject(policy) && Array.isArray(policy.templates) ? policy.templates : [];
    templates.forEach((template: unknown, t: number) => {
      const field = path('spec', 'volumeClaimPolicies', p, 'template', t, 'name');
      const claim = isObject(template) && isObject(template.metadata) ? str(template.metadata.name) : '';
      if (claimNames.has(claim))
        errs.push(invalid(field, claim, 'names must be unique for VolumeClaimPolicies template'));
      for (const m of isDNS1123Subdomain(claim)) errs.push(invalid(field, claim, m));
      if (byteLength(`${claim}-${jobSetName}`) > MAX_VOLUME_CLAIM_LENGTH) {
        errs.push(invalid(field, claim, 'VolumeClaimPolicies template name is too long'));
      }
      errs.push(...validateVolumeMounts(rJobs, claim));
      claimNames.add(claim);
    });
  });
  return errs;
}

function validateVolumeMounts(rJobs: ReplicatedJob[], claim: string): FieldError[] {
  const errs: FieldError[] = [];
  let mounted = false;
  const mounts = (containers: unknown) =>
    list(containers as Json[]).some(
      (c) => isObject(c) && list(c.volumeMounts as Json[]).some((m) => m?.name === claim),
    );
  rJobs.forEach((rJob, i) => {
    const pod = podSpec(rJob);
    list(pod.volumes as Json[]).forEach((volume, v) => {
      if (isObject(volume) && volume.name === claim) {
        errs.push(
          invalid(
            path('spec', 'replicatedJobs', i, 'template', 'spec', 'template', 'spec', 'volumes', v, 'name'),
            claim,
            `volume name conflicts with VolumeClaimPolicy template name: ${claim}`,
          ),
        );
      }
    });
    if (!mounted && (mounts(pod.initContainers) || mounts(pod.containers))) mounted = true;
  });
  if (!mounted) {
    errs.push(
      invalid(
        path('spec', 'replicatedJobs'),
        rJobs,
        `replicatedJob containers don't have a matching volumeMount: ${claim} from VolumeClaimPolicies`,
      ),
    );
  }
  return errs;
}
