/** The controller on virtual time with scripted watches, a memory lease table and a recording invoker (tests only). */
import { runController, type ControllerResult } from '../../../shared/core/lifecycle';
import type {
  ClusterWatch,
  FunctionInvoker,
  InvokedFunction,
  WarmedFunction,
  WatchClosed,
  WatchedKind,
  WatchEvent,
  WatchHandle,
} from '../../../shared/core/ports';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store/memory';
import { VirtualClock, settle } from '../../../shared/sim/clock';
import { FakeCluster, RecordingLogger, RecordingWorkflows, pod } from '../../fakes/lifecycle';

export const T0 = Date.UTC(2026, 0, 1);

/**
 * Watches driven by the test: `emit` delivers an event to the open stream of its kind. A stream opened without a
 * resourceVersion delivers `initial` (the objects that exist then, as ADDED) and SYNCED, as the adapter does.
 */
class ScriptedWatch implements ClusterWatch {
  readonly opened: { kind: WatchedKind; resourceVersion?: string }[] = [];
  /** What a stream opened from the current state lists first, per kind. */
  readonly initial = new Map<WatchedKind, WatchEvent[]>();
  /** The resourceVersion a listing ends at (undefined: the listing is cut off before it ends, no SYNCED). */
  listedAt: string | undefined = '1';
  /** Kinds whose watch() never answers (a hung API server), or answers only after `connectMs`. */
  readonly hung = new Set<WatchedKind>();
  private readonly streams = new Map<WatchedKind, { onEvent: (e: WatchEvent) => void; onClosed: (w: WatchClosed) => void }>();

  async watch(
    kind: WatchedKind,
    resourceVersion: string | undefined,
    onEvent: (e: WatchEvent) => void,
    onClosed: (w: WatchClosed) => void,
  ): Promise<WatchHandle> {
    this.opened.push({ kind, ...(resourceVersion ? { resourceVersion } : {}) });
    if (this.hung.has(kind)) return new Promise<never>(() => undefined);
    this.streams.set(kind, { onEvent, onClosed });
    if (resourceVersion === undefined) {
      for (const e of this.initial.get(kind) ?? []) onEvent(e);
      if (this.listedAt !== undefined) onEvent({ type: 'SYNCED', kind, resourceVersion: this.listedAt });
    }
    return { stop: () => this.streams.delete(kind) };
  }

  emit(kind: WatchedKind, e: WatchEvent): void {
    this.streams.get(kind)?.onEvent(e);
  }

  close(kind: WatchedKind, why: WatchClosed): void {
    const s = this.streams.get(kind);
    this.streams.delete(kind);
    s?.onClosed(why);
  }

  isOpen(kind: WatchedKind): boolean {
    return this.streams.has(kind);
  }
}

class RecordingInvoker implements FunctionInvoker {
  readonly calls: { fn: InvokedFunction; at: number; payload: unknown }[] = [];
  /** Pods the provisioner's snapshot reads (its result's `clusterPods`): a small cluster unless a test says otherwise. */
  clusterPods = 10;
  constructor(private readonly clock: VirtualClock) {}
  async invoke(fn: InvokedFunction, payload: unknown): Promise<unknown> {
    this.calls.push({ fn, at: (this.clock.now() - T0) / 1000, payload });
    return fn === 'provisioner' ? { clusterPods: this.clusterPods } : {};
  }
  readonly warmed: { fn: WarmedFunction; at: number }[] = [];
  async warm(fn: WarmedFunction): Promise<void> {
    this.warmed.push({ fn, at: (this.clock.now() - T0) / 1000 });
  }
}

export function world() {
  const clock = new VirtualClock(T0);
  const store = new MemoryStateStore(clock);
  const watch = new ScriptedWatch();
  const invoker = new RecordingInvoker(clock);
  const log = new RecordingLogger();
  const cluster = new FakeCluster();
  const workflows = new RecordingWorkflows();
  return { clock, store, watch, invoker, log, cluster, workflows };
}

export type World = ReturnType<typeof world>;

/** Runs the controller on virtual time; `script` events fire at the given seconds. */
export async function run(w: World, budgetSeconds: number, script: [number, () => void][] = [], holder = 'me'): Promise<ControllerResult> {
  for (const [at, fire] of script) w.clock.at(T0 + at * 1000, fire);
  const done = w.clock.track('controller', () => runController(w, { holder, budgetMs: budgetSeconds * 1000 }));
  let result: ControllerResult | undefined;
  void done.then((r) => {
    result = r;
  });
  for (;;) {
    await settle(w.clock);
    if (result || !w.clock.advance(T0 + (budgetSeconds + 120) * 1000)) break;
  }
  await settle(w.clock);
  return result ?? (await done);
}

export const pending = (name: string) => pod(name, { phase: 'Pending', unschedulable: true, nodeName: undefined });
export const added = (p: ReturnType<typeof pod>, resourceVersion?: string): WatchEvent => ({
  type: 'ADDED',
  object: { kind: 'pods', name: p.name, pod: p },
  ...(resourceVersion ? { resourceVersion } : {}),
});
export const provisionerCalls = (w: World) => w.invoker.calls.filter((c) => c.fn === 'provisioner');
