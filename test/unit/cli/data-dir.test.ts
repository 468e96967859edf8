import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { defaultDataDir } from '../../../functions/cli/process-run.js';

const ROOT = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');

describe('fleetq run: the default data folder', () => {
  const installed = mkdtempSync(join(tmpdir(), 'fleetq-installed-'));
  afterAll(() => rmSync(installed, { recursive: true, force: true }));

  it('is .fleetq in the checkout it runs from, from the sources or from dist/', () => {
    expect(defaultDataDir({})).toBe(join(ROOT, '.fleetq'));
    expect(defaultDataDir({}, join(ROOT, 'dist', 'functions', 'cli'))).toBe(join(ROOT, '.fleetq'));
  });

  it('installed (no checkout above it): the user state folder', () => {
    const from = join(installed, 'lib', 'node_modules', 'fleetq', 'dist', 'functions', 'cli');
    expect(defaultDataDir({ XDG_STATE_HOME: '/var/state' }, from)).toBe('/var/state/fleetq');
    expect(defaultDataDir({}, from)).toBe(join(homedir(), '.local', 'state', 'fleetq'));
  });
});
