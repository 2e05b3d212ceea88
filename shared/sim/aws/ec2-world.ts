/**
 * The simulated EC2 of one scenario: subnets and security groups per zone, AMIs, launch templates,
 * instances with tags and a lifecycle (pending → running → shutting-down → terminated; stopping → stopped → pending
 * through StopInstances / StartInstances: ./ec2-stop-start.ts), per-offering
 * insufficient-capacity windows, deterministic spot prices, and interruption events sent to a queue.
 * Instance ids, IPs and prices derive from the seed and the request (CreateFleet ClientToken), never from
 * call order, so concurrent launches give the same world every run.
 */
import { soldAsSpot } from '../../core/instance-types/offerings';
import { simulatedListPrice } from './pricing';
import { hashHex } from '../hash';
import type { CatalogEntry } from '../../core/instance-types/types';
import type { VirtualClock } from '../clock';
import type { CapacityLimit, CapacityWindow, SimImage, SimInstanceProfile, SimLaunchTemplate, SimSecurityGroup, SimSubnet, SimVolume } from './ec2-resources';

export type SimInstanceState = 'pending' | 'running' | 'stopping' | 'stopped' | 'shutting-down' | 'terminated';

/** The states whose changes EC2 sends as state-change notifications here (a launch's pending and running: none). */
const NOTIFIED: ReadonlySet<SimInstanceState> = new Set(['stopping', 'stopped', 'shutting-down', 'terminated']);

export interface SimInstance {
  id: string;
  type: string;
  zone: string;
  subnetId: string;
  capacityType: 'spot' | 'on-demand';
  imageId: string;
  launchTemplateName?: string;
  securityGroupIds: string[];
  tags: Record<string, string>;
  state: SimInstanceState;
  launchTimeMs: number;
  privateIp: string;
  privateDnsName: string;
  pricePerHour: number;
  userData?: string;
  /** EFA devices attached (the launch template's efa and efa-only interfaces): what the EFA device plugin advertises. */
  efaInterfaces?: number;
  clientToken?: string;
  interruptedAtMs?: number;
  shuttingDownAtMs?: number;
  terminatedAtMs?: number;
  terminationReason?: string;
  /** EC2's eventual consistency (fault `lag`): DescribeInstances and TerminateInstances do not know the instance before this. */
  describableFromMs?: number;
  /** RebootInstances calls that rebooted it (./ec2-reboot.ts), and the last one's time; the state stays `running`. */
  reboots?: number;
  lastRebootMs?: number;
  /** StopInstances / StartInstances calls that stopped / started it (./ec2-stop-start.ts). */
  stops?: number;
  starts?: number;
  /** Compute is not billed from a stop until the next start (or termination): the time closed so far, and the open stop's start. */
  stoppedMs?: number;
  stoppedSinceMs?: number;
  /** DescribeInstances' StateTransitionReason (`User initiated (… GMT)` once stopped; empty again when started). */
  stateTransitionReason?: string;
  /** Its EBS volumes, from the launch template's block device mappings (none known: a 20 GiB gp3 root; ./ec2-billing.ts). */
  volumes?: SimVolume[];
}

/** An EventBridge event as the interruption queue receives it. */
export interface Ec2Event {
  'detail-type': string;
  source: string;
  detail: Record<string, unknown>;
  resources?: string[];
}

export interface Ec2WorldOptions {
  region: string;
  zones: string[];
  clusterName: string;
  seed: number;
  clock: VirtualClock;
  catalog: readonly CatalogEntry[];
  /** Seconds from CreateFleet to state running. */
  runningAfterSeconds?: number;
  /** Seconds a terminating instance spends in shutting-down. */
  shutdownSeconds?: number;
  /** Extra tags on every subnet and security group (what the scenario's node classes select on). */
  discoveryTags?: Record<string, string>;
}

const SPOT_NOTICE_SECONDS = 120;

export { hashHex } from '../hash';

