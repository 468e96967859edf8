// The admission function as a long-running HTTPS server: POST an AdmissionReview to the mutating or validating
// path (upstream's paths); GET /healthz answers ok. Bodies over the limit are cut off unread with 413.
// JobSet's webhooks are always served; LeaderWorkerSet's four (its own two and the pod webhooks, on lws's paths)
// only with `serveLeaderWorkerSet`, since a cluster that registers the pod webhook sends it every pod it creates.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { ReviewOptions, Summary } from './admission-review.js';
import { answerAdmissionReview, DEFAULT_MAX_BODY_BYTES, webhookForPath } from './admission-review.js';
import { answerLwsAdmissionReview, lwsWebhookForPath } from './lws-admission-review.js';

export type AdmissionLog = (message: string, fields: Record<string, unknown>) => void;

export type ListenerOptions = ReviewOptions & {
  log?: AdmissionLog;
  /** Also serve LeaderWorkerSet's webhooks (mutate and validate LeaderWorkerSets, mutate and validate pods). */
  serveLeaderWorkerSet?: boolean;
};

export type AdmissionServerOptions = ListenerOptions & {
  port: number;
  host?: string;
  /** PEM certificate (chain) and key the API server will verify. */
  cert: string | Buffer;
  key: string | Buffer;
};

function send(res: ServerResponse, statusCode: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The request listener: usable on any node:http(s) server. */
export function admissionListener(options: ListenerOptions = {}) {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const log = options.log ?? (() => {});
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    if (req.method === 'GET' && (url === '/healthz' || url === '/readyz')) {
      send(res, 200, { status: 'ok' });
      return;
    }
    const jobSetWebhook = webhookForPath(url);
    const lwsWebhook = options.serveLeaderWorkerSet === true ? lwsWebhookForPath(url) : undefined;
    const webhook = jobSetWebhook ?? lwsWebhook;
    if (webhook === undefined) {
      send(res, 404, { message: `no webhook at ${url}` });
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, { message: 'use POST' });
      return;
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (contentType !== 'application/json') {
      send(res, 400, { message: `content type ${JSON.stringify(contentType)} is not application/json` });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        send(res, 413, { message: `request body exceeds ${limit} bytes` });
        log('Admission request refused', { webhook, outcome: 'too-large', bytes: size });
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {});
    req.on('end', () => {
      if (over) return;
      const started = performance.now();
      const body = Buffer.concat(chunks);
      const answer =
        jobSetWebhook !== undefined
          ? answerAdmissionReview(jobSetWebhook, body, options)
          : answerLwsAdmissionReview(lwsWebhook!, body, options);
      send(res, answer.statusCode, answer.body);
      const fields: Record<string, unknown> & Summary = {
        webhook,
        ...answer.summary,
        status: answer.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      };
      log('Admission request answered', fields);
    });
  };
}

export type RunningAdmissionServer = { server: Server; port: number; close: () => Promise<void> };

export async function startAdmissionServer(options: AdmissionServerOptions): Promise<RunningAdmissionServer> {
  const server = createServer({ cert: options.cert, key: options.key }, admissionListener(options));
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  // The apiserver's webhook client keeps idle connections for 90 s; Node closes them after 5 s by default, so a
  // review sent on a connection Node is closing fails with "connection reset by peer", and with failurePolicy Fail
  // the object is refused. Idle connections are kept past the client's own timeout instead.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
