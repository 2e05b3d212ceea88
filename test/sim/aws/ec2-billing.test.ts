/**
 * What the simulated account pays for its instances (shared/sim/aws/ec2-billing.ts): EBS volumes from the launch
 * template's block device mappings, and their prices (a scenario's `cost`: test/sim/instance-cost.test.ts).
 */
import { CreateFleetCommand, CreateLaunchTemplateCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../../shared/catalog';
import { VirtualClock } from '../../../shared/sim/clock';
import { DynamoTable } from '../../../shared/sim/aws/dynamo-table';
import { Ec2World, type SimInstance } from '../../../shared/sim/aws/ec2-world';
import { ebsUsdPerHour, launchTemplateVolumes } from '../../../shared/sim/aws/ec2-billing';
import { installSimulatedAws } from '../../../shared/sim/aws/services';

const HOURS_PER_MONTH = 720;

describe('EBS billing of simulated instances', () => {
  const instance = (volumes?: SimInstance['volumes']) => ({ ...(volumes ? { volumes } : {}) }) as SimInstance;

  it('should bill an instance without known volumes a 20 GiB gp3 root, and others by their type, size, IOPS and throughput', () => {
    // Act / Assess
    expect(ebsUsdPerHour(instance(), 'us-east-1')).toBeCloseTo((20 * 0.08) / HOURS_PER_MONTH, 12);
    expect(ebsUsdPerHour(instance([{ sizeGiB: 100, type: 'gp2' }]), 'us-east-1')).toBeCloseTo(10 / HOURS_PER_MONTH, 12);
    // gp3 above its included 3,000 IOPS and 125 MiB/s: $0.005 per IOPS-month, $0.04 per MiB/s-month
    const gp3 = { sizeGiB: 50, type: 'gp3', iops: 4000, throughput: 250 };
    expect(ebsUsdPerHour(instance([gp3]), 'us-east-1')).toBeCloseTo((50 * 0.08 + 1000 * 0.005 + 125 * 0.04) / HOURS_PER_MONTH, 12);
    // Bottlerocket's two volumes, in a region without its own prices: the simulated Price List's factor
    const bottlerocket = [
      { sizeGiB: 4, type: 'gp3' },
      { sizeGiB: 20, type: 'gp3' },
    ];
    expect(ebsUsdPerHour(instance(bottlerocket), 'eu-west-1')).toBeCloseTo(((24 * 0.08) / HOURS_PER_MONTH) * 1.115, 12);
  });

  it('should read the EBS volumes of block device mappings, leaving out instance-store and NoDevice ones', () => {
    // Act
    const volumes = launchTemplateVolumes([
      { DeviceName: '/dev/xvda', Ebs: { VolumeSize: 80, VolumeType: 'gp3', Iops: 3000, Throughput: 125 } },
      { DeviceName: '/dev/xvdb', Ebs: {} },
      { DeviceName: '/dev/sdc', VirtualName: 'ephemeral0' },
      { DeviceName: '/dev/sdd', NoDevice: '' },
    ]);
    // Assess
    expect(volumes).toEqual([
      { sizeGiB: 80, type: 'gp3', iops: 3000, throughput: 125 },
      { sizeGiB: 20, type: 'gp3' },
    ]);
    expect(launchTemplateVolumes([])).toBeUndefined();
  });

  describe('through the AWS SDK', () => {
    let world: Ec2World;
    let restore: () => void;
    const ec2 = new EC2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

    beforeEach(() => {
      world = new Ec2World({
        region: 'us-east-1',
        zones: ['us-east-1a'],
        clusterName: 'sim',
        seed: 1,
        clock: new VirtualClock(Date.UTC(2025, 0, 1)),
        catalog: loadCatalog(),
      });
      restore = installSimulatedAws(() => ({
        world,
        table: new DynamoTable(),
        cluster: { name: 'sim', endpoint: 'https://127.0.0.1:1', caData: '', version: '1.31' },
        stepFunctions: {
          start: () => {
            throw new Error('unused');
          },
          describe: () => undefined,
        },
      }));
    });

    afterEach(() => restore());

    it("should give an instance its launch template's volumes", async () => {
      // Prepare
      await ec2.send(
        new CreateLaunchTemplateCommand({
          LaunchTemplateName: 'big-root',
          LaunchTemplateData: { ImageId: 'ami-1', BlockDeviceMappings: [{ DeviceName: '/dev/xvda', Ebs: { VolumeSize: 200, VolumeType: 'gp3' } }] },
        }),
      );
      // Act
      const fleet = await ec2.send(
        new CreateFleetCommand({
          Type: 'instant',
          TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
          LaunchTemplateConfigs: [
            {
              LaunchTemplateSpecification: { LaunchTemplateName: 'big-root', Version: '$Latest' },
              Overrides: [{ InstanceType: 'm5.large', SubnetId: world.subnets[0].id }],
            },
          ],
        }),
      );
      // Assess
      const i = world.instances.get(fleet.Instances?.[0]?.InstanceIds?.[0] ?? '');
      expect(i?.volumes).toEqual([{ sizeGiB: 200, type: 'gp3' }]);
      expect(ebsUsdPerHour(i!, world.region)).toBeCloseTo((200 * 0.08) / HOURS_PER_MONTH, 12);
    });
  });
});