export class Ec2World {
  readonly subnets: SimSubnet[];
  readonly securityGroups: SimSecurityGroup[];
  readonly images = new Map<string, SimImage>();
  readonly launchTemplates = new Map<string, SimLaunchTemplate>();
  readonly instanceProfiles = new Map<string, SimInstanceProfile>();
  /** IAM roles that exist in the simulated account (the node roles a scenario's EC2NodeClasses name). */
  readonly roles = new Set<string>();
  readonly instances = new Map<string, SimInstance>();
  readonly capacityWindows: CapacityWindow[] = [];
  readonly capacityLimits: CapacityLimit[] = [];
  private readonly byToken = new Map<string, string>();
  /** Every private address handed out (a VPC never hands one to two instances). */
  private readonly usedIps = new Set<string>();
  /** Instance ids by tag, `key=value` → ids: DescribeInstances with an exact tag filter reads these, not every instance. */
  private readonly byTag = new Map<string, Set<string>>();
  private readonly catalogByName: Map<string, CatalogEntry>;
  private readonly listeners = new Set<(i: SimInstance, previous: SimInstanceState | undefined) => void>();
  private readonly eventSinks = new Set<(e: Ec2Event) => void>();
  /** Seconds a launch now stays invisible to DescribeInstances (the scenario's `lag` faults); none by default. */
  describeLagSeconds: () => number = () => 0;

  constructor(readonly opts: Ec2WorldOptions) {
    this.catalogByName = new Map(opts.catalog.map((c) => [c.name, c]));
    const discovery = { 'karpenter.sh/discovery': opts.clusterName, [`kubernetes.io/cluster/${opts.clusterName}`]: 'owned', ...(opts.discoveryTags ?? {}) };
    this.subnets = opts.zones.map((zone, i) => ({
      id: `subnet-${hashHex('subnet', opts.clusterName, zone).slice(0, 17)}`,
      zone,
      zoneId: `${opts.region.replace(/-/g, '').slice(0, 4)}-az${i + 1}`,
      cidr: `10.0.${i * 32}.0/19`,
      tags: { ...discovery, Name: `${opts.clusterName}-private-${zone}` },
    }));
    this.securityGroups = [
      {
        id: `sg-${hashHex('sg', opts.clusterName).slice(0, 17)}`,
        name: `eks-cluster-sg-${opts.clusterName}`,
        tags: { ...discovery, Name: `${opts.clusterName}-node` },
      },
    ];
  }

  get region(): string {
    return this.opts.region;
  }

  catalogEntry(type: string): CatalogEntry | undefined {
    return this.catalogByName.get(type);
  }

  catalog(): readonly CatalogEntry[] {
    return this.opts.catalog;
  }

