/**
 * The requirement algebra (docs/karpenter-reference.md §2.4): one Requirement per label key, as a finite set ("In"), a
 * complement ("NotIn"/"Exists"), plus optional integer bounds (Gt/Lt) and minValues.
 */
import type { NodeSelectorRequirement, Operator } from '../model/kube';
import { NormalizedLabels, WellKnownLabels } from '../model/labels';

const EMPTY: ReadonlySet<string> = new Set();

export class Requirement {
  constructor(
    readonly key: string,
    /** true: `values` are excluded (NotIn / Exists); false: `values` are the allowed set (In / DoesNotExist). */
    readonly complement: boolean,
    readonly values: ReadonlySet<string>,
    readonly gte?: number,
    readonly lte?: number,
    readonly minValues?: number,
  ) {}

  static in(key: string, values: Iterable<string>, minValues?: number): Requirement {
    return new Requirement(key, false, new Set(values), undefined, undefined, minValues);
  }
  static exists(key: string): Requirement {
    return new Requirement(key, true, EMPTY);
  }
  static doesNotExist(key: string): Requirement {
    return new Requirement(key, false, EMPTY);
  }

  static from(r: NodeSelectorRequirement): Requirement {
    const key = NormalizedLabels[r.key] ?? r.key;
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        return new Requirement(key, false, new Set(values), undefined, undefined, r.minValues);
      case 'NotIn':
        return new Requirement(key, true, new Set(values), undefined, undefined, r.minValues);
      case 'Exists':
        return new Requirement(key, true, EMPTY, undefined, undefined, r.minValues);
      case 'DoesNotExist':
        return new Requirement(key, false, EMPTY);
      case 'Gt':
        return new Requirement(key, true, EMPTY, Number.parseInt(values[0], 10) + 1, undefined, r.minValues);
      case 'Gte':
        return new Requirement(key, true, EMPTY, Number.parseInt(values[0], 10), undefined, r.minValues);
      case 'Lt':
        return new Requirement(key, true, EMPTY, undefined, Number.parseInt(values[0], 10) - 1, r.minValues);
      case 'Lte':
        return new Requirement(key, true, EMPTY, undefined, Number.parseInt(values[0], 10), r.minValues);
      default:
        throw new Error(`unsupported operator ${String((r as { operator: string }).operator)}`);
    }
  }

  private withinBounds(value: string): boolean {
    if (this.gte === undefined && this.lte === undefined) return true;
    if (!/^-?\d+$/.test(value)) return false;
    const n = Number(value);
    return (this.gte === undefined || n >= this.gte) && (this.lte === undefined || n <= this.lte);
  }

  /** True when the label value satisfies this requirement; `undefined` = the label is absent. */
  has(value: string | undefined): boolean {
    if (value === undefined) return this.isNegative();
    if (!this.withinBounds(value)) return false;
    return this.complement ? !this.values.has(value) : this.values.has(value);
  }

  /** Allows a node without the label (NotIn / DoesNotExist). */
  allowsAbsent(): boolean {
    return this.isNegative();
  }

  /** NotIn or DoesNotExist. */
  isNegative(): boolean {
    const op = this.operator();
    return op === 'NotIn' || op === 'DoesNotExist';
  }

  operator(): Operator {
    if (this.gte !== undefined || this.lte !== undefined) return this.gte !== undefined ? 'Gt' : 'Lt';
    if (this.complement) return this.values.size === 0 ? 'Exists' : 'NotIn';
    return this.values.size === 0 ? 'DoesNotExist' : 'In';
  }

  /** Number of allowed values (Infinity for complements). */
  get size(): number {
    return this.complement ? Infinity : this.values.size;
  }

  intersect(other: Requirement): Requirement {
    const gte = max(this.gte, other.gte);
    const lte = min(this.lte, other.lte);
    const minValues = max(this.minValues, other.minValues);
    let complement: boolean;
    let values: Set<string>;
    if (!this.complement && !other.complement) {
      complement = false;
      values = new Set();
      const [small, big] = this.values.size <= other.values.size ? [this.values, other.values] : [other.values, this.values];
      for (const v of small) if (big.has(v)) values.add(v);
    } else if (!this.complement) {
      complement = false;
      values = new Set();
      for (const v of this.values) if (!other.values.has(v)) values.add(v);
    } else if (!other.complement) {
      complement = false;
      values = new Set();
      for (const v of other.values) if (!this.values.has(v)) values.add(v);
    } else {
      complement = true;
      values = new Set(this.values);
      for (const v of other.values) values.add(v);
    }
    if (gte !== undefined && lte !== undefined && gte > lte) return new Requirement(this.key, false, EMPTY, undefined, undefined, minValues);
    const r = new Requirement(this.key, complement, values, gte, lte, minValues);
    if (!complement && (gte !== undefined || lte !== undefined)) {
      const kept = [...values].filter((v) => r.withinBounds(v));
      return new Requirement(this.key, false, new Set(kept), undefined, undefined, minValues);
    }
    return r;
  }

  /** True when some value (or absence, for two negatives) satisfies both. */
  intersects(other: Requirement): boolean {
    if (this.isNegative() && other.isNegative()) return true;
    const i = this.intersect(other);
    if (i.complement) return true;
    return i.values.size > 0;
  }

  /** Any single value allowed (for In sets: the smallest, deterministically). */
  any(): string | undefined {
    if (this.complement) return undefined;
    let best: string | undefined;
    for (const v of this.values) if (best === undefined || v < best) best = v;
    return best;
  }

  toNodeSelector(): NodeSelectorRequirement {
    const op = this.operator();
    const base: NodeSelectorRequirement = { key: this.key, operator: op };
    if (op === 'Gt') base.values = [String(this.gte! - 1)];
    else if (op === 'Lt') base.values = [String(this.lte! + 1)];
    else if (op === 'In' || op === 'NotIn') base.values = [...this.values].sort();
    if (this.minValues !== undefined) base.minValues = this.minValues;
    return base;
  }
}

