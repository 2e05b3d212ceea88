import { DescribeImagesCommand, DescribeSecurityGroupsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { beforeEach, describe, expect, it } from 'vitest';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { aliasParameter, bottlerocketUserData, NodeClassResolver, resolveAmis, al2UserData, al2023UserData } from '../../../shared/adapters/aws/ec2';
import { isNodeClassNotReadyError } from '../../../shared/core/errors';
import { clusterInfo, ec2, nodeClass, resetAndMockNodeClassDiscovery, ssm, T0 } from './fixtures';

const clients = () => ({ ec2: new EC2Client({ region: 'us-east-1' }), ssm: new SSMClient({ region: 'us-east-1' }) });

describe('node class resolution', () => {
  beforeEach(() => resetAndMockNodeClassDiscovery());

  it('should turn selector terms into EC2 filters: * as tag-key, values as tag:<key>, ids and names', async () => {
    // Prepare
    const nc = nodeClass({
      subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo', tier: '*' } }, { id: 'subnet-b' }],
      securityGroupSelectorTerms: [{ name: 'eks-cluster-sg-demo' }],
    });
    const resolver = new NodeClassResolver({ ...clients(), now: () => T0, k8sVersion: async () => '1.31' });
    // Act
    const resolved = await resolver.resolve(nc);
    // Assess
    expect(ec2.commandCalls(DescribeSubnetsCommand).map((c) => c.args[0].input.Filters)).toEqual([
      [
        { Name: 'tag:karpenter.sh/discovery', Values: ['demo'] },
        { Name: 'tag-key', Values: ['tier'] },
      ],
      [{ Name: 'subnet-id', Values: ['subnet-b'] }],
    ]);
    expect(ec2.commandCalls(DescribeSecurityGroupsCommand)[0].args[0].input.Filters).toEqual([{ Name: 'group-name', Values: ['eks-cluster-sg-demo'] }]);
    expect(resolved.subnets.map((s) => s.id)).toEqual(['subnet-a', 'subnet-b']);
    expect(resolved.amis.map((a) => [a.id, a.arch])).toEqual([
      ['ami-arm', 'arm64'],
      ['ami-x86', 'amd64'],
    ]);
  });

  it('should read AL2023 alias AMIs from the public SSM parameters for both architectures', async () => {
    // Act
    await resolveAmis(clients(), [{ alias: 'al2023@latest' }], '1.31');
    // Assess
    expect(ssm.commandCalls(GetParameterCommand).map((c) => c.args[0].input.Name)).toEqual([
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/recommended/image_id',
      '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/recommended/image_id',
    ]);
  });

  it('should know the SSM parameter of each alias family and pinned version', () => {
    expect(aliasParameter('al2@latest', 'arm64', '1.30')).toBe('/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/recommended/image_id');
    expect(aliasParameter('bottlerocket@v1.20.4', 'amd64', '1.30')).toBe('/aws/service/bottlerocket/aws-k8s-1.30/x86_64/1.20.4/image_id');
    expect(aliasParameter('al2023@v20240625', 'amd64', '1.30')).toBe(
      '/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.30-v20240625/image_id',
    );
    expect(aliasParameter('windows2022@latest', 'amd64', '1.30')).toBe(
      '/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.30/image_id',
    );
    expect(aliasParameter('windows2022@latest', 'arm64', '1.30')).toBeUndefined();
    expect(aliasParameter('al2@latest', 'amd64', '1.30', 'nvidia')).toBe('/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/recommended/image_id');
    expect(aliasParameter('bottlerocket@latest', 'arm64', '1.30', 'nvidia')).toBe('/aws/service/bottlerocket/aws-k8s-1.30-nvidia/arm64/latest/image_id');
  });

  it('should search AMIs by name in self and amazon images, newest first, with their architecture', async () => {
    // Prepare
    ec2.on(DescribeImagesCommand).resolves({
      Images: [
        { ImageId: 'ami-old', Name: 'my-eks-node-1', Architecture: 'x86_64', CreationDate: '2026-01-01T00:00:00.000Z' },
        { ImageId: 'ami-new', Name: 'my-eks-node-2', Architecture: 'arm64', CreationDate: '2026-06-01T00:00:00.000Z' },
      ],
    });
    // Act
    const amis = await resolveAmis(clients(), [{ name: 'my-eks-node-*' }], '1.31');
    // Assess
    expect(ec2.commandCalls(DescribeImagesCommand)[0].args[0].input).toEqual({
      Filters: [
        { Name: 'name', Values: ['my-eks-node-*'] },
        { Name: 'state', Values: ['available'] },
      ],
      Owners: ['self', 'amazon'],
    });
    expect(amis.map((a) => [a.id, a.arch])).toEqual([
      ['ami-new', 'arm64'],
      ['ami-old', 'amd64'],
    ]);
  });

  it('should report a node class whose subnets match nothing as not ready, naming the field', async () => {
    // Prepare
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [] });
    const resolver = new NodeClassResolver({ ...clients(), now: () => T0, k8sVersion: async () => '1.31' });
    // Act
    const act = resolver.resolve(nodeClass());
    // Assess
    await expect(act).rejects.toSatisfy(isNodeClassNotReadyError);
    await expect(act).rejects.toThrow(/EC2NodeClass default: nothing matched subnetSelectorTerms/);
  });
});

