// The sandbox's per-kind options derive from the registered descriptors: a kind's CRDs, and the command of an
// add-on upstream controller (refused, naming the file to edit, when the sandbox does not know how to start it).
import { describe, expect, it } from '@jest/globals';
import { isGoModuleFile, goModuleFilePath } from '../../../infra/sandbox/go-module.js';
import { JOBSET_CONTROLLER, JOBSET_CRD } from '../../../infra/sandbox/jobset-controller.js';
import {
  ADD_ON_COMMANDS,
  addOnsFor,
  sandboxKindOptions,
  type AddOnContext,
} from '../../../infra/sandbox/kind-options.js';
import { LWS_CONTROLLER, LWS_CRD } from '../../../infra/sandbox/lws-controller.js';
import { SandboxMode } from '../../../infra/sandbox/modes.js';
import { kindsTurnedOff } from '../../../infra/sandbox/replaced-kinds.js';
import { ownedApart } from '../../../shared/kube/registry.js';
import type { Pki } from '../../../infra/sandbox/pki.js';

const crd = new URL('file:///kinds/gadget/crd.yaml');
const moduleCrd = { module: 'example.dev/widgets', version: 'v1.2.3', path: 'config/crd/widgets.yaml' };
const registry = {
  crds: [
    { kind: 'Gadget', file: crd },
    { kind: 'Widget', file: moduleCrd },
  ],
  upstreamControllers: [
    { kind: 'Deployment', name: 'deployment-controller', runs: 'kube-controller-manager' as const },
    { kind: 'Gadget', name: 'gadget-controller', runs: 'add-on' as const },
  ],
};
const ctx: AddOnContext = {
  cluster: 'upstream-1',
  kubeconfig: '/k',
  dir: '/d',
  binDir: '/bin',
  binary: '/addons/gadget-controller',
  pki: {} as Pki,
  freePort: async () => 40_000,
};

describe('sandbox kind options', () => {
  it("the shipped kinds: JobSet's and LeaderWorkerSet's CRDs from their Go modules and their upstream managers as add-ons (LeaderWorkerSet's on request, once for its two key kinds); FleetRollout's own CRD", () =>
    expect(sandboxKindOptions()).toEqual([
      {
        kind: 'JobSet',
        crds: [JOBSET_CRD],
        upstreamController: { name: JOBSET_CONTROLLER, start: ADD_ON_COMMANDS[JOBSET_CONTROLLER] },
      },
      { kind: 'FleetRollout', crds: [new URL('../../../infra/k8s/fleetrollout-crd.yaml', import.meta.url)] },
      {
        kind: 'LeaderWorkerSet',
        crds: [LWS_CRD],
        upstreamController: { name: LWS_CONTROLLER, start: ADD_ON_COMMANDS[LWS_CONTROLLER], onRequest: true },
      },
    ]));

  it("a CRD kind with an add-on controller: its CRD file, and the add-on's command on the upstream side", async () => {
    const start = async (c: AddOnContext) => ({
      command: c.binary,
      args: [`--kubeconfig=${c.kubeconfig}`, `--webhook-port=${await c.freePort()}`],
    });
    const [gadget, widget, ...rest] = sandboxKindOptions(registry, { 'gadget-controller': start });
    expect(rest).toEqual([]);
    expect(gadget?.kind).toBe('Gadget');
    expect(gadget?.crds).toEqual([crd]);
    expect(gadget?.upstreamController?.name).toBe('gadget-controller');
    expect(await gadget?.upstreamController?.start(ctx)).toEqual({
      command: '/addons/gadget-controller',
      args: ['--kubeconfig=/k', '--webhook-port=40000'],
    });
    // A CRD of a Go module is passed on as named: the sandbox resolves it from the module cache at install.
    expect(widget).toEqual({ kind: 'Widget', crds: [moduleCrd] });
  });

  it('JobSet has an add-on command (its descriptor can name `jobset-controller`)', () =>
    expect(Object.keys(ADD_ON_COMMANDS)).toContain('jobset-controller'));

  it('a Go module file is told apart from a URL, and a path leaving the module is refused before any download', () => {
    expect(isGoModuleFile(moduleCrd)).toBe(true);
    expect(isGoModuleFile(crd)).toBe(false);
    expect(isGoModuleFile('config/crd/widgets.yaml')).toBe(false);
    expect(() => goModuleFilePath({ ...moduleCrd, path: '../other/crd.yaml' })).toThrow(
      'example.dev/widgets@v1.2.3: ../other/crd.yaml is not a path inside the module',
    );
    expect(() => goModuleFilePath({ ...moduleCrd, path: '/etc/passwd' })).toThrow(/is not a path inside the module/);
  });

  it('an add-on two kinds name (one manager, two key kinds) goes with the first, and a cluster starts it once', () => {
    const lws = sandboxKindOptions({
      crds: [{ kind: 'LeaderWorkerSet', file: LWS_CRD }],
      upstreamControllers: [
        { kind: 'LeaderWorkerSet', name: LWS_CONTROLLER, runs: 'add-on' },
        { kind: 'LeaderWorkerSetPod', name: LWS_CONTROLLER, runs: 'add-on' },
      ],
    });
    expect(lws).toEqual([
      {
        kind: 'LeaderWorkerSet',
        crds: [LWS_CRD],
        upstreamController: { name: LWS_CONTROLLER, start: ADD_ON_COMMANDS[LWS_CONTROLLER], onRequest: true },
      },
    ]);
    const asked = { name: 'u', mode: SandboxMode.Upstream, addOns: [LWS_CONTROLLER] };
    expect(addOnsFor(lws, asked).map((a) => a.name)).toEqual([LWS_CONTROLLER]);
    expect(addOnsFor(lws, { name: 'u', mode: SandboxMode.Upstream })).toEqual([]);
    expect(addOnsFor(lws, { name: 'f', mode: SandboxMode.Fleetq })).toEqual([]);
  });

  it("fleetq-mode clusters own kube-controller-manager's kinds only, never part of a group owned together", () => {
    const owns = kindsTurnedOff(SandboxMode.Fleetq);
    expect(owns).toEqual([
      'Deployment',
      'ReplicaSet',
      'StatefulSet',
      'DaemonSet',
      'Job',
      'CronJob',
      'TTLAfterFinished',
    ]);
    expect(ownedApart(owns)).toBeUndefined();
    expect(kindsTurnedOff(SandboxMode.Upstream)).toEqual([]);
  });

  it('an add-on the sandbox has no command for is refused, naming where to add it', () =>
    expect(() => sandboxKindOptions(registry, {})).toThrow(
      "Gadget's upstream controller gadget-controller is an add-on the sandbox cannot start: add its command to ADD_ON_COMMANDS (infra/sandbox/kind-options.ts)",
    ));
});
