/**
 * Unhealthy nodes and EC2 reboots, on the kube side (docs/simulator.md, "Node health").
 *
 * - A scenario's `unhealthy` event breaks a node condition until something heals it: a node monitoring agent condition
 *   goes False with the agent's reason; `Ready` means the kubelet stops posting, and after the node lifecycle
 *   controller's grace (40 s) Ready and the kubelet's other conditions go Unknown with the unreachable taints (the path
 *   an instance shutting down takes). Nothing else writes these conditions meanwhile.
 * - A reboot (RebootInstances, aws/ec2-reboot.ts): 2 s after the call the node shuts down — a live kubelet posts Ready
 *   False (KubeletNotReady, "node is shutting down") with the not-ready taints and stops posting, and the node's running
 *   pods stop (not Ready); if the reboot outlasts the grace, Ready goes Unknown as above. When the reboot time has
 *   passed, the node boots: a new boot ID, the kubelet posts Ready True (unless its failure is `fixedBy: replace`: then
 *   it stops posting again), the pods run again (each container restarted), conditions broken with `fixedBy: reboot`
 *   are True again and those with `fixedBy: replace` False again, their lastTransitionTime the boot's.
 * - A stop (StopInstances, aws/ec2-stop-start.ts) shuts the node down as a reboot does (Ready False at 2 s, Unknown with
 *   the unreachable taints 40 s after that last post), and nothing boots it. A start boots it when the instance has run
 *   for its boot time, as a reboot's boot does; a Node deleted meanwhile (or never registered) registers again.
 */
import type { VirtualClock } from '../clock';
import { hashHex } from '../hash';
import type { Ec2World, SimInstance } from '../aws/ec2-world';
import { onReboot, type Reboot } from '../aws/ec2-reboot';
import { onPower, type PowerChange } from '../aws/ec2-stop-start';
import type { KubeStore } from '../kube/store';
import { kubeTypes } from './kube-objects';
import { bootId } from './node-content';
import { nodeObjectFor } from './kubelet';
import { healthyCondition, KUBELET_CONDITIONS, monitorFailure, SHUTTING_DOWN, type FixedBy, type HealthCondition } from './node-health-content';
import {
  markNodeUnreachable,
  NODE_MONITOR_GRACE_SECONDS,
  nodeCondition,
  restartPodsOn,
  setBootId,
  setNodeConditions,
  setReadinessTaints,
  stopPodsOn,
} from './node-status';

/** Seconds from the RebootInstances (or StopInstances) call to the node's shutdown. */
const SHUTDOWN_AFTER_SECONDS = 2;

const AGENT = { manager: 'eks-node-monitoring-agent' };
const KUBELET = { manager: 'kubelet' };

/** What is wrong with one node, and what its kubelet is doing. */
interface NodeFaults {
  /** The broken conditions and what heals each. */
  broken: Map<HealthCondition, FixedBy>;
  /** False while the kubelet does not post (stopped, or the node is down). */
  posting: boolean;
  /** Counts the kubelet's stops and starts: a grace check for an earlier stop does nothing. */
  generation: number;
  /** The boot of a reboot in progress (cancel), the pods its shutdown stopped and when. */
  boot?: () => void;
  stoppedPods: Set<string>;
  shutdownIso?: string;
}

export interface UnhealthySpec {
  node: string;
  condition: HealthCondition;
  count: number;
  fixedBy: FixedBy;
}

export class NodeHealth {
  /** Node conditions broken by `unhealthy` events (one per node and event). */
  injected = 0;
  private readonly nodes = new Map<string, NodeFaults>();

  constructor(
    private readonly clock: VirtualClock,
    private readonly ec2: Ec2World,
    private readonly store: KubeStore,
  ) {}

  /** Listens to the world's reboots, stops and starts; returns the stop function. */
  start(): () => void {
    const stopReboots = onReboot(this.ec2, (r) => this.reboot(r));
    const stopPower = onPower(this.ec2, (c) => this.power(c));
    return () => {
      stopReboots();
      stopPower();
    };
  }

  /**
   * A scenario's `unhealthy` event: the named node (or instance id), or with `any` up to `count` Ready, not deleting
   * nodes of a NodePool not broken this way yet, drawn from the seed. Returns the nodes broken.
   */
  unhealthy(spec: UnhealthySpec, seed: number): string[] {
    const targets = spec.node === 'any' ? this.draw(spec, seed) : this.named(spec.node);
    for (const name of targets) this.inject(name, spec.condition, spec.fixedBy);
    return targets;
  }

  /** Breaks one condition of the node until what heals it happens. */
  inject(name: string, condition: HealthCondition, fixedBy: FixedBy): void {
    const node = this.store.peek(kubeTypes(this.store).node, undefined, name);
    if (!node) return;
    const state = this.state(name);
    state.broken.set(condition, fixedBy);
    this.injected++;
    if (condition === 'Ready') this.kubeletStops(name, state);
    else setNodeConditions(this.store, name, [monitorFailure(condition, this.instanceOf(name)?.id ?? name)], AGENT);
  }

  private named(ref: string): string[] {
    const type = kubeTypes(this.store).node;
    if (this.store.peek(type, undefined, ref)) return [ref];
    const byId = this.ec2.instances.get(ref);
    return byId && this.store.peek(type, undefined, byId.privateDnsName) ? [byId.privateDnsName] : [];
  }