describe('user data', () => {
  const base = {
    cluster: { name: 'demo', endpoint: clusterInfo.endpoint, certificateAuthority: 'Q0E=', serviceCidr: '10.100.0.0/16' },
    labels: { 'karpenter.sh/nodepool': 'general' },
    taints: [],
  };

  it('should write Bottlerocket TOML with the cluster, labels and the unregistered taint', () => {
    // Act
    const toml = parseToml(bottlerocketUserData({ ...base, amiFamily: 'Bottlerocket', kubelet: { maxPods: 110 } })) as {
      settings: { kubernetes: Record<string, unknown> };
    };
    // Assess
    expect(toml.settings.kubernetes).toMatchObject({
      'api-server': clusterInfo.endpoint,
      'cluster-name': 'demo',
      'max-pods': 110,
      'node-labels': { 'karpenter.sh/nodepool': 'general' },
      'node-taints': { 'karpenter.sh/unregistered': [':NoExecute'] },
    });
  });

  it("should merge the node class's Bottlerocket TOML instead of repeating [settings.kubernetes]: its settings and labels stay, the cluster connection is ours", () => {
    // Prepare
    const custom =
      '[settings.kubernetes]\ncluster-name = "someone-else"\nallowed-unsafe-sysctls = ["net.core.somaxconn"]\n\n[settings.kubernetes.node-labels]\nteam = "a"\n\n[settings.host-containers.admin]\nenabled = true\n';
    // Act
    const text = bottlerocketUserData({ ...base, amiFamily: 'Bottlerocket', custom });
    const toml = parseToml(text) as { settings: { kubernetes: Record<string, unknown>; 'host-containers': unknown } };
    // Assess: one [settings.kubernetes] table (the parse would fail on a repeated one), both sides' settings
    expect(text.match(/^\[settings\.kubernetes\]$/gm)).toHaveLength(1);
    expect(toml.settings.kubernetes).toMatchObject({
      'cluster-name': 'demo',
      'allowed-unsafe-sysctls': ['net.core.somaxconn'],
      'node-labels': { team: 'a', 'karpenter.sh/nodepool': 'general' },
    });
    expect(toml.settings['host-containers']).toEqual({ admin: { enabled: true } });
    expect(() => bottlerocketUserData({ ...base, amiFamily: 'Bottlerocket', custom: '[settings.kubernetes\nbroken' })).toThrow(
      /userData is not valid TOML for Bottlerocket/,
    );
  });

  it('should write kubeReserved, systemReserved, eviction and maxPods into the NodeConfig and Bottlerocket settings, so allocatable is what was planned', () => {
    // Prepare
    const kubelet = {
      maxPods: 58,
      kubeReserved: { cpu: 200, memory: 1073741824 },
      systemReserved: { cpu: 100, 'ephemeral-storage': 1073741824 },
      evictionHard: { 'memory.available': '5%' },
      evictionSoft: { 'nodefs.available': '15%' },
      evictionSoftGracePeriod: { 'nodefs.available': '1m' },
    };
    // Act
    const mime = al2023UserData({ ...base, amiFamily: 'AL2023', kubelet });
    const nodeConfig = parseYaml(mime.slice(mime.indexOf('apiVersion: node.eks.aws'), mime.lastIndexOf('--//'))) as {
      spec: { kubelet: { config: Record<string, unknown> } };
    };
    const br = (parseToml(bottlerocketUserData({ ...base, amiFamily: 'Bottlerocket', kubelet })) as { settings: { kubernetes: Record<string, unknown> } })
      .settings.kubernetes;
    // Assess
    expect(nodeConfig.spec.kubelet.config).toMatchObject({
      maxPods: 58,
      kubeReserved: { cpu: '200m', memory: '1Gi' },
      systemReserved: { cpu: '100m', 'ephemeral-storage': '1Gi' },
      evictionHard: { 'memory.available': '5%' },
      evictionSoft: { 'nodefs.available': '15%' },
      evictionSoftGracePeriod: { 'nodefs.available': '1m' },
    });
    expect(br).toMatchObject({
      'max-pods': 58,
      'kube-reserved': { cpu: '200m', memory: '1Gi' },
      'system-reserved': { cpu: '100m', 'ephemeral-storage': '1Gi' },
      'eviction-hard': { 'memory.available': '5%' },
    });
  });

  it('should not ask the kubelet for labels node admission refuses (kubernetes.io, k8s.io, node-restriction domains)', () => {
    // Prepare
    const labels = {
      'karpenter.sh/nodepool': 'general',
      'node-restriction.kubernetes.io/team': 'a',
      'kops.k8s.io/instancegroup': 'b',
      'kubernetes.io/custom': 'c',
      'example.com/ok': 'd',
    };
    // Act
    const mime = al2023UserData({ ...base, amiFamily: 'AL2023', labels });
    const br = (
      parseToml(bottlerocketUserData({ ...base, amiFamily: 'Bottlerocket', labels })) as { settings: { kubernetes: { 'node-labels': Record<string, string> } } }
    ).settings.kubernetes['node-labels'];
    // Assess
    expect(mime).toContain('--node-labels=example.com/ok=d,karpenter.sh/nodepool=general');
    expect(mime).not.toMatch(/kops\.k8s\.io|node-restriction|kubernetes\.io\/custom/);
    expect(br).toEqual({ 'example.com/ok': 'd', 'karpenter.sh/nodepool': 'general' });
  });

  it("should run bootstrap.sh on AL2 after the node class's own script", () => {
    // Act
    const mime = al2UserData({ ...base, amiFamily: 'AL2', custom: '#!/bin/bash\necho hello' });
    // Assess
    expect(mime.indexOf('echo hello')).toBeLessThan(mime.indexOf('/etc/eks/bootstrap.sh'));
    expect(mime).toContain("/etc/eks/bootstrap.sh 'demo'");
    expect(mime).toContain('--register-with-taints=karpenter.sh/unregistered:NoExecute');
  });
});
