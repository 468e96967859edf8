// The Fleet rollouts section of `fleetq ui` (shared/ops/ui/fleet-rollouts.ts) from LIST answers the test makes: the
// progress of each FleetRollout by wave (format.ts rolloutProgress), a malformed object listed with its error
// beside the others, the count beyond those shown, tenant text made inert, no hub and a hub that does not answer
// (a closed loopback port) said as such.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { freePort } from '../../../infra/sandbox/process.js';
import { ClusterRegistry, parseRegistry } from '../../../shared/kube/registry.js';
import {
  HubRollouts,
  NO_HUB,
  ROLLOUTS_SHOWN,
  rolloutsView,
  rolloutView,
} from '../../../shared/ops/ui/fleet-rollouts.js';
import { CURRENT_REVISION, ledgerRollout } from '../../helpers/rollouts/ledger-fixture.js';

const NOW = Date.parse('2025-01-01T12:00:00Z');

describe('fleet rollouts view', () => {
  it('a rollout mid-way: target, phase, revision and each wave with its clusters', () => {
    expect(rolloutView(ledgerRollout('web', 'shop', NOW), NOW)).toEqual({
      namespace: 'shop',
      name: 'web',
      target: 'Deployment shop/web',
      phase: 'Progressing',
      paused: false,
      revision: CURRENT_REVISION,
      attempt: 1,
      wave: 'canary',
      waves: [
        {
          name: 'canary',
          state: 'Current',
          approval: false,
          approved: false,
          clusters: [
            { cluster: 'eu-1', state: 'Succeeded', reason: 'AvailableAndSoaked' },
            // available 4 minutes ago, soak 10m: 6 minutes to go
            { cluster: 'us-2', state: 'Soaking', soakRemainingMs: 6 * 60_000, reason: 'Available' },
          ],
        },
        {
          name: 'rest',
          state: 'Pending',
          approval: true,
          approved: false,
          clusters: [{ cluster: 'ap-3', state: 'Pending' }],
        },
      ],
    });
  });

  it('a stopped rollout: the stop reason, a failure with its signature, a cluster rolled back', () => {
    const v = rolloutView(ledgerRollout('web', 'shop', NOW, { stopped: true }), NOW);
    expect(v).toMatchObject({ phase: 'RolledBack', stopReason: '1 cluster failed (us-2), past the budget of 0' });
    expect(v.waves?.[0]?.clusters).toEqual([
      { cluster: 'eu-1', state: 'RolledBack', reason: 'RolledBackByFleetRollout' },
      { cluster: 'us-2', state: 'Failed', failure: 'ImagePullBackOff (shop/web:2)', reason: 'FailureSignature' },
    ]);
    expect(v.waves?.[1]).toMatchObject({ name: 'rest', state: 'Stopped' });
  });

  it('a malformed object is listed with its error; the others are shown', () => {
    const bad = ledgerRollout('broken', 'shop', NOW);
    bad.spec.waves = 'all at once';
    const view = rolloutsView('hub-1', { items: [bad, ledgerRollout('web', 'shop', NOW), null] }, NOW);
    expect(view.hub).toBe('hub-1');
    expect(view.shown.map((r) => [r.namespace, r.name, r.error === undefined])).toEqual([
      ['shop', 'broken', false],
      ['shop', 'web', true],
      ['?', '?', false],
    ]);
    expect(view.shown[0]?.error).toMatch(/waves/);
    expect(view.more).toBe(false);
  });

  it(`shows ${ROLLOUTS_SHOWN} at most and says how many more the apiserver has`, () => {
    const items = Array.from({ length: ROLLOUTS_SHOWN + 3 }, (_, i) => ledgerRollout(`r${i}`, 'shop', NOW));
    expect(rolloutsView('hub-1', { items }, NOW).shown).toHaveLength(ROLLOUTS_SHOWN);
    expect(rolloutsView('hub-1', { items: [], metadata: { continue: 'x', remainingItemCount: 7 } }, NOW).more).toBe(7);
    expect(rolloutsView('hub-1', { items: [], metadata: { continue: 'x' } }, NOW).more).toBe(true);
  });

  it('tenant text (reasons) comes out with control and bidi characters made visible', () => {
    const raw = ledgerRollout('web', 'shop', NOW, { stopped: true });
    const current = (raw.status.revisions as Array<{ stopReason?: string }>)[1];
    if (current) current.stopReason = 'bad\u001b[31m red\u202e <b>x</b>';
    const v = rolloutView(raw, NOW);
    expect([...(v.stopReason ?? '')].filter((ch) => ch === '\u001b' || ch === '\u202e')).toEqual([]);
    expect(v.stopReason).toContain('<b>x</b>');
  });

  it('no hub in the registry: says so, reads nothing', async () => {
    expect(await new HubRollouts(undefined).read(NOW)).toEqual({ hub: null, shown: [], more: false, error: NO_HUB });
  });

  it('a hub that does not answer: said in the section, not thrown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fleetq-ui-hub-'));
    try {
      writeFileSync(join(dir, 'token'), 'no-such-token');
      const yaml = [
        'clusters:',
        '  - name: hub-1',
        `    server: https://127.0.0.1:${await freePort()}`,
        '    tokenFile: token',
        '    insecureSkipTLSVerify: true',
        '    allowInsecure: true',
        '    owns: [ConfigMap]',
        '    hub: true',
      ].join('\n');
      const registry = new ClusterRegistry(parseRegistry(yaml, 'fleet.yaml', dir));
      const view = await new HubRollouts(registry, 2_000).read(NOW);
      expect(view).toMatchObject({ hub: 'hub-1', shown: [], more: false });
      expect(view.error).toMatch(/^hub hub-1: .*(ECONNREFUSED|fetch failed)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
