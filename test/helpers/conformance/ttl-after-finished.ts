// The TTL-after-finished scenarios: Jobs, run by fleetq's Job and TTL controllers both and compared as the Job
// plug-in compares them; the TTL controller records no Events of its own, so none are compared for it.
import type { ConformancePlugin } from './plugin.js';

export const ttlAfterFinishedPlugin: ConformancePlugin = {
  kind: 'TTLAfterFinished',
  needs: ['Job', 'TTLAfterFinished'],
  eventKinds: [],
};
