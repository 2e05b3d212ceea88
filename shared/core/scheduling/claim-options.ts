/**
 * A claim's instance-type options as flags over its template's options (cheapest first, an option's `rank` is
 * its index), with one view per resource of the template's options by effective allocatable ascending. The
 * claim's requests only grow, so the options they rule out sit at the low end of each view: a pointer per
 * resource walks past them once, instead of every add testing every option. The same views give the min and
 * max allocatable over the options left (what canAdd and the all-fit shortcut read).
 */
import type { Template, TypeOption } from './template';

/** Per resource dimension, the template's option indices by effective allocatable ascending (built once per template). */
function ascending(t: Template, d: number): Int32Array {
  const views = (t.ascending ??= []);
  let view = views[d];
  if (!view) {
    const eff = t.options.map((o) => o.eff[d]);
    view = Int32Array.from(t.options.keys()).sort((a, b) => eff[a] - eff[b] || a - b);
    views[d] = view;
  }
  return view;
}

/** Marks for counting each ruled-out option once, and the options marked (reused: never held across calls). */
let marks = new Uint8Array(0);
const touchedScratch: number[] = [];

export class ClaimOptions {
  readonly maxEff: Float64Array;
  readonly minEff: Float64Array;
  private readonly alive: Uint8Array;
  private count: number;
  /** Per dimension: every entry of the ascending view before `low` is gone; every entry after `high` is gone. */
  private readonly low: Int32Array;
  private readonly high: Int32Array;
  /** The options left as an array, built when first read after a change (most adds are never followed by a read). */
  private listed: TypeOption[] | undefined;

  /** `options` are the template's or some of them, cheapest first. */
  constructor(
    private readonly template: Template,
    options: TypeOption[],
    dims: number,
  ) {
    const n = template.options.length;
    this.alive = new Uint8Array(n);
    for (let i = 0; i < options.length; i++) this.alive[options[i].rank] = 1;
    this.count = options.length;
    this.listed = options;
    this.maxEff = new Float64Array(dims);
    this.minEff = new Float64Array(dims);
    this.low = new Int32Array(dims);
    this.high = new Int32Array(dims).fill(n - 1);
    this.bounds();
  }

  get size(): number {
    return this.count;
  }

  /** The options left, cheapest first. */
  get list(): TypeOption[] {
    if (this.listed) return this.listed;
    const opts = this.template.options;
    const list = new Array<TypeOption>(this.count);
    for (let i = 0, w = 0; w < this.count; i++) if (this.alive[i] === 1) list[w++] = opts[i];
    return (this.listed = list);
  }

  /** Whether the template's option `rank` is still one of the claim's. */
  has(rank: number): boolean {
    return this.alive[rank] === 1;
  }

  /**
   * The template's options, cheapest first, and which are left (`alive[i] === 1`): for a loop over them that keeps
   * its state in locals (a callback's captured numbers are boxed on every assignment).
   */
  get flags(): { readonly all: readonly TypeOption[]; readonly alive: Readonly<Uint8Array> } {
    return { all: this.template.options, alive: this.alive };
  }

  /** Some option left satisfies `pred` (without building the list). */
  some(pred: (o: TypeOption) => boolean): boolean {
    if (this.listed) return this.listed.some(pred);
    const opts = this.template.options;
    for (let i = 0; i < opts.length; i++) if (this.alive[i] === 1 && pred(opts[i])) return true;
    return false;
  }

  /** How many options stay once requests `req` (non-zero at `nz`) rule out those too small; changes nothing. */
  keptFor(req: Float64Array, nz: readonly number[]): number {
    const { alive, template } = this;
    const opts = template.options;
    if (marks.length < opts.length) marks = new Uint8Array(opts.length);
    const touched = touchedScratch;
    for (let j = 0; j < nz.length; j++) {
      const d = nz[j];
      const view = ascending(template, d);
      for (let k = this.low[d]; k < view.length; k++) {
        const i = view[k];
        if (alive[i] === 0) continue;
        if (opts[i].eff[d] >= req[d]) break;
        if (marks[i] === 0) {
          marks[i] = 1;
          touched.push(i);
        }
      }
    }
    const gone = touched.length;
    for (let j = 0; j < gone; j++) marks[touched[j]] = 0;
    touched.length = 0;
    return this.count - gone;
  }

  /** Removes the options at template indices `dropped`, then every option too small for requests `req`. */
  commit(req: Float64Array, nz: readonly number[], dropped: readonly number[] | undefined): void {
    const { alive, template } = this;
    const opts = template.options;
    const before = this.count;
    if (dropped) for (let j = 0; j < dropped.length; j++) this.kill(dropped[j]);
    for (let j = 0; j < nz.length; j++) {
      const d = nz[j];
      const view = ascending(template, d);
      let k = this.low[d];
      for (; k < view.length; k++) {
        const i = view[k];
        if (alive[i] === 0) continue;
        if (opts[i].eff[d] >= req[d]) break;
        this.kill(i);
      }
      this.low[d] = k;
    }
    if (this.count === before) return;
    this.listed = undefined;
    this.bounds();
  }

  private kill(i: number): void {
    if (this.alive[i] === 0) return;
    this.alive[i] = 0;
    this.count--;
  }

  /** Moves each dimension's pointers to the options left and reads the min and max allocatable off them. */
  private bounds(): void {
    const { alive, template } = this;
    const opts = template.options;
    for (let d = 0; d < this.low.length; d++) {
      const view = ascending(template, d);
      let lo = this.low[d];
      while (lo < view.length && alive[view[lo]] === 0) lo++;
      let hi = this.high[d];
      while (hi >= lo && alive[view[hi]] === 0) hi--;
      this.low[d] = lo;
      this.high[d] = hi;
      this.minEff[d] = lo < view.length ? opts[view[lo]].eff[d] : Infinity;
      this.maxEff[d] = hi >= lo ? opts[view[hi]].eff[d] : 0;
    }
  }
}
