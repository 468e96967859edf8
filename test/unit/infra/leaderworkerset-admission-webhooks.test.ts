// infra/k8s/components/leaderworkerset-admission's webhook configurations are upstream's (lws v0.9.0 config/webhook,
// with its kustomization's patches, read from the module as the sandbox reads them): each webhook fleetq serves has
// upstream's name, rules, failure and side-effect policies, objectSelector and path; only the client (the
// fleetq-admission Service) differs. DisaggregatedSet's webhook is the one left out.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { lwsWebhookForPath } from '../../../shared/admission/lws-admission-review.js';
import { lwsWebhookConfigurations } from '../../../infra/sandbox/lws-controller.js';

type Webhook = {
  name: string;
  clientConfig: { url?: string; service?: { name: string; namespace: string; port: number; path: string } };
  [field: string]: unknown;
};
type Configuration = { kind: string; metadata: { name: string }; webhooks: Webhook[] };

const ours = parseAllDocuments(
  readFileSync(
    new URL('../../../infra/k8s/components/leaderworkerset-admission/webhooks.yaml', import.meta.url),
    'utf8',
  ),
).map((d) => d.toJS() as Configuration);
const BASE = 'https://upstream.invalid';
const upstream = lwsWebhookConfigurations(BASE, 'CA') as unknown as Configuration[];

/** A webhook without its client, with the path it calls. */
function comparable(w: Webhook): Record<string, unknown> {
  const { clientConfig, timeoutSeconds: _timeout, ...rest } = w;
  return { ...rest, path: clientConfig.service?.path ?? clientConfig.url?.slice(BASE.length) };
}

describe('components/leaderworkerset-admission', () => {
  it.each(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'])("%s: upstream's webhooks", (kind) => {
    const mine = ours.find((c) => c.kind === kind)!;
    const theirs = upstream.find((c) => c.kind === kind)!;
    const served = theirs.webhooks.filter((w) => w.name !== 'vdisaggregatedset.kb.io');
    expect(mine.webhooks.map(comparable)).toEqual(served.map(comparable));
  });

  it('sends the pod webhooks only the pods with the name label, to the fleetq-admission Service, on paths it serves', () => {
    const webhooks = ours.flatMap((c) => c.webhooks);
    expect(webhooks.map((w) => w.name)).toEqual([
      'mleaderworkerset.kb.io',
      'mpod.kb.io',
      'vleaderworkerset.kb.io',
      'vpod.kb.io',
    ]);
    for (const w of webhooks.filter((x) => x.name.endsWith('pod.kb.io')))
      expect(w.objectSelector).toEqual({
        matchExpressions: [{ key: 'leaderworkerset.sigs.k8s.io/name', operator: 'Exists' }],
      });
    for (const w of webhooks) {
      expect(w.clientConfig.service).toMatchObject({ name: 'fleetq-admission', namespace: 'fleetq-system', port: 443 });
      expect(lwsWebhookForPath(w.clientConfig.service!.path)).toBeDefined();
      expect(w.failurePolicy).toBe('Fail');
    }
  });
});