function max(a?: number, b?: number): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.max(a, b);
}
function min(a?: number, b?: number): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

/** A set of requirements keyed by label. Immutable by convention: operations return new instances. */
export class Requirements {
  readonly byKey: Map<string, Requirement>;
  constructor(reqs?: Iterable<Requirement> | Map<string, Requirement>) {
    if (reqs instanceof Map) {
      this.byKey = reqs;
      return;
    }
    this.byKey = new Map();
    if (reqs) for (const r of reqs) this.addInPlace(r);
  }

  static fromNodeSelector(reqs: NodeSelectorRequirement[] | undefined): Requirements {
    return new Requirements((reqs ?? []).map(Requirement.from));
  }

  static fromLabels(labels: Record<string, string>): Requirements {
    const out = new Requirements();
    for (const [k, v] of Object.entries(labels)) out.addInPlace(Requirement.in(NormalizedLabels[k] ?? k, [v]));
    return out;
  }

  get(key: string): Requirement | undefined {
    return this.byKey.get(key);
  }
  has(key: string): boolean {
    return this.byKey.has(key);
  }
  keys(): IterableIterator<string> {
    return this.byKey.keys();
  }
  values(): IterableIterator<Requirement> {
    return this.byKey.values();
  }

  /** Mutating add (intersects with an existing requirement on the same key). Only for construction. */
  addInPlace(r: Requirement): this {
    const cur = this.byKey.get(r.key);
    this.byKey.set(r.key, cur ? cur.intersect(r) : r);
    return this;
  }

  clone(): Requirements {
    // forEach, not new Map(map) or for…of: neither allocates per entry when the code runs unoptimized.
    const copy = new Map<string, Requirement>();
    this.byKey.forEach((r, k) => copy.set(k, r));
    return new Requirements(copy);
  }

  /** A new set with `other` intersected in. */
  intersect(other: Requirements): Requirements {
    const out = this.clone();
    other.byKey.forEach((r) => out.addInPlace(r));
    return out;
  }

  with(r: Requirement): Requirements {
    return this.clone().addInPlace(r);
  }

  /**
   * `this` (pool / claim / node side) is compatible with `pod` requirements (docs/karpenter-reference.md §2.4):
   * every pod key must exist here unless the pod uses NotIn/DoesNotExist or the key is well-known;
   * shared keys must intersect (two negatives always do). Returns the offending key, or undefined.
   */
  incompatibleKey(pod: Requirements, wellKnown: ReadonlySet<string> = WellKnownLabels): string | undefined {
    for (const [key, pr] of pod.byKey) {
      const mine = this.byKey.get(key);
      if (!mine) {
        if (pr.isNegative() || wellKnown.has(key)) continue;
        return key;
      }
      if (!mine.intersects(pr)) return key;
    }
    return undefined;
  }

  compatible(pod: Requirements, wellKnown?: ReadonlySet<string>): boolean {
    return this.incompatibleKey(pod, wellKnown) === undefined;
  }

  /** True when the concrete labels satisfy every requirement (a missing label fails unless negative). */
  matchesLabels(labels: Record<string, string>): boolean {
    for (const [key, r] of this.byKey) if (!r.has(labels[key])) return false;
    return true;
  }

  toNodeSelector(): NodeSelectorRequirement[] {
    return [...this.byKey.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((r) => r.toNodeSelector());
  }

  /** Single-valued In requirements as labels. */
  labels(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const r of this.byKey.values())
      if (!r.complement && r.values.size === 1 && r.gte === undefined && r.lte === undefined) out[r.key] = r.values.values().next().value as string;
    return out;
  }
}
