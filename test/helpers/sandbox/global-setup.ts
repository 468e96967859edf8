// Starts the standard sandbox clusters once per test run, or reuses the ones already running.
// Jest loads global setup outside its module mapper, so this runs the starter script through tsx.
import { execFileSync } from 'node:child_process';

export default function globalSetup(): void {
  const out = execFileSync('npx', ['tsx', 'test/helpers/sandbox/start.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 30 * 60_000,
  });
  process.stderr.write(`\n${out.toString()}`);
}
