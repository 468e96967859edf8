// Certificates for tests that speak TLS to a server of their own (redis-server, a node https server), made with
// openssl in `dir`: a CA, a server certificate for 127.0.0.1 and localhost, and optionally a client certificate,
// all signed by the CA and valid for a day. Files only: nothing here trusts them beyond the test that asks.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type TestPki = {
  readonly caFile: string;
  readonly serverCertFile: string;
  readonly serverKeyFile: string;
  /** Present when a client certificate was asked for. */
  readonly clientCertFile?: string;
  readonly clientKeyFile?: string;
};

/** Makes the CA (`/CN=<caName>`), the server certificate and, with `clientCn`, a client certificate in `dir`. */
export function makeTestPki(dir: string, o: { caName: string; clientCn?: string }): TestPki {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', `/CN=${o.caName}`]);
  writeFileSync(join(dir, 'srv.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  writeFileSync(join(dir, 'cli.ext'), 'extendedKeyUsage=clientAuth\n');
  const issue = (name: string, cn: string) => {
    run(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
    run([
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.crt`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
    ]);
  };
  issue('srv', '127.0.0.1');
  const pki = {
    caFile: join(dir, 'ca.crt'),
    serverCertFile: join(dir, 'srv.crt'),
    serverKeyFile: join(dir, 'srv.key'),
  };
  if (o.clientCn === undefined) return pki;
  issue('cli', o.clientCn);
  return { ...pki, clientCertFile: join(dir, 'cli.crt'), clientKeyFile: join(dir, 'cli.key') };
}
