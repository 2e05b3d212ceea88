/** A small cluster behind the port fakes for the disruption function tests (nodes, pods, pools, instance types). */
import type { InstanceType } from '../../../shared/core/instance-types/types';
import type { Pod } from '../../../shared/core/model/kube';
import type { EC2NodeClass, NodeClaim, NodePool } from '../../../shared/core/model/karpenter';
import type { CloudProvider, DriftReason } from '../../../shared/core/ports';
import { fakes, FakeClock, nodeClass, type Fakes } from '../../fakes/lifecycle';
import { c6g, NOW, type Managed } from '../../core/disruption/builders';
import { MemoryStateStore } from '../../../shared/adapters/aws/state-store/memory';

/** A clock whose sleep advances time and lets the test change the cluster meanwhile (e.g. a pod arrives). */
class HookClock extends FakeClock {
  onSleep: ((ms: number) => void) | undefined;
  slept: number[] = [];
  override async sleep(ms: number): Promise<void> {
    this.slept.push(ms);
    this.onSleep?.(ms);
    await super.sleep(ms);
  }
}

export interface World extends Fakes {
  clock: HookClock;
  snapshots: () => number;
  addPod: (pod: Pod) => void;
}

export function world(o: {
  pools: NodePool[];
  nodes: Managed[];
  pods?: Pod[];
  types?: InstanceType[];
  drift?: (claim: NodeClaim, cls: EC2NodeClass) => DriftReason | undefined;
}): World {
  const f = fakes();
  const clock = new HookClock(NOW);
  const store = new MemoryStateStore(clock);
  f.cluster.nodePools = o.pools;
  f.cluster.nodeClasses = [nodeClass()];
  for (const m of o.nodes) {
    f.cluster.nodes.set(m.node.name, structuredClone(m.node));
    f.cluster.claims.set(m.claim.name, structuredClone(m.claim));
  }
  f.cluster.pods = [...(o.pods ?? [])];
  f.cloud.types = o.types ?? [c6g.large, c6g.xlarge, c6g.x2large];
  const drift = o.drift;
  if (drift) (f.cloud as CloudProvider).isDrifted = async (claim: NodeClaim, cls: EC2NodeClass) => drift(claim, cls);
  let count = 0;
  const snapshot = f.cluster.snapshot.bind(f.cluster);
  f.cluster.snapshot = async () => {
    count++;
    return snapshot();
  };
  return {
    ...f,
    clock,
    store,
    snapshots: () => count,
    addPod: (pod) => {
      f.cluster.pods.push(pod);
    },
  };
}

/** EventBridge's scheduled event, as Lambda receives it (the same object on a retry). */
export function scheduledEvent(timeMs: number, id = 'evt-1') {
  return {
    version: '0',
    id,
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date(timeMs).toISOString(),
    region: 'eu-west-1',
    resources: ['arn:aws:events:eu-west-1:123456789012:rule/disruption'],
    detail: {},
  };
}

export const context = (awsRequestId: string) => ({ awsRequestId }) as never;
