/**
 * `node --import tsx bench/lambda.ts [--no-package]`: the deployed functions' bundles as Lambda loads them (issue
 * #12 item 5). Packages the service (`npm run package`, offline) unless told not to, then per function: the
 * unzipped bundle size and its INIT time: a fresh `node` process requiring the bundle from a directory without
 * node_modules (the bundles carry their own tree-shaken AWS SDK: serverless.yml, infra/bundle/plugins.cjs) —
 * median of 5. For reference, the time to load the whole SDK client packages the functions use, as the
 * `nodejs22.x` runtime's own copy would be loaded. Not part of `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const SDK_CLIENTS = [
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/client-ec2',
  '@aws-sdk/client-sfn',
  '@aws-sdk/client-iam',
  '@aws-sdk/client-pricing',
  '@aws-sdk/client-ssm',
  '@aws-sdk/client-eks',
];

/** Milliseconds to `require` the modules in a fresh process (median of `runs`). */
function loadMs(modules: string[], runs = 5, nodePath?: string): number {
  const script = `const t=process.hrtime.bigint(); for (const m of ${JSON.stringify(modules)}) require(m); console.log(Number(process.hrtime.bigint()-t)/1e6)`;
  const times = Array.from({ length: runs }, () =>
    Number(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env: { ...process.env, ...(nodePath ? { NODE_PATH: nodePath } : {}) } }).toString()),
  );
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

export function measure(pack = true) {
  if (pack) execFileSync('npm', ['run', '--silent', 'package'], { cwd: ROOT, stdio: 'ignore' });
  const out = mkdtempSync(join(os.tmpdir(), 'nodewright-bench-lambda-'));
  try {
    const rows = [];
    for (const zip of readdirSync(join(ROOT, '.serverless'))
      .filter((f) => f.endsWith('.zip'))
      .sort()) {
      const dir = join(out, zip.replace(/\.zip$/, ''));
      execFileSync('unzip', ['-q', '-o', join(ROOT, '.serverless', zip), '-d', dir]);
      const js = files(dir).find((f) => f.endsWith('.js'))!;
      rows.push({
        function: zip.replace(/\.zip$/, ''),
        'bundle MB': Math.round(statSync(js).size / 1e4) / 100,
        'init ms': Math.round(loadMs([js], 5)),
      });
    }
    return { rows, sdkMs: Math.round(loadMs(SDK_CLIENTS, 3, join(ROOT, 'node_modules'))) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'} × ${os.cpus().length}, node ${process.version}`);
  const { rows, sdkMs } = measure(!process.argv.includes('--no-package'));
  console.table(rows);
  const loads = rows.map((r) => r['init ms']).sort((a, b) => a - b);
  console.log(
    `init (the self-contained bundle): median ${loads[Math.floor(loads.length / 2)]} ms, worst ${loads[loads.length - 1]} ms; largest bundle ${Math.max(...rows.map((r) => r['bundle MB']))} MB`,
  );
  console.log(`for reference, the ${SDK_CLIENTS.length} whole AWS SDK v3 client packages the functions use, loaded from node_modules: ${sdkMs} ms`);
}
