/**
 * RebootInstances on the simulated EC2. EC2 keeps a rebooting instance `running` (no state change, no state-change
 * notification); what a reboot does to the Node is the simulated kubelet's business (cluster/node-health.ts), told
 * through `onReboot`. The reboot time — from the call until the kubelet posts again — is drawn from the seed, the
 * instance and the reboot's number: 40–90 s.
 */
import { hashUnit } from '../hash';
import type { Ec2World, SimInstance } from './ec2-world';

const REBOOT_SECONDS = { min: 40, max: 90 } as const;

export interface Reboot {
  instance: SimInstance;
  /** Seconds from the call until the instance has booted and its kubelet posts again. */
  seconds: number;
}

type RebootListener = (r: Reboot) => void;

const listeners = new WeakMap<Ec2World, Set<RebootListener>>();

/** Subscribes to the world's reboots; returns the unsubscribe function. */
export function onReboot(world: Ec2World, fn: RebootListener): () => void {
  let set = listeners.get(world);
  if (!set) listeners.set(world, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

/** The reboot time of the instance's `n`-th reboot (seconds, whole): deterministic per seed. */
export function rebootSeconds(world: Ec2World, i: SimInstance, n: number): number {
  const { min, max } = REBOOT_SECONDS;
  return min + Math.floor(hashUnit('reboot', world.opts.seed, i.id, n) * (max - min + 1));
}

/** An EC2 error code and message: why a call is refused. */
export interface Refusal {
  code: string;
  message: string;
}

/**
 * The ids EC2 does not know (or not yet: a `lag` fault; or terminated over an hour ago), as `InvalidInstanceID.NotFound`;
 * no id at all is `MissingParameter`. Every instance call that takes ids checks them all first.
 */
export function notFoundRefusal(world: Ec2World, ids: readonly string[]): Refusal | undefined {
  if (ids.length === 0) return { code: 'MissingParameter', message: 'The request must contain the parameter InstanceId' };
  const hourAgo = world.opts.clock.now() - 3_600_000;
  const missing = ids.filter((id) => {
    const i = world.instances.get(id);
    return !i || !world.describable(i) || (i.state === 'terminated' && (i.terminatedAtMs ?? 0) < hourAgo);
  });
  if (missing.length === 1) return { code: 'InvalidInstanceID.NotFound', message: `The instance ID '${missing[0]}' does not exist` };
  if (missing.length > 1) return { code: 'InvalidInstanceID.NotFound', message: `The instance IDs '${missing.join(', ')}' do not exist` };
  return undefined;
}

/**
 * Why EC2 would refuse to reboot these instances (all or none, as RebootInstances checks every id first): an id it
 * does not know is `InvalidInstanceID.NotFound` (above), an instance not running `IncorrectState`.
 */
export function rebootRefusal(world: Ec2World, ids: readonly string[]): Refusal | undefined {
  const missing = notFoundRefusal(world, ids);
  if (missing) return missing;
  const stopped = ids.find((id) => world.instances.get(id)?.state !== 'running');
  return stopped === undefined ? undefined : { code: 'IncorrectState', message: `The instance '${stopped}' is not in a state from which it can be rebooted.` };
}

/** Reboots a running instance: counted on it, and the listeners told how long it takes. */
export function rebootInstance(world: Ec2World, i: SimInstance): Reboot {
  i.reboots = (i.reboots ?? 0) + 1;
  i.lastRebootMs = world.opts.clock.now();
  const reboot = { instance: i, seconds: rebootSeconds(world, i, i.reboots) };
  for (const fn of listeners.get(world) ?? []) fn(reboot);
  return reboot;
}

/** Reboots of every instance of the world so far. */
export function rebootCount(world: Ec2World): number {
  let n = 0;
  for (const i of world.instances.values()) n += i.reboots ?? 0;
  return n;
}
