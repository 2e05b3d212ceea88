// OWNED BY the instance-types work: replace this stub with the real implementation (same signatures).
import type { EC2NodeClass } from '../model/karpenter';
import type { OfferingKey } from '../ports/state-store';
import type { CatalogEntry, InstanceType } from './types';

export interface BuildInstanceTypesOptions {
  region: string;
  /** Zones the node class can launch into (from its subnets); offerings are made per zone. */
  zones: string[];
  /** Kubelet settings, AMI family etc. change capacity/allocatable. */
  nodeClass?: EC2NodeClass;
  /** On-demand and spot prices keyed `${instanceType}` / `${instanceType}/${zone}`; missing → catalog/estimate. */
  onDemandPrices?: Record<string, number>;
  spotPrices?: Record<string, number>;
  /** Offerings to mark unavailable (ICE cache). */
  unavailable?: OfferingKey[];
  /** Instance types not offered in a zone (from DescribeInstanceTypeOfferings); absent = offered everywhere. */
  zonesByType?: Record<string, string[]>;
  /** VM_MEMORY_OVERHEAD_PERCENT, default 0.075. */
  vmMemoryOverheadPercent?: number;
  /** RESERVED_ENIS, default 0. */
  reservedENIs?: number;
}

export function buildInstanceTypes(_entries: CatalogEntry[], _opts: BuildInstanceTypesOptions): InstanceType[] {
  throw new Error('not implemented yet');
}
