/**
 * A throw-away CA and a 127.0.0.1/localhost certificate for the HTTPS fake API server (kubectl only sends
 * bearer tokens over TLS). Generated with `openssl` when present; otherwise the committed test-only pair in ./tls.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TlsMaterial {
  /** PEM of the CA that signed `cert` (what kubeconfig's certificate-authority-data carries, base64). */
  ca: string;
  cert: string;
  key: string;
  source: 'openssl' | 'committed-test-pair';
}

function committedDir(): string {
  try {
    return join(dirname(fileURLToPath(import.meta.url)), 'tls');
  } catch {
    return join('shared', 'sim', 'kube', 'tls');
  }
}

function generateWithOpenssl(): TlsMaterial {
  const dir = mkdtempSync(join(tmpdir(), 'nodewright-sim-tls-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    run(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '3650', '-subj', '/CN=nodewright-sim-ca']);
    run(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
    writeFileSync(
      join(dir, 'ext.cnf'),
      'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
    );
    run([
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
      '-days',
      '3650',
      '-extfile',
      'ext.cnf',
    ]);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return { ca: read('ca.crt'), cert: read('server.crt'), key: read('server.key'), source: 'openssl' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The committed localhost pair: for tests and local simulation only, never for anything real. */
export function committedTestTls(): TlsMaterial {
  const read = (f: string) => readFileSync(join(committedDir(), f), 'utf8');
  return { ca: read('ca.crt'), cert: read('server.crt'), key: read('server.key'), source: 'committed-test-pair' };
}

/** Fresh material from openssl when it runs, else the committed test-only pair. */
export function localhostTls(): TlsMaterial {
  try {
    return generateWithOpenssl();
  } catch {
    return committedTestTls();
  }
}
