import { createHash } from 'node:crypto';
import {
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  paginateDescribeLaunchTemplates,
  type EC2Client,
  type LaunchTemplateBlockDeviceMappingRequest,
  type RequestLaunchTemplateData,
} from '@aws-sdk/client-ec2';
import type { BlockDeviceMapping, EC2NodeClass } from '../../../core/model/karpenter';
import { awsErrorCode, mapAwsError } from '../errors';
import { recordToTags } from './tags';

const LAUNCH_TEMPLATE_PREFIX = 'nodewright/';
const GiB = 1024 ** 3;

export interface LaunchTemplateInput {
  nodeClass: EC2NodeClass;
  imageId: string;
  securityGroupIds: string[];
  instanceProfile: string;
  userData: string;
  /** EFA interfaces to attach when the node class lists no networkInterfaces (a claim that requests EFA); 0 or absent: none. */
  efaCount?: number;
  /** Tags on the launch template itself (ownership, node class, node pool). */
  tags: Record<string, string>;
}

/** Karpenter's defaults when the node class lists no block devices (docs/karpenter-reference.md §1.2). */
function defaultBlockDevices(nodeClass: EC2NodeClass): BlockDeviceMapping[] {
  const gp3 = (gib: number) => ({ volumeSize: gib * GiB, volumeType: 'gp3', encrypted: true, deleteOnTermination: true });
  if (nodeClass.amiFamily === 'Bottlerocket') {
    return [
      { deviceName: '/dev/xvda', rootVolume: true, ebs: gp3(4) },
      { deviceName: '/dev/xvdb', ebs: gp3(20) },
    ];
  }
  if (nodeClass.amiFamily.startsWith('Windows')) return [{ deviceName: '/dev/sda1', rootVolume: true, ebs: gp3(50) }];
  if (nodeClass.amiFamily === 'Custom') return [];
  return [{ deviceName: '/dev/xvda', rootVolume: true, ebs: gp3(20) }];
}

function blockDevices(nodeClass: EC2NodeClass): LaunchTemplateBlockDeviceMappingRequest[] {
  const list = nodeClass.blockDeviceMappings.length ? nodeClass.blockDeviceMappings : defaultBlockDevices(nodeClass);
  return list.map((b) => ({
    DeviceName: b.deviceName,
    Ebs: b.ebs && {
      VolumeSize: b.ebs.volumeSize !== undefined ? Math.ceil(b.ebs.volumeSize / GiB) : undefined,
      VolumeType: b.ebs.volumeType as never,
      Iops: b.ebs.iops,
      Throughput: b.ebs.throughput,
      Encrypted: b.ebs.encrypted,
      KmsKeyId: b.ebs.kmsKeyID,
      DeleteOnTermination: b.ebs.deleteOnTermination ?? true,
      SnapshotId: b.ebs.snapshotID,
    },
  }));
}

/** The LaunchTemplateData for a node class + AMI; everything that varies is in here, so its hash names it. */
function launchTemplateData(input: LaunchTemplateInput): RequestLaunchTemplateData {
  const nc = input.nodeClass;
  const m = nc.metadataOptions;
  const sgs = [...input.securityGroupIds].sort();
  return {
    ImageId: input.imageId,
    IamInstanceProfile: { Name: input.instanceProfile },
    UserData: Buffer.from(input.userData).toString('base64'),
    MetadataOptions: {
      HttpEndpoint: m.httpEndpoint,
      HttpProtocolIpv6: m.httpProtocolIPv6,
      HttpPutResponseHopLimit: m.httpPutResponseHopLimit,
      HttpTokens: m.httpTokens,
    },
    BlockDeviceMappings: blockDevices(nc),
    Monitoring: { Enabled: nc.detailedMonitoring ?? false },
    ...networkInterfaces(nc, sgs, input.efaCount ?? 0),
  };
}

/**
 * The template's interfaces, as Karpenter's launch templates have them: the node class's networkInterfaces (an
 * efa-only interface gets no public IP), else one EFA interface per network card for a claim that requests EFA
 * (device 0 on the first card, 1 on the others), else the primary interface only when a public IP choice needs it.
 */