  /** Subscribes to instance state changes (launch included: previous undefined). */
  onInstanceChange(fn: (i: SimInstance, previous: SimInstanceState | undefined) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Subscribes to the EventBridge events EC2 emits (interruption warnings, state changes …). */
  onEvent(fn: (e: Ec2Event) => void): () => void {
    this.eventSinks.add(fn);
    return () => this.eventSinks.delete(fn);
  }

  /** The region's list price (the simulated Price List API's: see ./pricing.ts). */
  onDemandPrice(type: string): number | undefined {
    const e = this.catalogByName.get(type);
    return e ? simulatedListPrice(e, this.opts.region) : undefined;
  }

  /** Deterministic spot price: 25–45 % of on-demand, by seed, type and zone; none for types AWS does not sell as spot. */
  spotPrice(type: string, zone: string): number | undefined {
    const e = this.catalogByName.get(type);
    if (!e || !soldAsSpot(e)) return undefined;
    const od = this.onDemandPrice(type);
    if (od === undefined) return undefined;
    const f = 0.25 + (parseInt(hashHex('spot', this.opts.seed, type, zone).slice(0, 8), 16) / 0xffffffff) * 0.2;
    return Math.round(od * f * 10000) / 10000;
  }

  price(type: string, zone: string, capacityType: 'spot' | 'on-demand'): number | undefined {
    return capacityType === 'spot' ? this.spotPrice(type, zone) : this.onDemandPrice(type);
  }

  /** Image for an SSM alias parameter (one AMI per parameter name, registered on first use). */
  imageForParameter(parameter: string): SimImage {
    const id = `ami-${hashHex('ami', parameter).slice(0, 17)}`;
    let image = this.images.get(id);
    if (!image) {
      const arch = /arm64|aarch64/.test(parameter) ? 'arm64' : 'x86_64';
      image = {
        id,
        name: parameter.split('/').filter(Boolean).slice(-3, -1).join('-') || id,
        arch,
        creationDate: new Date(this.opts.clock.startMs - 86_400_000).toISOString(),
        tags: {},
      };
      this.images.set(id, image);
    }
    return image;
  }

  hasCapacity(type: string, zone: string, capacityType: 'spot' | 'on-demand'): boolean {
    const now = this.opts.clock.now();
    const matches = (w: { instanceType: string; zone?: string; capacityType?: string }) =>
      w.instanceType === type && (!w.zone || w.zone === zone) && (!w.capacityType || w.capacityType === capacityType);
    if (this.capacityWindows.some((w) => matches(w) && now >= w.fromMs && now < w.untilMs)) return false;
    for (const limit of this.capacityLimits.filter(matches)) {
      let live = 0;
      for (const i of this.instances.values()) {
        if (i.type === type && i.zone === zone && i.capacityType === capacityType && (i.state === 'pending' || i.state === 'running')) live++;
      }
      if (live >= limit.max) return false;
    }
    return true;
  }

  addCapacityWindow(w: CapacityWindow): void {
    this.capacityWindows.push(w);
  }

  /** The instance a ClientToken already launched (CreateFleet idempotency). */
  instanceForToken(token: string): SimInstance | undefined {
    const id = this.byToken.get(token);
    return id ? this.instances.get(id) : undefined;
  }

  launch(req: Omit<SimInstance, 'id' | 'state' | 'launchTimeMs' | 'privateIp' | 'privateDnsName' | 'pricePerHour'>): SimInstance {
    const h = hashHex('instance', this.opts.seed, req.clientToken ?? '', req.type, req.zone, this.opts.clock.now());
    let id = `i-${h.slice(0, 17)}`;
    if (this.instances.has(id)) id = `i-${hashHex(h, 'again').slice(0, 17)}`;
    const subnetIndex = Math.max(
      0,
      this.subnets.findIndex((s) => s.id === req.subnetId),
    );
    // A VPC never hands one private address to two instances: probe on from the hashed one (deterministic).
    const used = this.usedIps;
    const start = parseInt(h.slice(17, 23), 16) % (32 * 250);
    let privateIp = '';
    for (let k = 0; k < 32 * 250; k++) {
      const n = (start + k) % (32 * 250);
      privateIp = `10.0.${subnetIndex * 32 + Math.floor(n / 250)}.${(n % 250) + 4}`;
      if (!used.has(privateIp)) break;
    }
    const lagSeconds = this.describeLagSeconds();
    const instance: SimInstance = {
      ...req,
      id,
      state: 'pending',
      launchTimeMs: this.opts.clock.now(),
      ...(lagSeconds > 0 ? { describableFromMs: this.opts.clock.now() + lagSeconds * 1000 } : {}),
      privateIp,
      privateDnsName: `ip-${privateIp.replace(/\./g, '-')}.${this.opts.region === 'us-east-1' ? 'ec2' : `${this.opts.region}.compute`}.internal`,
      pricePerHour: this.price(req.type, req.zone, req.capacityType) ?? 0,
    };
    this.instances.set(id, instance);
    this.usedIps.add(privateIp);
    for (const [k, v] of Object.entries(instance.tags)) {
      const key = `${k}=${v}`;
      const ids = this.byTag.get(key);
      if (ids) ids.add(id);
      else this.byTag.set(key, new Set([id]));
    }
    if (req.clientToken) this.byToken.set(req.clientToken, id);
    this.emitChange(instance, undefined);
    this.opts.clock.after((this.opts.runningAfterSeconds ?? 5) * 1000, () => this.setState(instance, 'running', 'pending'));
    return instance;
  }

  /** CreateTags on an instance: new keys only are indexed; a key it has takes the new value, as EC2 does. */
  tag(i: SimInstance, tags: Record<string, string>): void {
    for (const [k, v] of Object.entries(tags)) {
      if (i.tags[k] !== undefined) this.byTag.get(`${k}=${i.tags[k]}`)?.delete(i.id);
      i.tags[k] = v;
      const ids = this.byTag.get(`${k}=${v}`);
      if (ids) ids.add(i.id);
      else this.byTag.set(`${k}=${v}`, new Set([i.id]));
    }
  }

  /** The instances tagged `key=value` (set at launch, or later by CreateTags). */
  taggedWith(key: string, value: string): SimInstance[] {
    return [...(this.byTag.get(`${key}=${value}`) ?? [])].map((id) => this.instances.get(id)!);
  }

  /** A seeded instance (a scenario's `fleet`): running from now on, as if it had been launched long enough ago. */
  markRunning(i: SimInstance): void {
    this.setState(i, 'running', 'pending');
  }

  /** Whether EC2's read and terminate APIs know the instance yet (a `lag` fault delays it after launch). */
  describable(i: SimInstance): boolean {
    return i.describableFromMs === undefined || this.opts.clock.now() >= i.describableFromMs;
  }

  /** TerminateInstances: shutting-down now, terminated after the shutdown time (a stopped instance: terminated at once). */
  terminate(id: string, reason: string): SimInstance | undefined {
    const i = this.instances.get(id);
    if (!i || i.state === 'shutting-down' || i.state === 'terminated') return i;
    i.terminationReason ??= reason;
    i.shuttingDownAtMs = this.opts.clock.now();
    if (i.state === 'stopped') {
      // Nothing runs to shut down: a stopped instance is terminated at once.
      i.terminatedAtMs = i.shuttingDownAtMs;
      this.setState(i, 'terminated');
      return i;
    }
    this.setState(i, 'shutting-down');
    this.opts.clock.after((this.opts.shutdownSeconds ?? 10) * 1000, () => {
      i.terminatedAtMs = this.opts.clock.now();
      this.setState(i, 'terminated');
    });
    return i;
  }

  /** Moves the instance to `state` (only from `onlyFrom` when given); the listeners told, the notification sent. Whether it moved. */
  setState(i: SimInstance, state: SimInstanceState, onlyFrom?: SimInstanceState): boolean {
    if (onlyFrom && i.state !== onlyFrom) return false;
    const previous = i.state;
    if (previous === state) return false;
    i.state = state;
    this.emitChange(i, previous);
    if (NOTIFIED.has(state)) this.stateChangeEvent(i, state);
    return true;
  }

  private emitChange(i: SimInstance, previous: SimInstanceState | undefined): void {
    for (const fn of this.listeners) fn(i, previous);
  }

  emit(event: Ec2Event): void {
    for (const fn of this.eventSinks) fn(event);
  }

  /** An `EC2 Instance State-change Notification` to the event sinks (the interruption queue). */
  stateChangeEvent(i: SimInstance, state: SimInstanceState): void {
    this.emit({ 'detail-type': 'EC2 Instance State-change Notification', source: 'aws.ec2', detail: { 'instance-id': i.id, state }, resources: [this.arn(i)] });
  }

  arn(i: SimInstance): string {
    return `arn:aws:ec2:${this.opts.region}:000000000000:instance/${i.id}`;
  }

  /** A spot interruption: the 2-minute warning now, then EC2 terminates the instance. */
  interruptSpot(i: SimInstance): void {
    i.interruptedAtMs = this.opts.clock.now();
    this.emit({
      'detail-type': 'EC2 Spot Instance Interruption Warning',
      source: 'aws.ec2',
      detail: { 'instance-id': i.id, 'instance-action': 'terminate' },
      resources: [this.arn(i)],
    });
    this.opts.clock.after(SPOT_NOTICE_SECONDS * 1000, () => this.terminate(i.id, 'spot-interrupted'));
  }

  rebalance(i: SimInstance): void {
    this.emit({ 'detail-type': 'EC2 Instance Rebalance Recommendation', source: 'aws.ec2', detail: { 'instance-id': i.id }, resources: [this.arn(i)] });
  }

  scheduledChange(i: SimInstance): void {
    i.interruptedAtMs = this.opts.clock.now();
    this.emit({
      'detail-type': 'AWS Health Event',
      source: 'aws.health',
      detail: {
        service: 'EC2',
        eventTypeCategory: 'scheduledChange',
        eventTypeCode: 'AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED',
        affectedEntities: [{ entityValue: i.id }],
      },
      resources: [i.id],
    });
  }

  /** The instance is stopped or terminated outside nodewright (state-change notification follows). */
  externalTermination(i: SimInstance): void {
    i.interruptedAtMs = this.opts.clock.now();
    this.terminate(i.id, 'state-change');
  }
}
