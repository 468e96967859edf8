import { describe, expect, it } from '@jest/globals';
import { runnableBlocks } from '../../helpers/docs/runnable-blocks.js';

const md = [
  '# Title',
  '```sh',
  'npm install -g fleetq   # shown, not run',
  '```',
  '```sh runnable',
  'fleetq version',
  '```',
  '  ```sh runnable exit=2',
  '  fleetq stauts',
  '  ```',
  '```sh runnable until="Ctrl-C to stop"',
  'fleetq run --registry fleet.yaml',
  '```',
  '````md',
  '```sh runnable',
  'not a block: inside another fence',
  '```',
  '````',
].join('\n');

describe('runnableBlocks', () => {
  it('takes only `sh runnable` blocks, with their line, exit code and until text', () => {
    expect(runnableBlocks(md, 'README.md')).toEqual([
      { at: 'README.md:5', script: 'fleetq version', exit: 0 },
      { at: 'README.md:8', script: 'fleetq stauts', exit: 2 },
      { at: 'README.md:11', script: 'fleetq run --registry fleet.yaml', exit: 0, until: 'Ctrl-C to stop' },
    ]);
  });

  it('refuses a malformed marker, naming its line', () => {
    expect(() => runnableBlocks('```sh runnable exit=x\nfleetq\n```', 'a.md')).toThrow(
      'a.md:1: exit=x: not an exit code',
    );
    expect(() => runnableBlocks('```sh runnable timeout=5\nfleetq\n```', 'a.md')).toThrow(
      'a.md:1: unknown attribute timeout',
    );
    expect(() => runnableBlocks('```sh runnable\n\n```', 'a.md')).toThrow('a.md:1: an empty runnable block');
    expect(() => runnableBlocks('```sh runnable\nfleetq', 'a.md')).toThrow(
      'a.md:1: a fenced block that is never closed',
    );
  });
});
