/**
 * The simulated account's records besides instances: subnets, security groups, AMIs and launch templates,
 * IAM instance profiles, and the capacity an offering has (insufficient-capacity windows, live-instance limits).
 */
export interface SimSubnet {
  id: string;
  zone: string;
  zoneId: string;
  cidr: string;
  tags: Record<string, string>;
}
export interface SimSecurityGroup {
  id: string;
  name: string;
  tags: Record<string, string>;
}
export interface SimImage {
  id: string;
  name: string;
  arch: 'x86_64' | 'arm64';
  creationDate: string;
  tags: Record<string, string>;
}
export interface SimLaunchTemplate {
  name: string;
  id: string;
  imageId?: string;
  userData?: string;
  securityGroupIds: string[];
  tags: Record<string, string>;
  instanceProfile?: string;
  createdMs?: number;
  /** LaunchTemplateData.NetworkInterfaces beyond the primary one: checked against the type at launch. */
  networkInterfaces?: { card: number; device: number; type: string }[];
  /** The EBS volumes of its block device mappings (each instance launched from it gets them). */
  volumes?: SimVolume[];
}

/** An IAM instance profile (IAM is global; the simulated account has one world). At most one role, as in IAM. */
export interface SimInstanceProfile {
  name: string;
  path: string;
  roles: string[];
  tags: Record<string, string>;
  createdMs: number;
}

export interface CapacityWindow {
  instanceType: string;
  zone?: string;
  capacityType?: 'spot' | 'on-demand';
  fromMs: number;
  untilMs: number;
}

/** At most `max` live instances of an offering (per zone when `zone` is unset: each zone has that much). */
export interface CapacityLimit {
  instanceType: string;
  zone?: string;
  capacityType?: 'spot' | 'on-demand';
  max: number;
}

/** An EBS volume of an instance (a launch template's block device mapping): what it is billed for. */
export interface SimVolume {
  sizeGiB: number;
  type: string;
  iops?: number;
  /** MiB/s (gp3). */
  throughput?: number;
}
