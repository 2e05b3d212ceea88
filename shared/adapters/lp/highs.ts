/**
 * The LpSolver port on HiGHS (`highs`, the WASM build): a model is written in CPLEX LP format and solved in a
 * fresh native instance per call. The WASM module is loaded on first need: once per process for the CLI, once per
 * Lambda container for a function (40 ms on the benchmark machine; docs/benchmarks.md). A function bundle carries highs.wasm at
 * node_modules/highs/build/ under its task root (serverless.yml packages it beside the functions that plan).
 */
import diagnostics from 'node:diagnostics_channel';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import highsLoader from 'highs';
import type { LinearProgram, LpResult, LpSolver } from '../../core/ports';
import { LP_MEMORY_CHANNEL } from './memory-channel';

const memoryChannel = diagnostics.channel(LP_MEMORY_CHANNEL);

type Highs = Awaited<ReturnType<typeof highsLoader>>;
let loading: Promise<HighsLpSolver> | undefined;

/**
 * What a loaded solver adds to its container's memory. The build exposes no accessor to its linear memory: the figure
 * is measured (Node 20, highs 1.15: RSS +23 MB at load, 20 MB of it linear memory that a 300-variable MIP did not grow).
 */
const LOADED_BYTES = 24 * 2 ** 20;

/** highs.wasm beside the loader (node_modules, as the CLI and tests run it), else where a function bundle carries it. */
function locateFile(file: string, dir: string): string {
  if (existsSync(dir + file)) return dir + file;
  return join(process.env.LAMBDA_TASK_ROOT ?? process.cwd(), 'node_modules', 'highs', 'build', file);
}

const num = (n: number) => (Number.isFinite(n) ? String(n) : n > 0 ? 'inf' : '-inf');

/** The model as CPLEX LP text (variables x0…, rows r0…). */
export function lpText(lp: LinearProgram): string {
  const term = (j: number, c: number) => `${c < 0 ? '-' : '+'} ${Math.abs(c)} x${j}`;
  const lines = ['Minimize', ` obj: ${lp.objective.map((c, j) => term(j, c)).join(' ') || '0 x0'}`, 'Subject To'];
  lp.rows.forEach((r, i) => {
    const lhs = r.terms.length ? r.terms.map(([j, c]) => term(j, c)).join(' ') : '0 x0';
    if (r.lo === r.hi) lines.push(` r${i}: ${lhs} = ${num(r.lo)}`);
    else {
      if (Number.isFinite(r.lo)) lines.push(` r${i}: ${lhs} >= ${num(r.lo)}`);
      if (Number.isFinite(r.hi)) lines.push(` r${i}u: ${lhs} <= ${num(r.hi)}`);
    }
  });
  lines.push('Bounds');
  lp.objective.forEach((_, j) => lines.push(` 0 <= x${j} <= ${num(lp.upper?.[j] ?? Infinity)}`));
  const ints = lp.objective.map((_, j) => j).filter((j) => lp.integer?.[j]);
  if (ints.length) lines.push('General', ` ${ints.map((j) => `x${j}`).join(' ')}`);
  lines.push('End');
  return lines.join('\n');
}

export class HighsLpSolver implements LpSolver {
  private constructor(private readonly highs: Highs) {}

  /** The process's solver (the CLI): loaded once. */
  static create(): Promise<HighsLpSolver> {
    loading ??= HighsLpSolver.load();
    return loading;
  }

  /** A solver of its own (a function's container: the simulator runs many in one process, each loads its own). */
  static async load(): Promise<HighsLpSolver> {
    const highs = await highsLoader({ locateFile } as never);
    if (memoryChannel.hasSubscribers) memoryChannel.publish({ bytes: LOADED_BYTES });
    return new HighsLpSolver(highs);
  }

  solve(lp: LinearProgram, options: { timeLimitSeconds: number; relativeGap?: number }): LpResult {
    const n = lp.objective.length;
    let s: ReturnType<Highs['solve']>;
    try {
      s = this.highs.solve(lpText(lp), {
        time_limit: Math.max(0.01, options.timeLimitSeconds),
        output_flag: false,
        log_to_console: false,
        ...(options.relativeGap !== undefined ? { mip_rel_gap: options.relativeGap } : {}),
      });
    } catch {
      return { status: 'error', objective: Infinity, x: new Array<number>(n).fill(0) };
    }
    const x = new Array<number>(n).fill(0);
    for (const [name, c] of Object.entries(s.Columns)) {
      const j = Number(name.slice(1));
      if ('Primal' in c) x[j] = c.Primal;
    }
    const feasible =
      s.Status === 'Optimal' || ((s.Status === 'Time limit reached' || s.Status === 'Iteration limit reached') && Number.isFinite(s.ObjectiveValue));
    if (!feasible) return { status: s.Status === 'Infeasible' ? 'infeasible' : 'error', objective: Infinity, x };
    // Row duals (LP): rows with both sides finite are written as two rows; the optimizer uses ≥ rows only.
    const duals: number[] = [];
    const byName = new Map<string, number>();
    for (const r of s.Rows) if ('Dual' in r && 'Name' in r) byName.set(r.Name, r.Dual);
    lp.rows.forEach((_, i) => duals.push((byName.get(`r${i}`) ?? 0) + (byName.get(`r${i}u`) ?? 0)));
    return { status: s.Status === 'Optimal' ? 'optimal' : 'limit', objective: s.ObjectiveValue, x, duals };
  }
}
