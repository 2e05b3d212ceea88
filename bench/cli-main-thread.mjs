// Preloaded by bench/cli.ts into each `nodewright` child (`node --import`): at exit it reports, on stderr, the
// main thread's CPU time and the time it spent runnable but waiting for a core (Linux /proc schedstat, ns), and
// how many pages of fresh memory it touched (minor page faults, /proc stat). On a 2-vCPU machine the second
// figure is V8's background threads and the neighbours taking the cores; the third costs what the machine charges
// per fresh page (bench/cli.ts measures that too).
import { readFileSync } from 'node:fs';

process.on('exit', () => {
  try {
    const [run, wait] = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').map(Number);
    // Fields after the command name: state, ppid, pgrp, session, tty, tpgid, flags, minflt.
    const faults = Number(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ')[7]);
    process.stderr.write(`\nnodewright-bench-main-thread ${run / 1e6} ${wait / 1e6} ${faults}\n`);
  } catch {
    // Not Linux: no figure.
  }
});
