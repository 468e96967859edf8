// Builds one esbuild bundle per Lambda function into dist/lambda/<function>/<entry>.js, beside a package.json
// that makes it an ES module; serverless.yml packages each directory alone (one zip per function, nothing else
// in it). `npm run package` runs this, then `osls package`.
//   npx tsx infra/lambda/build.ts            # all functions
// A .js file with "type": "module", not .mjs: `osls invoke local` loads a handler by require() of its path
// without an extension, which finds .js and .cjs only; Lambda loads both as ES modules.
// Bundles: ESM, platform node, target
// node24 (the functions' runtime), tree-shaken, minified with keepNames (error and class names survive: the
// runtime matches on err.name), no source maps (a 1 MB map per function for stack traces that keep names).
// CommonJS dependencies bundled into ESM call require() for Node built-ins: the banner gives them one.
// arm64-clean: nothing native is bundled; the build fails if a .node file would be.
// Lua: the Redis stores read their scripts from .lua files at module load (shared/lua/lua-loader.ts). A
// bundle holding that loader gets the files copied beside it, laid out as in the sources (shared/…/lua/…), and the
// loader's `import.meta.url` is made the URL it would have in that layout, so it reads them as it does unbundled.
import { build, type Metafile, type Plugin } from 'esbuild';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyLuaFiles, LUA_LOADER_MODULE } from '../build/lua-files.js';

/** serverless.yml's functions: each one's entry file and its bundle's name. */
export const LAMBDA_FUNCTIONS = {
  reconcile: { entry: 'functions/reconcile.ts', out: 'reconcile' },
  delay: { entry: 'functions/delay.ts', out: 'delay' },
  forwarder: { entry: 'functions/forwarder.ts', out: 'forwarder' },
  // JobSet admission behind a function URL: no queue, no Redis, no cluster (so no Lua files either).
  admission: { entry: 'functions/admission-lambda.ts', out: 'admission' },
} as const;

export type LambdaFunctionName = keyof typeof LAMBDA_FUNCTIONS;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LAMBDA_OUT_DIR = join(root, 'dist', 'lambda');

const BANNER = [
  "import { createRequire as __fleetqCreateRequire } from 'node:module';",
  'const require = __fleetqCreateRequire(import.meta.url);',
].join('\n');

/** The loader's `import.meta.url`, in a bundle: where the loader would be under the bundle's directory. */
const luaLoaderUrl: Plugin = {
  name: 'lua-loader-url',
  setup(b) {
    const loader = join(root, LUA_LOADER_MODULE);
    b.onLoad({ filter: /[\\/]lua-loader\.ts$/ }, async (args) => {
      if (args.path !== loader) return undefined;
      const source = await readFile(loader, 'utf8');
      const uses = source.split('import.meta.url').length - 1;
      if (uses !== 1) throw new Error(`${LUA_LOADER_MODULE}: expected one import.meta.url, found ${uses}`);
      const where = `new URL('./${LUA_LOADER_MODULE.replace(/\.ts$/, '.js')}', import.meta.url).href`;
      return { contents: source.replace('import.meta.url', where), loader: 'ts' };
    });
  },
};

export async function buildFunction(name: LambdaFunctionName): Promise<{ file: string; bytes: number; lua: number }> {
  const { entry, out } = LAMBDA_FUNCTIONS[name];
  const outdir = join(LAMBDA_OUT_DIR, name);
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const file = join(outdir, `${out}.js`);
  await writeFile(join(outdir, 'package.json'), JSON.stringify({ type: 'module' }) + '\n');
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: file,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    treeShaking: true,
    minify: true,
    keepNames: true,
    legalComments: 'none',
    banner: { js: BANNER },
    // The AWS SDK's optional CRT signer and ws' optional native speed-ups are never installed: leave them out.
    external: ['aws-crt', '@aws-sdk/signature-v4-crt', 'bufferutil', 'utf-8-validate'],
    metafile: true,
    logLevel: 'warning',
    plugins: [luaLoaderUrl],
  });
  assertNoNative(name, result.metafile);
  const lua = bundles(result.metafile, LUA_LOADER_MODULE) ? await copyLuaFiles(outdir, root) : [];
  return { file: relative(root, file), bytes: (await stat(file)).size, lua: lua.length };
}

/** Whether `module` (relative to the repository) ended up in the bundle (tree-shaking may drop an import). */
function bundles(metafile: Metafile, module: string): boolean {
  return Object.values(metafile.outputs).some((o) => (o.inputs[module]?.bytesInOutput ?? 0) > 0);
}

function assertNoNative(name: string, metafile: Metafile): void {
  const native = Object.keys(metafile.inputs).filter((p) => p.endsWith('.node'));
  if (native.length > 0) throw new Error(`${name}: native modules would be bundled: ${native.join(', ')}`);
}

async function main(): Promise<void> {
  const names = Object.keys(LAMBDA_FUNCTIONS) as LambdaFunctionName[];
  for (const name of names) {
    const { file, bytes, lua } = await buildFunction(name);
    process.stdout.write(`${name}: ${file} ${(bytes / 1024).toFixed(0)} KiB, ${lua} Lua files\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`lambda build: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
