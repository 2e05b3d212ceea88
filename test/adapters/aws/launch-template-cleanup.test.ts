/** Launch templates no longer used are deleted, scoped to this cluster's `nodewright/` templates. */
import { beforeEach, describe, expect, it } from 'vitest';
import { DeleteLaunchTemplateCommand, DescribeLaunchTemplatesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { mockClient } from 'aws-sdk-client-mock';
import { LaunchTemplates } from '../../../shared/adapters/aws/ec2/launch-templates';

const ec2 = mockClient(EC2Client);
beforeEach(() => ec2.reset());
const NOW = Date.UTC(2026, 0, 10);
const tags = (cls: string, cluster = 'prod') => [
  { Key: `kubernetes.io/cluster/${cluster}`, Value: 'owned' },
  { Key: 'eks:eks-cluster-name', Value: cluster },
  { Key: 'karpenter.k8s.aws/ec2nodeclass', Value: cls },
];

describe('launch template cleanup', () => {
  it('should delete the templates of deleted node classes and week-old ones, and keep the rest', async () => {
    // Prepare
    ec2.on(DescribeLaunchTemplatesCommand).resolves({
      LaunchTemplates: [
        { LaunchTemplateName: 'nodewright/live', Tags: tags('default'), CreateTime: new Date(NOW - 3600_000) },
        { LaunchTemplateName: 'nodewright/gone', Tags: tags('removed'), CreateTime: new Date(NOW - 3600_000) },
        { LaunchTemplateName: 'nodewright/old', Tags: tags('default'), CreateTime: new Date(NOW - 8 * 24 * 3600_000) },
        { LaunchTemplateName: 'karpenter.k8s.aws/123', Tags: tags('removed'), CreateTime: new Date(NOW - 3600_000) },
        { LaunchTemplateName: 'nodewright/other-cluster', Tags: tags('removed', 'staging'), CreateTime: new Date(NOW - 3600_000) },
      ],
    });
    ec2.on(DeleteLaunchTemplateCommand).resolves({});
    // Act
    const deleted = await new LaunchTemplates(new EC2Client({ region: 'eu-west-1' }), () => NOW).collect('prod', new Set(['default']));
    // Assess
    expect(deleted).toEqual(['nodewright/gone', 'nodewright/old']);
    expect(ec2.commandCalls(DescribeLaunchTemplatesCommand)[0].args[0].input.Filters).toEqual([{ Name: 'tag:eks:eks-cluster-name', Values: ['prod'] }]);
    expect(ec2.commandCalls(DeleteLaunchTemplateCommand).map((c) => c.args[0].input.LaunchTemplateName)).toEqual(['nodewright/gone', 'nodewright/old']);
  });
});
