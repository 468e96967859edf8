// The runnable examples of the docs: fenced blocks whose info string is `sh runnable`, with optional attributes:
//   ```sh runnable                      run with bash; must exit 0
//   ```sh runnable exit=2               must exit with this code (an example of a refused command)
//   ```sh runnable until="running"      a long-running command: stopped with SIGINT once its output contains the
//                                       text; it must then exit 0
// Other `sh` blocks (installing, deploying to AWS) are shown, not run. Pure: no files, no processes.
export type RunnableBlock = {
  /** Where the block starts: `docs/operations.md:120` (the line of its opening fence). */
  readonly at: string;
  readonly script: string;
  readonly exit: number;
  readonly until?: string;
};

const FENCE = /^(\s*)(`{3,}|~{3,})\s*(\S*)\s*(.*)$/;
const ATTRIBUTE = /(\w+)=(?:"([^"]*)"|(\S+))/g;

/** The runnable blocks of one Markdown text, in order. A malformed marker throws, naming its line. */
export function runnableBlocks(markdown: string, file: string): RunnableBlock[] {
  const lines = markdown.split('\n');
  const blocks: RunnableBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) continue;
    const [, indent = '', fence = '', lang = '', rest = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line);
    }
    const at = `${file}:${i + 1}`;
    if (j >= lines.length) throw new Error(`${at}: a fenced block that is never closed`);
    const words = rest.trim();
    if (lang === 'sh' && (words === 'runnable' || words.startsWith('runnable '))) {
      const attrs = new Map<string, string>();
      for (const m of words.slice('runnable'.length).matchAll(ATTRIBUTE)) attrs.set(m[1] ?? '', m[2] ?? m[3] ?? '');
      for (const name of attrs.keys())
        if (name !== 'exit' && name !== 'until')
          throw new Error(`${at}: unknown attribute ${name} (exit=N, until="text")`);
      const exit = Number(attrs.get('exit') ?? '0');
      if (!Number.isInteger(exit) || exit < 0 || exit > 255)
        throw new Error(`${at}: exit=${attrs.get('exit')}: not an exit code`);
      const until = attrs.get('until');
      if (until !== undefined && attrs.has('exit')) throw new Error(`${at}: until and exit do not go together`);
      if (body.join('').trim() === '') throw new Error(`${at}: an empty runnable block`);
      blocks.push({ at, script: body.join('\n'), exit, ...(until !== undefined && { until }) });
    }
    i = j;
  }
  return blocks;
}