function networkInterfaces(nc: EC2NodeClass, sgs: string[], efaCount: number): Pick<RequestLaunchTemplateData, 'NetworkInterfaces' | 'SecurityGroupIds'> {
  const publicIp = nc.associatePublicIPAddress;
  if (nc.networkInterfaces?.length) {
    return {
      NetworkInterfaces: nc.networkInterfaces.map((n) => ({
        NetworkCardIndex: n.networkCardIndex,
        DeviceIndex: n.deviceIndex,
        InterfaceType: n.interfaceType,
        Groups: sgs,
        ...(n.interfaceType === 'interface' && publicIp !== undefined ? { AssociatePublicIpAddress: publicIp } : {}),
      })),
    };
  }
  if (efaCount > 0) {
    return {
      NetworkInterfaces: Array.from({ length: efaCount }, (_, i) => ({
        NetworkCardIndex: i,
        DeviceIndex: i === 0 ? 0 : 1,
        InterfaceType: 'efa',
        Groups: sgs,
        ...(publicIp !== undefined ? { AssociatePublicIpAddress: publicIp } : {}),
      })),
    };
  }
  return publicIp !== undefined ? { NetworkInterfaces: [{ DeviceIndex: 0, AssociatePublicIpAddress: publicIp, Groups: sgs }] } : { SecurityGroupIds: sgs };
}

function launchTemplateName(data: RequestLaunchTemplateData, tags: Record<string, string>): string {
  const sortedTags = Object.entries(tags).sort(([a], [b]) => a.localeCompare(b));
  const hash = createHash('sha256')
    .update(JSON.stringify({ data, tags: sortedTags }))
    .digest('hex')
    .slice(0, 20);
  return `${LAUNCH_TEMPLATE_PREFIX}${hash}`;
}

/**
 * Creates launch templates on demand and reuses them: the name is a hash of the template's content, so an
 * existing template with that name is exactly the one wanted. Known names are remembered for `ttlMs`.
 */
export class LaunchTemplates {
  private readonly known = new Map<string, number>();

  constructor(
    private readonly ec2: EC2Client,
    private readonly now: () => number,
    private readonly ttlMs = 5 * 60_000,
  ) {}

  async nameFor(input: LaunchTemplateInput): Promise<string> {
    return launchTemplateName(launchTemplateData(input), input.tags);
  }

  async ensure(input: LaunchTemplateInput): Promise<string> {
    const data = launchTemplateData(input);
    const name = launchTemplateName(data, input.tags);
    const seen = this.known.get(name);
    if (seen !== undefined && this.now() - seen < this.ttlMs) return name;
    try {
      await this.ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: name,
          LaunchTemplateData: data,
          TagSpecifications: [{ ResourceType: 'launch-template', Tags: recordToTags(input.tags) }],
        }),
      );
    } catch (e) {
      if (awsErrorCode(e) !== 'InvalidLaunchTemplateName.AlreadyExistsException') throw mapAwsError(e, `CreateLaunchTemplate ${name}`);
    }
    this.known.set(name, this.now());
    return name;
  }

  /** Forget a template (after LaunchTemplateNotFound) so the next ensure() creates it again. */
  invalidate(name: string): void {
    this.known.delete(name);
  }

  /**
   * Deletes this cluster's launch templates (named `nodewright/…`, tagged with the cluster) whose node class no
   * longer exists, and those older than `maxAgeMs` (default 7 days: AMI and setting changes leave old content
   * hashes behind). Running instances do not need their template; one still wanted is recreated on the next
   * launch (a CreateFleet racing the deletion gets LaunchTemplateNotFound and recreates it once). Returns the names.
   */
  async collect(clusterName: string, liveClasses: ReadonlySet<string>, maxAgeMs = 7 * 24 * 3600_000): Promise<string[]> {
    const deleted: string[] = [];
    const pages = paginateDescribeLaunchTemplates({ client: this.ec2 }, { Filters: [{ Name: `tag:eks:eks-cluster-name`, Values: [clusterName] }] });
    for await (const page of pages) {
      for (const t of page.LaunchTemplates ?? []) {
        const name = t.LaunchTemplateName ?? '';
        if (!name.startsWith(LAUNCH_TEMPLATE_PREFIX)) continue;
        const tags = Object.fromEntries((t.Tags ?? []).map((x) => [x.Key ?? '', x.Value ?? '']));
        if (tags[`kubernetes.io/cluster/${clusterName}`] !== 'owned') continue;
        const cls = tags['karpenter.k8s.aws/ec2nodeclass'];
        const old = t.CreateTime !== undefined && this.now() - new Date(t.CreateTime).getTime() > maxAgeMs;
        if (cls !== undefined && liveClasses.has(cls) && !old) continue;
        try {
          await this.ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateName: name }));
        } catch (e) {
          if (!/NotFound/.test(awsErrorCode(e) ?? '')) throw mapAwsError(e, `DeleteLaunchTemplate ${name}`);
        }
        this.known.delete(name);
        deleted.push(name);
      }
    }
    return deleted;
  }
}
