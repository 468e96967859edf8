// The documentation's relative links resolve: every `[text](target)` in README.md, docs/ and infra/k8s/README.md
// that is not a URL names a file or folder inside the repository, and a `#fragment` names a heading of the target
// (GitHub's anchor for it). Links in code blocks and code spans are not links and are not checked.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

const DOCS = [join(ROOT, 'README.md'), join(ROOT, 'infra/k8s/README.md'), ...markdownFiles(join(ROOT, 'docs'))];

/** The text outside fenced code blocks and code spans, line by line. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, '');
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not - or _), spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1] === undefined) continue;
    const base = anchorOf(heading[1]);
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

type Link = { readonly file: string; readonly line: number; readonly target: string };

function linksOf(file: string): Link[] {
  return proseLines(readFileSync(file, 'utf8')).flatMap((text, i) =>
    [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => ({ file, line: i + 1, target: m[1] ?? '' })),
  );
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined; // https:, mailto:
  const [path = '', fragment] = link.target.split('#', 2);
  const target = path === '' ? link.file : resolve(dirname(link.file), decodeURIComponent(path));
  const inside = relative(ROOT, target);
  if (inside.startsWith('..') || inside.startsWith(sep)) return 'points outside the repository';
  if (!existsSync(target)) return 'no such file';
  if (fragment !== undefined && target.endsWith('.md') && !anchorsOf(target).has(fragment))
    return `no heading #${fragment}`;
  return undefined;
}

describe('documentation links', () => {
  it('finds the documents', () => {
    expect(DOCS.length).toBeGreaterThan(3);
    expect(DOCS.flatMap(linksOf).length).toBeGreaterThan(20);
  });

  it('resolves every relative link and anchor inside the repository', () => {
    const broken = DOCS.flatMap(linksOf).flatMap((link) => {
      const why = brokenBecause(link);
      return why === undefined ? [] : [`${relative(ROOT, link.file)}:${link.line}: ${link.target}: ${why}`];
    });
    expect(broken).toEqual([]);
  });

  it.each([
    ['Who can use fleetq: hand-over', 'who-can-use-fleetq-hand-over'],
    ['Building `e2e.test`', 'building-e2etest'],
    ['The cache: the forwarder is the informer', 'the-cache-the-forwarder-is-the-informer'],
  ])('anchors %j as GitHub does', (heading, anchor) => expect(anchorOf(heading)).toBe(anchor));

  it('reports a missing file, a missing heading and a path outside the repository', () => {
    const file = join(ROOT, 'README.md');
    expect(brokenBecause({ file, line: 1, target: 'docs/no-such-file.md' })).toBe('no such file');
    expect(brokenBecause({ file, line: 1, target: 'docs/architecture.md#no-such-heading' })).toBe(
      'no heading #no-such-heading',
    );
    expect(brokenBecause({ file, line: 1, target: '../shared/DESIGN.md' })).toBe('points outside the repository');
    expect(brokenBecause({ file, line: 1, target: 'https://kubernetes.io/' })).toBeUndefined();
  });
});
