/**
 * How large V8's young generation may grow in a short CLI run (docs/benchmarks.md, "young generation").
 *
 * V8 doubles a process's semi-spaces (1 → 16 MiB each) as objects survive scavenges; each step touches fresh
 * pages, 32 MiB of them at full size. A page touched for the first time costs well under 1 µs on bare metal,
 * but about 12 µs in a Firecracker microVM (the machines this project is benchmarked on; AWS Lambda runs on
 * Firecracker too). There, a `plan` of a few thousand pods spends more on those pages than the fewer scavenges
 * save: 5k pods plan ≈ 50 ms faster with the growth held, though it then runs ≈ 110 M more instructions of
 * scavenging. On bare metal that trade is a loss, and on large inputs (20k pods and up) it is a loss everywhere,
 * since the run lasts long enough for the bigger young generation to pay off.
 *
 * So the growth is held only for `plan` / `explain` of manifests under SMALL_INPUT_BYTES, on a machine whose
 * fresh pages cost more than DEAR_PAGE_MICROS (probed at start: 64 pages, under 1 ms there). The flag changes
 * when V8 collects garbage, never what the program computes.
 */
import { statSync } from 'node:fs';

/** V8 versions (Node 20, 22) where the growth factor is read at run time and 1 holds the semi-spaces (measured). */
const HOLD_FLAG = { 11: '--semi-space-growth-factor=1', 12: '--semi-space-growth-factor=1' };

/** ≈ 10k pods as `kubectl get -o yaml` writes them; at 20k the held young generation already costs time. */
export const SMALL_INPUT_BYTES = 6 * 1024 * 1024;

/** Per fresh 4 KiB page; bare metal is well under 1 µs, a Firecracker guest about 12 µs. */
export const DEAR_PAGE_MICROS = 3;

/** The manifest files a `plan` / `explain` command line names (-f X, -fX, --file X, --file=X). */
export function manifestFiles(args) {
  if (args[0] !== 'plan' && args[0] !== 'explain') return [];
  const files = [];
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    if (a === '--') break;
    if ((a === '-f' || a === '--file') && i + 1 < args.length) files.push(args[++i]);
    else if (a.startsWith('--file=')) files.push(a.slice('--file='.length));
    else if (a.startsWith('-f') && a.length > 2 && !a.startsWith('--')) files.push(a.slice(2));
  }
  return files;
}

/** Their total size in bytes; undefined when there are none or one cannot be read (the command reports that). */
function manifestBytes(args) {
  // A running cluster (--kubeconfig / --context) may be of any size: its input is not known before it is read.
  if (args.some((a) => /^--(kubeconfig|context)(=|$)/.test(a))) return undefined;
  const files = manifestFiles(args);
  if (files.length === 0) return undefined;
  let total = 0;
  for (const f of files) {
    try {
      total += statSync(f).size;
    } catch {
      return undefined;
    }
  }
  return total;
}

/** What this machine charges for the first touch of a page, in µs (64 fresh pages, mapped apart from the heap). */
export function freshPageMicros(pages = 64) {
  const b = Buffer.allocUnsafeSlow(pages * 4096);
  const t = process.hrtime.bigint();
  for (let i = 0; i < b.length; i += 4096) b[i] = 1;
  return Number(process.hrtime.bigint() - t) / 1e3 / pages;
}

/** The V8 flag to set for this command line, or undefined (the probe runs only when the input is small). */
export function youngGenerationFlag(args, v8Major, probe = freshPageMicros) {
  const flag = HOLD_FLAG[v8Major];
  if (!flag) return undefined;
  const bytes = manifestBytes(args);
  if (bytes === undefined || bytes >= SMALL_INPUT_BYTES) return undefined;
  return probe() > DEAR_PAGE_MICROS ? flag : undefined;
}