  private draw(spec: UnhealthySpec, seed: number): string[] {
    const t = this.clock.elapsedSeconds();
    return this.store
      .scan(kubeTypes(this.store).node)
      .filter(
        (n) =>
          n.metadata.labels?.['karpenter.sh/nodepool'] !== undefined &&
          !n.metadata.deletionTimestamp &&
          nodeCondition(n, 'Ready')?.status === 'True' &&
          !this.nodes.get(n.metadata.name as string)?.broken.has(spec.condition),
      )
      .map((n) => ({ name: n.metadata.name as string, rank: hashHex('unhealthy', seed, t, spec.condition, n.metadata.name as string) }))
      .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
      .slice(0, spec.count)
      .map((n) => n.name);
  }

  private state(name: string): NodeFaults {
    let s = this.nodes.get(name);
    if (!s) this.nodes.set(name, (s = { broken: new Map(), posting: true, generation: 0, stoppedPods: new Set() }));
    return s;
  }

  private instanceOf(name: string): SimInstance | undefined {
    for (const i of this.ec2.instances.values()) if (i.privateDnsName === name) return i;
    return undefined;
  }

  /** The node is still there and its instance running: the kubelet side has something to act on. */
  private alive(name: string, i: SimInstance | undefined): boolean {
    return i?.state === 'running' && this.hasNode(name);
  }

  private hasNode(name: string): boolean {
    return this.store.peek(kubeTypes(this.store).node, undefined, name) !== undefined;
  }

  /** The node is there and its instance not going away (shutting down or terminated: the kubelet's path marks it). */
  private kept(name: string, i: SimInstance | undefined): boolean {
    return i !== undefined && i.state !== 'shutting-down' && i.state !== 'terminated' && this.hasNode(name);
  }

  /** The kubelet stops posting; after the grace the node lifecycle controller marks the node unreachable. */
  private kubeletStops(name: string, state: NodeFaults): void {
    state.posting = false;
    const generation = ++state.generation;
    this.clock.after(NODE_MONITOR_GRACE_SECONDS * 1000, () => {
      if (state.generation !== generation || !this.kept(name, this.instanceOf(name))) return;
      markNodeUnreachable(this.store, name);
    });
  }

  private reboot({ instance, seconds }: Reboot): void {
    const name = instance.privateDnsName;
    const state = this.shutDown(instance);
    state.boot = this.clock.after(seconds * 1000, () => {
      state.boot = undefined;
      if (this.alive(name, instance)) this.booted(name, instance, state);
    });
  }

  /** A stop shuts the node down for good; a start boots it after its boot time (registering it if it has no Node). */
  private power(change: PowerChange): void {
    const { instance } = change;
    if (change.kind === 'stop') {
      this.shutDown(instance);
      return;
    }
    const name = instance.privateDnsName;
    const state = this.state(name);
    state.boot?.();
    state.boot = this.clock.after(change.bootSeconds * 1000, () => {
      state.boot = undefined;
      if (instance.state !== 'running') return;
      if (!this.hasNode(name)) this.store.create(kubeTypes(this.store).node, undefined, nodeObjectFor(this.ec2, instance, this.store.timestamp()), KUBELET);
      this.booted(name, instance, state);
    });
  }

  /**
   * The OS shuts down (a reboot or a stop; a boot still to come is cancelled): 2 s after the call a live kubelet posts
   * Ready False with the not-ready taints and stops posting, and the node's running pods stop. Returns the node's state.
   */
  private shutDown(instance: SimInstance): NodeFaults {
    const name = instance.privateDnsName;
    const state = this.state(name);
    state.boot?.();
    state.boot = undefined;
    this.clock.after(SHUTDOWN_AFTER_SECONDS * 1000, () => {
      if (!this.kept(name, instance)) return;
      if (state.posting) {
        setNodeConditions(this.store, name, [SHUTTING_DOWN], KUBELET);
        setReadinessTaints(this.store, name, 'not-ready');
        this.kubeletStops(name, state);
      }
      state.shutdownIso = this.store.timestamp();
      for (const uid of stopPodsOn(this.store, name)) state.stoppedPods.add(uid);
    });
    return state;
  }

  /** The node is up again: what its kubelet and the monitoring agent post, and its pods running again. */
  private booted(name: string, instance: SimInstance, state: NodeFaults): void {
    setBootId(this.store, name, bootId(instance.id, (instance.reboots ?? 0) + (instance.starts ?? 0)));
    const readyFix = state.broken.get('Ready');
    state.broken.delete('Ready');
    state.posting = true;
    state.generation++;
    setNodeConditions(
      this.store,
      name,
      KUBELET_CONDITIONS.map((t) => healthyCondition(t)),
      KUBELET,
    );
    setReadinessTaints(this.store, name, undefined);
    restartPodsOn(this.store, name, state.stoppedPods, state.shutdownIso ?? this.store.timestamp());
    state.stoppedPods.clear();
    for (const [condition, fixedBy] of [...state.broken]) {
      if (fixedBy === 'reboot') state.broken.delete(condition);
      const value = fixedBy === 'reboot' ? healthyCondition(condition) : monitorFailure(condition as Exclude<HealthCondition, 'Ready'>, instance.id);
      setNodeConditions(this.store, name, [value], { ...AGENT, freshTransition: true });
    }
    // A kubelet that only a new node heals fails again once started: the node goes unreachable again after the grace.
    if (readyFix === 'replace') {
      state.broken.set('Ready', 'replace');
      this.kubeletStops(name, state);
    }
  }
}
