// The sandbox's per-kind options derive from the registered descriptors: a kind's CRDs, and the command of an
// add-on upstream controller (refused, naming the file to edit, when the sandbox does not know how to start it).
import { describe, expect, it } from '@jest/globals';
import { sandboxKindOptions, type AddOnContext } from '../../../infra/sandbox/kind-options.js';

const crd = new URL('file:///kinds/gadget/crd.yaml');
const registry = {
  crds: [{ kind: 'Gadget', file: crd }],
  upstreamControllers: [
    { kind: 'Deployment', name: 'deployment-controller', runs: 'kube-controller-manager' as const },
    { kind: 'Gadget', name: 'gadget-controller', runs: 'add-on' as const },
  ],
};
const ctx: AddOnContext = { cluster: 'upstream-1', kubeconfig: '/k', dir: '/d', binDir: '/bin' };

describe('sandbox kind options', () => {
  it('the shipped kinds ask for no CRD and no add-on controller', () => expect(sandboxKindOptions()).toEqual([]));

  it("a CRD kind with an add-on controller: its CRD file, and the add-on's command on the upstream side", () => {
    const start = (c: AddOnContext) => ({
      command: `${c.binDir}/gadget-controller`,
      args: [`--kubeconfig=${c.kubeconfig}`],
    });
    const [gadget, ...rest] = sandboxKindOptions(registry, { 'gadget-controller': start });
    expect(rest).toEqual([]);
    expect(gadget?.kind).toBe('Gadget');
    expect(gadget?.crds).toEqual([crd]);
    expect(gadget?.upstreamController?.name).toBe('gadget-controller');
    expect(gadget?.upstreamController?.start(ctx)).toEqual({
      command: '/bin/gadget-controller',
      args: ['--kubeconfig=/k'],
    });
  });

  it('an add-on the sandbox has no command for is refused, naming where to add it', () =>
    expect(() => sandboxKindOptions(registry, {})).toThrow(
      "Gadget's upstream controller gadget-controller is an add-on the sandbox cannot start: add its command to ADD_ON_COMMANDS (infra/sandbox/kind-options.ts)",
    ));
});
