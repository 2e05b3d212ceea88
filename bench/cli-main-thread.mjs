// Preloaded by bench/cli.ts into each `nodewright` child (`node --import`): at exit it reports, on stderr, the
// main thread's CPU time and the time it spent runnable but waiting for a core (Linux /proc schedstat, ns). On a
// 2-vCPU machine the second figure is V8's background threads and the neighbours taking the cores.
import { readFileSync } from 'node:fs';

process.on('exit', () => {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    process.stderr.write(`\nnodewright-bench-main-thread ${run / 1e6} ${wait / 1e6}\n`);
  } catch {
    // Not Linux: no figure.
  }
});
