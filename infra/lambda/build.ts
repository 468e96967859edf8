// Builds one esbuild bundle per Lambda function into dist/lambda/<function>/<entry>.js, beside a package.json
// that makes it an ES module; serverless.yml packages each directory alone (one zip per function, nothing else
// in it). `npm run package` runs this, then `osls package`.
//   npx tsx infra/lambda/build.ts            # all functions
// A .js file with "type": "module", not .mjs: `osls invoke local` loads a handler by require() of its path
// without an extension, which finds .js and .cjs only; Lambda loads both as ES modules.
// Bundles: ESM, platform node, target
// node22 (the functions' runtime), tree-shaken, minified with keepNames (error and class names survive: the
// runtime matches on err.name), no source maps (a 1 MB map per function for stack traces that keep names).
// CommonJS dependencies bundled into ESM call require() for Node built-ins: the banner gives them one.
// arm64-clean: nothing native is bundled; the build fails if a .node file would be.
import { build, type Metafile } from 'esbuild';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** serverless.yml's functions: each one's entry file and its bundle's name. */
export const LAMBDA_FUNCTIONS = {
  reconcile: { entry: 'functions/reconcile.ts', out: 'reconcile' },
  delay: { entry: 'functions/delay.ts', out: 'delay' },
  forwarder: { entry: 'functions/forwarder.ts', out: 'forwarder' },
} as const;

export type LambdaFunctionName = keyof typeof LAMBDA_FUNCTIONS;

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const LAMBDA_OUT_DIR = join(root, 'dist', 'lambda');

const BANNER = [
  "import { createRequire as __fleetqCreateRequire } from 'node:module';",
  'const require = __fleetqCreateRequire(import.meta.url);',
].join('\n');

export async function buildFunction(name: LambdaFunctionName): Promise<{ file: string; bytes: number }> {
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
    target: 'node22',
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
  });
  assertNoNative(name, result.metafile);
  return { file: relative(root, file), bytes: (await stat(file)).size };
}

function assertNoNative(name: string, metafile: Metafile): void {
  const native = Object.keys(metafile.inputs).filter((p) => p.endsWith('.node'));
  if (native.length > 0) throw new Error(`${name}: native modules would be bundled: ${native.join(', ')}`);
}

async function main(): Promise<void> {
  const names = Object.keys(LAMBDA_FUNCTIONS) as LambdaFunctionName[];
  for (const name of names) {
    const { file, bytes } = await buildFunction(name);
    process.stdout.write(`${name}: ${file} ${(bytes / 1024).toFixed(0)} KiB\n`);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    process.stderr.write(`lambda build: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
