// A bare HTTPS GET against a sandbox apiserver, trusting the sandbox CA and sending the admin token.
import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Pki } from './pki.js';

export function httpsGet(url: string, pki: Pki): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { ca: readFileSync(pki.caCert), headers: { authorization: `Bearer ${pki.adminToken}` }, timeout: 5_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
