// The OCI image layout (image-spec v1.1, "Image Layout"): `oci-layout`, `index.json` and `blobs/sha256/<hex>`
// holding the manifest, the config and the layers. crane, skopeo, podman and containerd read it as it is
// (infra/image/README.md). The config and manifest are built here from plain data, as pure functions, so a test
// can check them without a build.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type LayerBlob } from './tar.js';

export const MEDIA_TYPE = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export type ImageConfigInput = {
  readonly user: string;
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly workingDir: string;
  readonly labels: Readonly<Record<string, string>>;
  /** RFC 3339; the same for every build of the same inputs. */
  readonly created: string;
  readonly diffIds: readonly string[];
  /** One line per layer: what it holds. */
  readonly history: readonly string[];
};

/** The image config (image-spec config.md) for linux/amd64. */
export function imageConfig(input: ImageConfigInput): Record<string, unknown> {
  return {
    created: input.created,
    architecture: 'amd64',
    os: 'linux',
    config: {
      User: input.user,
      Env: Object.entries(input.env).map(([k, v]) => `${k}=${v}`),
      Entrypoint: [...input.entrypoint],
      Cmd: [...input.cmd],
      WorkingDir: input.workingDir,
      Labels: { ...input.labels },
    },
    rootfs: { type: 'layers', diff_ids: [...input.diffIds] },
    history: input.history.map((line) => ({ created: input.created, created_by: line })),
  };
}

export type Descriptor = {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly annotations?: Readonly<Record<string, string>>;
};

export function manifest(config: Descriptor, layers: readonly Descriptor[], annotations: Record<string, string>) {
  return { schemaVersion: 2, mediaType: MEDIA_TYPE.manifest, config, layers, annotations };
}

/** JSON as stored in a blob: its bytes are what its digest names. */
const jsonBytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), 'utf8');

export type WrittenImage = { readonly manifestDigest: string; readonly configDigest: string; readonly bytes: number };

/**
 * Writes the layout into `dir` (emptied first): the layers, the config, the manifest, and index.json naming the
 * manifest with `org.opencontainers.image.ref.name` = `tag` (what `skopeo copy oci:<dir>:<tag>` selects).
 */
export function writeLayout(
  dir: string,
  image: {
    readonly layers: readonly LayerBlob[];
    readonly config: Record<string, unknown>;
    readonly tag: string;
    readonly annotations: Record<string, string>;
  },
): WrittenImage {
  rmSync(dir, { recursive: true, force: true });
  const blobs = join(dir, 'blobs', 'sha256');
  mkdirSync(blobs, { recursive: true });
  const put = (digest: string, bytes: Buffer): void =>
    writeFileSync(join(blobs, digest.replace(/^sha256:/, '')), bytes);

  for (const layer of image.layers) put(layer.digest, layer.gzip);
  const configBytes = jsonBytes(image.config);
  const configDigest = sha256(configBytes);
  put(configDigest, configBytes);
  const manifestBytes = jsonBytes(
    manifest(
      { mediaType: MEDIA_TYPE.config, digest: configDigest, size: configBytes.length },
      image.layers.map((l) => ({ mediaType: MEDIA_TYPE.layer, digest: l.digest, size: l.gzip.length })),
      image.annotations,
    ),
  );
  const manifestDigest = sha256(manifestBytes);
  put(manifestDigest, manifestBytes);
  writeFileSync(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  const index = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPE.index,
    manifests: [
      {
        mediaType: MEDIA_TYPE.manifest,
        digest: manifestDigest,
        size: manifestBytes.length,
        platform: { architecture: 'amd64', os: 'linux' },
        annotations: { 'org.opencontainers.image.ref.name': image.tag },
      },
    ],
  };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index));
  const layerBytes = image.layers.reduce((n, l) => n + l.gzip.length, 0);
  return { manifestDigest, configDigest, bytes: layerBytes + configBytes.length + manifestBytes.length };
}
