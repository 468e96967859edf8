// An HTTP proxy in front of an SQS emulator that counts the requests passing through it by action, as SQS
// bills them: the action is read from the request (X-Amz-Target for the JSON protocol, Action= for the query
// protocol), never from the client. Each component of a bench gets its own proxy, so the counts say who asked.
// A ReceiveMessage's reply is read too: how many messages it returned (an empty receive is billed as well).
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ActionCount = { requests: number; messages: number; emptyReceives: number };

export type CountingProxy = {
  readonly endpoint: string;
  /** Action name → counts; `messages` is the entries of a batch request, or the messages a receive returned. */
  readonly counts: Map<string, ActionCount>;
  stop(): Promise<void>;
};

/** The action a request names: AmazonSQS.<Action> (JSON protocol) or Action=<Action> (query protocol). */
export function sqsAction(target: string | undefined, url: string, body: string): string {
  if (target !== undefined && target !== '') return target.split('.').pop() ?? target;
  const query = new URL(url, 'http://proxy').searchParams.get('Action');
  return query ?? new URLSearchParams(body).get('Action') ?? 'Unknown';
}

function entriesOf(body: string): number {
  try {
    const parsed = JSON.parse(body) as { Entries?: unknown[] };
    return Array.isArray(parsed.Entries) ? parsed.Entries.length : 1;
  } catch {
    return new Set([...body.matchAll(/Entries\.member\.(\d+)\.|Entry\.(\d+)\./g)].map((m) => m[1] ?? m[2])).size || 1;
  }
}

function messagesReturned(body: string): number {
  try {
    const parsed = JSON.parse(body) as { Messages?: unknown[] };
    return parsed.Messages?.length ?? 0;
  } catch {
    return (body.match(/<Message>/g) ?? []).length;
  }
}

const readAll = (stream: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });

/** Starts a counting proxy on a free loopback port that forwards every request to `target` (http://host:port). */
export async function startSqsCountingProxy(target: string): Promise<CountingProxy> {
  const upstream = new URL(target);
  const counts = new Map<string, ActionCount>();
  const count = (action: string): ActionCount => {
    let c = counts.get(action);
    if (!c) counts.set(action, (c = { requests: 0, messages: 0, emptyReceives: 0 }));
    return c;
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const text = body.toString('utf8');
      const action = sqsAction(req.headers['x-amz-target'] as string | undefined, req.url ?? '/', text);
      const c = count(action);
      c.requests++;
      if (action.endsWith('Batch')) c.messages += entriesOf(text);
      const reply = await new Promise<IncomingMessage>((resolve, reject) => {
        const out = request(
          {
            host: upstream.hostname,
            port: upstream.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: upstream.host },
          },
          resolve,
        );
        out.on('error', reject);
        out.end(body);
      });
      const replyBody = await readAll(reply);
      if (action === 'ReceiveMessage') {
        const n = messagesReturned(replyBody.toString('utf8'));
        c.messages += n;
        if (n === 0) c.emptyReceives++;
      } else if (!action.endsWith('Batch')) c.messages++;
      res.writeHead(reply.statusCode ?? 502, reply.headers).end(replyBody);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`sqs counting proxy: ${err instanceof Error ? err.message : String(err)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
