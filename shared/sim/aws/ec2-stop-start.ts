/**
 * StopInstances and StartInstances on the simulated EC2 (standby capacity: stopped, already-joined instances).
 *
 * - Stop: `stopping` at once, `stopped` after 30–60 s (drawn from the seed, the instance and the stop's number); compute
 *   is not billed from the call until the next start (./ec2-billing.ts). Spot instances are refused: an instant fleet's
 *   spot instances belong to one-time Spot requests, which EC2 never stops.
 * - Start (from `stopped` only): `pending` at once, `running` after 10–20 s, and the kubelet posts again 15–30 s later (a
 *   stopped instance keeps its root volume: no image pulls for what it had cached). Same id, addresses and DNS name.
 *
 * Every transition sends its EC2 Instance State-change Notification (pending and running too: for a start). What a
 * stop and a start do to the Node is the simulated kubelet's business (cluster/node-health.ts), told through `onPower`.
 */
import { hashUnit } from '../hash';
import { notFoundRefusal, type Refusal } from './ec2-reboot';
import type { Ec2World, SimInstance, SimInstanceState } from './ec2-world';

const STOP_SECONDS = { min: 30, max: 60 } as const;
const START_RUNNING_SECONDS = { min: 10, max: 20 } as const;
const START_BOOT_SECONDS = { min: 15, max: 30 } as const;

/** A stop (the OS shuts down now), or a start: the kubelet posts again `bootSeconds` after the call. */
export type PowerChange = { kind: 'stop'; instance: SimInstance } | { kind: 'start'; instance: SimInstance; bootSeconds: number };

type PowerListener = (c: PowerChange) => void;

const listeners = new WeakMap<Ec2World, Set<PowerListener>>();

/** Subscribes to the world's stops and starts; returns the unsubscribe function. */
export function onPower(world: Ec2World, fn: PowerListener): () => void {
  let set = listeners.get(world);
  if (!set) listeners.set(world, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

const draw = (range: { min: number; max: number }, ...parts: (string | number)[]) => range.min + Math.floor(hashUnit(...parts) * (range.max - range.min + 1));

/** Seconds the instance's `n`-th stop spends `stopping`. */
export function stopSeconds(world: Ec2World, i: SimInstance, n: number): number {
  return draw(STOP_SECONDS, 'stop', world.opts.seed, i.id, n);
}

/** The instance's `n`-th start: seconds `pending`, then seconds from `running` until the kubelet posts. */
export function startSeconds(world: Ec2World, i: SimInstance, n: number): { running: number; boot: number } {
  return { running: draw(START_RUNNING_SECONDS, 'start', world.opts.seed, i.id, n), boot: draw(START_BOOT_SECONDS, 'boot', world.opts.seed, i.id, n) };
}

const STATE_CODE: Record<SimInstanceState, number> = { pending: 0, running: 16, 'shutting-down': 32, terminated: 48, stopping: 64, stopped: 80 };

/** EC2's `{Code, Name}` of a state. */
export const stateOf = (state: SimInstanceState) => ({ Code: STATE_CODE[state], Name: state });

/**
 * Why EC2 would refuse to stop these instances, every id checked first (all or none): an unknown id
 * `InvalidInstanceID.NotFound`, a spot instance `UnsupportedOperation`, hibernation `UnsupportedHibernationConfiguration`
 * (no simulated instance has it enabled), an instance neither running nor already stopping / stopped
 * `IncorrectInstanceState`.
 */
export function stopRefusal(world: Ec2World, ids: readonly string[], hibernate = false): Refusal | undefined {
  const missing = notFoundRefusal(world, ids);
  if (missing) return missing;
  const instances = ids.map((id) => world.instances.get(id)!);
  const spot = instances.find((i) => i.capacityType === 'spot');
  if (spot)
    return {
      code: 'UnsupportedOperation',
      message: `You can't stop the Spot Instance '${spot.id}' because it is associated with a one-time Spot Instance request. You can only stop Spot Instances associated with persistent Spot Instance requests.`,
    };
  if (hibernate) return { code: 'UnsupportedHibernationConfiguration', message: `For hibernation, the instance '${ids[0]}' must have hibernation enabled.` };
  const wrong = instances.find((i) => i.state !== 'running' && i.state !== 'stopping' && i.state !== 'stopped');
  return wrong && { code: 'IncorrectInstanceState', message: `This instance '${wrong.id}' is not in a state from which it can be stopped.` };
}

/**
 * Why EC2 would refuse to start these instances (all or none): an unknown id, an instance neither stopped nor already
 * pending / running (`IncorrectInstanceState`), a stopped one whose offering has no capacity now
 * (`InsufficientInstanceCapacity`: an `unavailable` window, or the scenario's per-zone `capacity` used up).
 */
export function startRefusal(world: Ec2World, ids: readonly string[]): Refusal | undefined {
  const missing = notFoundRefusal(world, ids);
  if (missing) return missing;
  const instances = ids.map((id) => world.instances.get(id)!);
  const wrong = instances.find((i) => i.state !== 'stopped' && i.state !== 'pending' && i.state !== 'running');
  if (wrong) return { code: 'IncorrectInstanceState', message: `The instance '${wrong.id}' is not in a state from which it can be started.` };
  const full = instances.find((i) => i.state === 'stopped' && !world.hasCapacity(i.type, i.zone, i.capacityType));
  return (
    full && {
      code: 'InsufficientInstanceCapacity',
      message: `We currently do not have sufficient ${full.type} capacity in the Availability Zone you requested (${full.zone}). Our system will be working on provisioning additional capacity.`,
    }
  );
}

const gmt = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} GMT`;

/** Stops a running instance (one already stopping or stopped is left as it is, as EC2 does); returns its previous state. */
export function stopInstance(world: Ec2World, i: SimInstance): SimInstanceState {
  const previous = i.state;
  if (previous !== 'running') return previous;
  const now = world.opts.clock.now();
  i.stops = (i.stops ?? 0) + 1;
  i.stoppedSinceMs = now;
  i.stateTransitionReason = `User initiated (${gmt(now)})`;
  world.setState(i, 'stopping', 'running');
  world.opts.clock.after(stopSeconds(world, i, i.stops) * 1000, () => world.setState(i, 'stopped', 'stopping'));
  for (const fn of listeners.get(world) ?? []) fn({ kind: 'stop', instance: i });
  return previous;
}

/** Starts a stopped instance (one already pending or running is left as it is); returns its previous state. */
export function startInstance(world: Ec2World, i: SimInstance): SimInstanceState {
  const previous = i.state;
  if (previous !== 'stopped') return previous;
  const now = world.opts.clock.now();
  i.starts = (i.starts ?? 0) + 1;
  i.stoppedMs = (i.stoppedMs ?? 0) + (now - (i.stoppedSinceMs ?? now));
  i.stoppedSinceMs = undefined;
  i.stateTransitionReason = '';
  const { running, boot } = startSeconds(world, i, i.starts);
  if (world.setState(i, 'pending', 'stopped')) world.stateChangeEvent(i, 'pending');
  world.opts.clock.after(running * 1000, () => {
    if (world.setState(i, 'running', 'pending')) world.stateChangeEvent(i, 'running');
  });
  for (const fn of listeners.get(world) ?? []) fn({ kind: 'start', instance: i, bootSeconds: running + boot });
  return previous;
}
