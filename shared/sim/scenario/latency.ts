/**
 * Launch latency: per pod, from when it was first seen pending (created unbound) to the CreateFleet call that
 * launched the instance of the node it was first bound to. Pods first bound to a node whose instance was
 * launched before they were created (existing or already in-flight capacity) needed no launch and are left
 * out; pods still pending at the end count from when they were first seen pending to the end (a lower bound).
 * The association goes pod binding → Node name → EC2 instance (privateDnsName) → its launch time, which the
 * simulated EC2 sets at the CreateFleet that launched it: no log text is read. See docs/simulator.md.
 */
import type { SimInstance } from '../aws/ec2-world';
import type { ClusterObserver } from './observe';

export function launchLatencies(
  observer: ClusterObserver,
  instances: Iterable<SimInstance>,
  startMs: number,
  endSeconds: number,
): { since: number; seconds: number }[] {
  const launchedAt = new Map<string, number>();
  for (const i of instances) launchedAt.set(i.privateDnsName, (i.launchTimeMs - startMs) / 1000);
  const out: { since: number; seconds: number }[] = [];
  for (const b of observer.firstBindings) {
    const launch = launchedAt.get(b.node);
    if (launch !== undefined && launch >= b.pendingSince) out.push({ since: b.pendingSince, seconds: launch - b.pendingSince });
  }
  for (const since of observer.pendingSince.values()) out.push({ since, seconds: endSeconds - since });
  return out;
}
