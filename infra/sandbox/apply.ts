// Server-side apply of an object exactly as written: the typed client (KubernetesObjectApi) re-serializes a plain
// object through its generated models, which read TypeScript property names and so drop every field whose JSON
// name differs (a CRD schema's `x-kubernetes-list-type`, `x-kubernetes-validations`, `$ref`...). A CRD applied that
// way loses its list types and the apiserver then refuses its transition rules; this sends the JSON unchanged.
import { request, type RequestOptions } from 'node:https';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';

/** PATCH (apply) `object` at `path` (the object's own URL path) with field manager `fieldManager`, forced. */
export async function serverSideApply(
  kc: KubeConfig,
  path: string,
  object: KubernetesObject,
  fieldManager: string,
): Promise<void> {
  const server = kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig names no current cluster');
  const url = new URL(`${path}?fieldManager=${encodeURIComponent(fieldManager)}&force=true`, server);
  const body = JSON.stringify(object);
  const opts: RequestOptions = {
    method: 'PATCH',
    headers: { 'content-type': 'application/apply-patch+yaml', 'content-length': Buffer.byteLength(body) },
    timeout: 60_000,
  };
  await kc.applyToHTTPSOptions(opts);
  await new Promise<void>((resolve, reject) => {
    const req = request(url, opts, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`apply ${object.kind} ${object.metadata?.name}: HTTP ${status}: ${text}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`apply ${object.kind} ${object.metadata?.name}: timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}
