/**
 * What the scheduler knows about where pods of a shape fit, kept as pods are placed and nodes written rather than
 * asked of every node for every pending pod, and carried from pass to pass while the nodes stay the same (node-cache.ts).
 * A shape is what the node-local checks read of a pod (requests, node selector, required node affinity, tolerations):
 * pods of one template share it. Per shape it keeps why each node cannot take such a pod (or that it can) and a heap
 * of the nodes that can by score; placing a pod, or a write to a node or its pods, changes one node, and only that
 * node is checked again. What the node itself rules out (readiness, cordon, taints, node affinity) is kept per stored Node
 * across passes: a stored object never changes in place.
 */
import type { Node, Pod } from '../../core/model/kube';
import { Requirements } from '../../core/scheduling/requirements';
import { untoleratedTaint } from '../../core/scheduling/selectors';
import type { NodeState } from './domains';

export function nodeAffinityOk(pod: Pod, node: Node): boolean {
  for (const [k, v] of Object.entries(pod.nodeSelector)) if (node.labels[k] !== v) return false;
  const terms = pod.affinity?.nodeAffinity?.required;
  if (!terms || terms.length === 0) return true;
  return terms.some((t) => Requirements.fromNodeSelector(t.matchExpressions).matchesLabels(node.labels));
}

/** Why the node itself rules the pod out (not what is bound there), or undefined. */
function nodeMisfit(pod: Pod, node: Node): string | undefined {
  if (!node.ready) return 'node(s) were not ready';
  if (node.unschedulable || node.deletionTimestamp !== undefined) return 'node(s) were unschedulable';
  const taint = untoleratedTaint(
    pod,
    node.taints.filter((t) => t.effect !== 'PreferNoSchedule'),
  );
  if (taint) return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ''}}`;
  if (!nodeAffinityOk(pod, node)) return "node(s) didn't match Pod's node affinity/selector";
  return undefined;
}

function fitsResources(pod: Pod, n: NodeState): string | undefined {
  if ((n.used.pods ?? 0) + 1 > (n.node.allocatable.pods ?? 110)) return 'Too many pods';
  for (const [r, q] of Object.entries(pod.requests)) {
    if (q <= 0 || r === 'pods') continue;
    if ((n.used[r] ?? 0) + q > (n.node.allocatable[r] ?? 0)) return `Insufficient ${r}`;
  }
  return undefined;
}

/** LeastAllocated: prefer the node with the most room left after placement. */
export function score(pod: Pod, n: NodeState): number {
  const cpu = (n.node.allocatable.cpu ?? 1) || 1;
  const mem = (n.node.allocatable.memory ?? 1) || 1;
  return ((cpu - (n.used.cpu ?? 0) - (pod.requests.cpu ?? 0)) / cpu + (mem - (n.used.memory ?? 0) - (pod.requests.memory ?? 0)) / mem) / 2;
}

/** The unschedulable message's list: each reason with its count, in the order the nodes (by name) first gave it. */
export const reasonsText = (reasons: Map<string, number>): string => [...reasons].map(([r, c]) => `${c} ${r}`).join(', ') || 'no nodes';

const shapes = new WeakMap<Pod, string>();
const shapeOf = (pod: Pod): string => {
  let s = shapes.get(pod);
  if (s === undefined) shapes.set(pod, (s = JSON.stringify([pod.requests, pod.nodeSelector, pod.affinity?.nodeAffinity?.required ?? null, pod.tolerations])));
  return s;
};

/** nodeMisfit per stored Node (its model) and pod shape; null for none. */
const nodeMisfits = new WeakMap<Node, Map<string, string | null>>();
function cachedNodeMisfit(pod: Pod, shape: string, node: Node): string | undefined {
  let byShape = nodeMisfits.get(node);
  if (!byShape) nodeMisfits.set(node, (byShape = new Map()));
  let why = byShape.get(shape);
  if (why === undefined) byShape.set(shape, (why = nodeMisfit(pod, node) ?? null));
  return why ?? undefined;
}

interface Entry {
  score: number;
  index: number;
  version: number;
}
/** The better candidate: the higher score, then the first node by name (as a scan in name order keeping the first best). */
const better = (a: Entry, b: Entry): boolean => a.score > b.score || (a.score === b.score && a.index < b.index);

class Heap {
  private readonly items: Entry[] = [];
  top(): Entry | undefined {
    return this.items[0];
  }
  push(e: Entry): void {
    const a = this.items;
    let i = a.push(e) - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!better(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    for (let i = 0; ;) {
      const [l, r] = [2 * i + 1, 2 * i + 2];
      let m = i;
      if (l < a.length && better(a[l], a[m])) m = l;
      if (r < a.length && better(a[r], a[m])) m = r;
      if (m === i) return;
      [a[i], a[m]] = [a[m], a[i]];
      i = m;
    }
  }
}

/** One shape: why each node (by index) cannot take it, and the nodes that can, best first (stale entries dropped when met). */
class ShapeFit {
  readonly why: (string | undefined)[];
  private readonly heap = new Heap();
  private cursor: number;
  private message?: string;

  constructor(
    private readonly pass: FitPass,
    private readonly pod: Pod,
    private readonly shape: string,
  ) {
    this.why = pass.sorted.map((n) => this.check(n));
    this.cursor = pass.changed.length;
  }

  /** Checks the nodes changed since this shape last looked. */
  refresh(): void {
    const changed = this.pass.changed;
    if (this.cursor === changed.length) return;
    for (; this.cursor < changed.length; this.cursor++) this.why[changed[this.cursor]] = this.check(this.pass.sorted[changed[this.cursor]]);
    this.message = undefined;
  }

  /** The highest-scoring node that can take the pod (the first by name on a tie): for a pod no other pod's placement constrains. */
  best(): NodeState | undefined {
    for (let top = this.heap.top(); top; top = this.heap.top()) {
      const n = this.pass.sorted[top.index];
      if (top.version === n.version) return n;
      this.heap.pop();
    }
    return undefined;
  }

  /** Why no node can take the pod, as the unschedulable message lists it. */
  reasons(): string {
    if (this.message === undefined) {
      const counts = new Map<string, number>();
      for (const why of this.why) if (why) counts.set(why, (counts.get(why) ?? 0) + 1);
      this.message = reasonsText(counts);
    }
    return this.message;
  }

  private check(n: NodeState): string | undefined {
    const why = cachedNodeMisfit(this.pod, this.shape, n.node) ?? fitsResources(this.pod, n);
    if (why === undefined) {
      const s = score(this.pod, n);
      if (!Number.isNaN(s)) this.heap.push({ score: s, index: n.index, version: n.version });
    }
    return why;
  }
}

export class FitPass {
  /** Indexes of the nodes placed on or read again, in order (each shape reads on from where it last looked). */
  readonly changed: number[] = [];
  private readonly shapes = new Map<string, ShapeFit>();

  /** `sorted`: the nodes by name, each with its index there. */
  constructor(readonly sorted: NodeState[]) {}

  /** The shape of the pod, up to date with every placement so far. */
  shapeOf(pod: Pod): ShapeFit {
    const key = shapeOf(pod);
    const fit = this.shapes.get(key);
    if (!fit) {
      const created = new ShapeFit(this, pod, key);
      this.shapes.set(key, created);
      return created;
    }
    fit.refresh();
    return fit;
  }

  /** A pod placed on the node, or the node read again: each shape checks it again when next asked. */
  nodeChanged(n: NodeState): void {
    n.version += 1;
    this.changed.push(n.index);
  }
}
