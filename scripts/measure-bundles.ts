/**
 * `node --import tsx scripts/measure-bundles.ts`: bundles every Lambda handler exactly as serverless.yml's
 * esbuild settings do (cjs, minified, node22, module-first, AWS SDK external — the nodejs22.x runtime ships
 * it) and measures size, gzip size and cold module init (median of 5 fresh `node` processes requiring the
 * bundle, AWS SDK loaded from node_modules as the runtime would). Prints a Markdown table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = new URL('..', import.meta.url).pathname;
const files = readdirSync(join(root, 'functions'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(root, 'functions', f))
  .filter((f) => /export const handler\b/.test(readFileSync(f, 'utf8')));
const out = mkdtempSync(join(root, 'tmp-bundles-'));
const rows: string[] = [];
for (const file of files.sort()) {
  const outfile = join(out, `${relative(join(root, 'functions'), file).replace(/[/\\]/g, '__').replace(/\.ts$/, '')}.cjs`);
  await build({ entryPoints: [file], outfile, bundle: true, minify: true, keepNames: true, platform: 'node', target: 'node22', format: 'cjs', mainFields: ['module', 'main'], external: ['@aws-sdk/*'], logLevel: 'error' });
  const size = statSync(outfile).size;
  const gz = gzipSync(readFileSync(outfile)).length;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const ms = execFileSync(process.execPath, ['-e', `const t=process.hrtime.bigint();require(${JSON.stringify(outfile)});console.log(Number(process.hrtime.bigint()-t)/1e6)`], { cwd: root, env: { ...process.env, AWS_REGION: 'eu-west-1' } }).toString().trim();
    times.push(Number(ms));
  }
  times.sort((a, b) => a - b);
  rows.push(`| ${relative(root, file)} | ${(size / 1024).toFixed(0)} KiB | ${(gz / 1024).toFixed(0)} KiB | ${times[2].toFixed(0)} ms |`);
}
console.log('| handler | bundle | gzip | cold module init (median of 5) |\n|---|---|---|---|');
console.log(rows.join('\n'));
execFileSync('rm', ['-rf', out]);
