import type { EC2NodeClass, EC2NodeClassStatus, NodeClaim, NodePool } from '../model/karpenter';
import type { CapacityTypeValue } from '../model/labels';
import type { InstanceType } from '../instance-types/types';
import type { EpochMs } from '../time';

export type InstanceState = 'pending' | 'running' | 'shutting-down' | 'terminated' | 'stopping' | 'stopped';

export interface CloudInstance {
  instanceId: string;
  /** aws:///<zone>/<instance-id> */
  providerID: string;
  instanceType: string;
  zone: string;
  capacityType: CapacityTypeValue;
  imageId?: string;
  subnetId?: string;
  securityGroupIds?: string[];
  launchTime: EpochMs;
  state: InstanceState;
  tags: Record<string, string>;
  privateDnsName?: string;
}

export interface LaunchRequest {
  nodeClaim: NodeClaim;
  /** Absent for a standalone NodeClaim (applied by a user, owned by no NodePool). */
  nodePool?: NodePool;
  nodeClass: EC2NodeClass;
  /** Candidate instance types compatible with the claim, cheapest first. */
  instanceTypes: InstanceType[];
}

export type DriftReason =
  'AMIDrift' | 'SubnetDrift' | 'SecurityGroupDrift' | 'NodeClassDrift' | 'NodePoolDrifted' | 'RequirementsDrifted' | 'InstanceTypeNotFound';

/**
 * The cloud as nodewright uses it. Errors are part of the contract (see ../errors.ts):
 * InsufficientCapacityError, NodeClaimNotFoundError, NodeClassNotReadyError, CloudProviderThrottledError,
 * InstanceNotOwnedError.
 */
export interface CloudProvider {
  create(req: LaunchRequest): Promise<CloudInstance>;
  /** Terminates an instance this cluster owns; NodeClaimNotFoundError once it is gone. */
  delete(providerID: string): Promise<void>;
  get(providerID: string): Promise<CloudInstance>;
  /** Reboots a running instance this cluster owns (node repair); NodeClaimNotFoundError once it is gone. */
  reboot(providerID: string): Promise<void>;
  /** Stops a running instance this cluster owns (standby capacity); NodeClaimNotFoundError once it is gone. */
  stop(providerID: string): Promise<void>;
  /** Starts a stopped instance this cluster owns (standby capacity); NodeClaimNotFoundError once it is gone. */
  start(providerID: string): Promise<void>;
  /**
   * Adds tags to an instance this cluster owns, keeping every tag it already has (the `eks:eks-cluster-name` tag is
   * added where missing); InstanceNotOwnedError for another instance, NodeClaimNotFoundError once it is gone.
   */
  tagInstance(providerID: string, tags: Record<string, string>): Promise<void>;
  /** Instances tagged as owned by this cluster (not terminated). */
  list(): Promise<CloudInstance[]>;
  /**
   * This cluster's instances (its ownership tag and a NodePool tag) among `instanceIds`, in any state EC2 still
   * shows (terminated ones for about an hour), or those carrying a NodeClaim's tag that are not terminated: one
   * DescribeInstances filtered by id or tag, never the cluster's whole fleet.
   */
  describeOwned(query: { instanceIds: readonly string[] } | { nodeClaim: string }): Promise<CloudInstance[]>;
  /**
   * The node class's instance types with their offerings and prices; with `only`, just those types (a launch reads
   * its claim's, not the region's ~1,400), which may then be read by name instead of listed.
   */
  instanceTypes(nodeClass: EC2NodeClass, nodePool?: NodePool, only?: readonly string[]): Promise<InstanceType[]>;
  /** AMI, subnet or security-group drift of the claim's instance; `instance` when the caller has read it (in a batch), else it is read. */
  isDrifted(claim: NodeClaim, nodeClass: EC2NodeClass, instance?: CloudInstance): Promise<DriftReason | undefined>;
  /**
   * What the node class resolves to now (subnets, security groups, AMIs, instance profile — creating a managed
   * profile as a launch would) and the conditions SubnetsReady, SecurityGroupsReady, AMIsReady and
   * InstanceProfileReady, with Karpenter's reasons. Never throws for a node class that matches nothing: that is a
   * False condition.
   */
  nodeClassStatus(nodeClass: EC2NodeClass): Promise<EC2NodeClassStatus>;
}
