/**
 * Instructions a whole `plan` run executes — the CLI bench's work without this machine's noise. Not part of
 * `npm test`; needs valgrind (Debian's `valgrind` package).
 *
 *   npm run build && node --import tsx bench/instructions.ts
 *
 * Runs `node --predictable bin/nodewright.mjs plan …` (Karpenter's benchmark shape, 1 pod and 5,000 pods) under
 * `valgrind --tool=callgrind`. `--predictable` makes V8 single-threaded and deterministic (compiling and garbage
 * collection run on the one thread and are counted), so repeats agree to the last digit, where wall times on a
 * shared 2-vCPU machine drift by ±20 %. The bin applies its V8 tuning as a user's run does. A change that cuts the
 * 5k − 1 difference cuts work; whether that work was on the main thread is bench/cli.ts's question.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { karpenterShapeArgs } from './cli';

const BIN = fileURLToPath(new URL('../bin/nodewright.mjs', import.meta.url));

function instructions(args: string[]): number {
  const r = spawnSync('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, '--predictable', BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`valgrind … nodewright ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
  const m = /Collected\s*:\s*([\d,]+)/.exec(r.stderr);
  if (!m) throw new Error(`no instruction count in valgrind's output: ${r.stderr.slice(-500)}`);
  return Number(m[1].replaceAll(',', ''));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (spawnSync('valgrind', ['--version']).error) {
    console.log('valgrind is not installed (apt-get install valgrind); nothing measured');
  } else {
    const dir = mkdtempSync(join(os.tmpdir(), 'nodewright-bench-instructions-'));
    try {
      const one = instructions(karpenterShapeArgs(dir, 1));
      const five = instructions(karpenterShapeArgs(dir, 5000));
      const g = (n: number) => `${(n / 1e9).toFixed(3)} G`;
      console.log(`node ${process.version}`);
      console.table([
        { what: 'plan, 1 pod (Karpenter shape)', instructions: g(one) },
        { what: 'plan, 5,000 pods', instructions: g(five) },
        { what: '5,000 − 1', instructions: g(five - one) },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
