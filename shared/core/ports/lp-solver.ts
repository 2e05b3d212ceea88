/**
 * A linear / mixed-integer program solver (the adapter is HiGHS, shared/adapters/lp/highs.ts). Synchronous:
 * the optimizer calls it many times inside one plan and bounds each call with a time limit.
 */
export interface LinearProgram {
  /** Minimize Σ objective[j] · x[j]. */
  objective: number[];
  /** Rows: lo ≤ Σ coef · x[var] ≤ hi (use ±Infinity for one-sided rows). */
  rows: { terms: [variable: number, coef: number][]; lo: number; hi: number }[];
  /** Per variable; default [0, +∞). */
  upper?: number[];
  /** Integer variables (a MIP when any is true). */
  integer?: boolean[];
}

export interface LpResult {
  /** `optimal`; `limit` = a time limit was reached with a feasible solution; `infeasible`; `error`. */
  status: 'optimal' | 'limit' | 'infeasible' | 'error';
  objective: number;
  x: number[];
  /** Row duals (LPs only). */
  duals?: number[];
}

export interface LpSolver {
  solve(lp: LinearProgram, options: { timeLimitSeconds: number; relativeGap?: number }): LpResult;
}
