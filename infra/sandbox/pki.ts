// One CA, one apiserver serving certificate and one service-account key pair per sandbox root, made with
// openssl (Node's crypto cannot issue X.509 certificates). Every cluster of the sandbox shares them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

export type Pki = {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly saKey: string;
  readonly saPub: string;
  /** Static token of the sandbox admin (group system:masters). */
  readonly adminToken: string;
  readonly tokenFile: string;
};

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function ensurePki(root: string): Pki {
  const dir = join(root, 'pki');
  const pki: Pki = {
    dir,
    caCert: join(dir, 'ca.crt'),
    serverCert: join(dir, 'apiserver.crt'),
    serverKey: join(dir, 'apiserver.key'),
    saKey: join(dir, 'sa.key'),
    saPub: join(dir, 'sa.pub'),
    adminToken: '',
    tokenFile: join(dir, 'tokens.csv'),
  };
  const tokenPath = join(dir, 'admin.token');
  if (!existsSync(pki.serverCert) || !existsSync(pki.saPub) || !existsSync(tokenPath)) {
    mkdirSync(dir, { recursive: true });
    openssl(['genrsa', '-out', 'ca.key', '2048'], dir);
    openssl(
      ['req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=fleetq-sandbox-ca', '-days', '3650', '-out', 'ca.crt'],
      dir,
    );
    openssl(['genrsa', '-out', 'apiserver.key', '2048'], dir);
    openssl(['req', '-new', '-key', 'apiserver.key', '-subj', '/CN=kube-apiserver', '-out', 'apiserver.csr'], dir);
    const sans =
      'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc';
    writeFileSync(join(dir, 'san.ext'), `${sans}\nextendedKeyUsage=serverAuth\n`);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        'apiserver.csr',
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-days',
        '3650',
        '-extfile',
        'san.ext',
        '-out',
        'apiserver.crt',
      ],
      dir,
    );
    openssl(['genrsa', '-out', 'sa.key', '2048'], dir);
    openssl(['rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub'], dir);
    const token = randomBytes(24).toString('hex');
    writeFileSync(tokenPath, token, { mode: 0o600 });
    writeFileSync(pki.tokenFile, `${token},sandbox-admin,sandbox-admin,"system:masters"\n`, { mode: 0o600 });
  }
  const adminToken = readFileSync(tokenPath, 'utf8').trim();
  return { ...pki, adminToken };
}

/**
 * A serving certificate for 127.0.0.1 signed by the sandbox CA, written as `tls.crt` and `tls.key` in `dir` (the
 * names controller-runtime's webhook server reads from its cert dir): what an add-on's admission webhooks serve,
 * so the apiserver trusts them with the sandbox CA as `caBundle`. Returns the folder.
 */
export function issueServingCert(pki: Pki, dir: string, commonName: string): string {
  mkdirSync(dir, { recursive: true });
  if (existsSync(join(dir, 'tls.crt')) && existsSync(join(dir, 'tls.key'))) return dir;
  openssl(['genrsa', '-out', 'tls.key', '2048'], dir);
  openssl(['req', '-new', '-key', 'tls.key', '-subj', `/CN=${commonName}`, '-out', 'tls.csr'], dir);
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  // The CA serial goes to a file of this folder, not the shared one: clusters issue theirs at the same time.
  const caKey = join(pki.dir, 'ca.key');
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'tls.csr',
      '-CA',
      pki.caCert,
      '-CAkey',
      caKey,
      '-CAserial',
      'ca.srl',
      '-CAcreateserial',
      '-days',
      '3650',
      '-extfile',
      'san.ext',
      '-out',
      'tls.crt',
    ],
    dir,
  );
  return dir;
}
