// The queue's scripts run on the one script runner every Redis store shares (shared/lua/script-runner.ts); this
// path stays for the forwarder's modules that import it from here.
export { ScriptRunner, type Reply } from '../../lua/script-runner.js';
