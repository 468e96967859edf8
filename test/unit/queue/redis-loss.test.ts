import { describe, expect, it } from '@jest/globals';
import { parseServerIdentity } from '../../../shared/queue/redis/redis-loss.js';

const RUN = 'a'.repeat(40);
const REPL = '0123456789abcdef0123456789abcdef01234567';
const server = (runId: string) => `# Server\r\nredis_version:7.0.15\r\nrun_id:${runId}\r\ntcp_port:6379\r\n`;
const replication = (replId: string) =>
  `# Replication\r\nrole:master\r\nmaster_replid:${replId}\r\nmaster_replid2:${'0'.repeat(40)}\r\n`;

describe('parseServerIdentity (INFO text is untrusted)', () => {
  it.each([
    { name: 'run_id and master_replid', s: server(RUN), r: replication(REPL), want: { runId: RUN, replId: REPL } },
    {
      name: 'LF line ends',
      s: server(RUN).replaceAll('\r', ''),
      r: replication(REPL),
      want: { runId: RUN, replId: REPL },
    },
    { name: 'no run_id', s: '# Server\r\nredis_version:7.0.15\r\n', r: replication(REPL), want: undefined },
    { name: 'no master_replid (only replid2)', s: server(RUN), r: `master_replid2:${REPL}\r\n`, want: undefined },
    { name: 'a short run_id', s: server('abc'), r: replication(REPL), want: undefined },
    { name: 'a run_id with more after it', s: server(`${RUN}x`), r: replication(REPL), want: undefined },
    { name: 'upper-case hex', s: server(RUN.toUpperCase()), r: replication(REPL), want: undefined },
    { name: 'empty replies', s: '', r: '', want: undefined },
  ])('$name', ({ s, r, want }) => expect(parseServerIdentity(s, r)).toEqual(want));
});
