import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/adapters/config';

const env = {
  CLUSTER_NAME: 'demo',
  AWS_REGION: 'eu-west-1',
  STATE_TABLE_NAME: 'nodewright-dev-state',
  LAUNCH_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:nodewright-dev-launch',
  TERMINATE_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:nodewright-dev-terminate',
  DISRUPT_STATE_MACHINE_ARN: 'arn:aws:states:eu-west-1:123456789012:stateMachine:nodewright-dev-disrupt',
  INTERRUPTION_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/demo',
  NODE_ROLE_NAME: 'KarpenterNodeRole-demo',
};

describe('function configuration', () => {
  it('should read the provider environment of serverless.yml', () => {
    // Prepare
    const vars = { ...env, UNRELATED: 'x' };

    // Act
    const config = parseConfig(vars);

    // Assess
    expect(config).toEqual({
      clusterName: 'demo',
      region: 'eu-west-1',
      stateTableName: 'nodewright-dev-state',
      stateMachineArns: { launch: env.LAUNCH_STATE_MACHINE_ARN, terminate: env.TERMINATE_STATE_MACHINE_ARN, disrupt: env.DISRUPT_STATE_MACHINE_ARN },
      interruptionQueueUrl: env.INTERRUPTION_QUEUE_URL,
      nodeRoleName: 'KarpenterNodeRole-demo',
      functionNamePrefix: 'nodewright-dev-',
      karpenterMetrics: 'off',
      shadow: false,
      defaultSpread: [],
    });
  });

  it("should read Karpenter's SCHEDULER_CONFIG default topology spread, and refuse one kube-scheduler would refuse, naming the field", () => {
    const zone = { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' };
    expect(parseConfig({ ...env, SCHEDULER_CONFIG: JSON.stringify({ podTopologySpread: { defaultConstraints: [zone] } }) }).defaultSpread).toEqual([zone]);
    expect(parseConfig({ ...env, SCHEDULER_CONFIG: '' }).defaultSpread).toEqual([]);
    const bad = (c: unknown) => () => parseConfig({ ...env, SCHEDULER_CONFIG: JSON.stringify({ podTopologySpread: { defaultConstraints: c } }) });
    expect(bad([{ ...zone, maxSkew: 0 }])).toThrowError(
      /SCHEDULER_CONFIG: scheduler config podTopologySpread\.defaultConstraints\[0\]\.maxSkew: maxSkew must be greater than 0/,
    );
    expect(bad([{ ...zone, labelSelector: { matchLabels: { a: 'b' } } }])).toThrowError(/defaultConstraints\[0\]: Unrecognized key: "labelSelector"/);
    expect(bad([zone, zone])).toThrowError(/defaultConstraints\[1\] is a duplicate of \[0\]/);
    expect(bad([{ ...zone, whenUnsatisfiable: 'Sometimes' }])).toThrowError(/whenUnsatisfiable/);
    expect(() => parseConfig({ ...env, SCHEDULER_CONFIG: 'podTopologySpread: {defaultConstraints: [' })).toThrowError(/not YAML or JSON/);
  });

  it('should act in shadow mode only when the shadow parameter says true, and refuse another value naming the variable', () => {
    expect(parseConfig({ ...env, NODEWRIGHT_SHADOW: 'true' }).shadow).toBe(true);
    expect(parseConfig({ ...env, NODEWRIGHT_SHADOW: 'false' }).shadow).toBe(false);
    expect(() => parseConfig({ ...env, NODEWRIGHT_SHADOW: 'yes' })).toThrowError(/NODEWRIGHT_SHADOW: /);
  });

  it("should turn Karpenter's CloudWatch metrics on only when asked, and refuse another value naming the variable", () => {
    expect(parseConfig({ ...env, KARPENTER_METRICS: 'cloudwatch' }).karpenterMetrics).toBe('cloudwatch');
    expect(() => parseConfig({ ...env, KARPENTER_METRICS: 'prometheus' })).toThrowError(/KARPENTER_METRICS: /);
  });

  it('should name every missing or malformed variable at once', () => {
    // Prepare
    const vars = { ...env, CLUSTER_NAME: undefined, DISRUPT_STATE_MACHINE_ARN: 'nodewright-dev-disrupt' };

    // Act
    const read = () => parseConfig(vars);

    // Assess
    expect(read).toThrowError(
      expect.objectContaining({
        name: 'ConfigInvalidError',
        message: expect.stringMatching(/CLUSTER_NAME: .*; DISRUPT_STATE_MACHINE_ARN: must be the ARN of the disrupt state machine/),
      }),
    );
  });

  it("should word zod's own problems in English, as classic zod did (zod/mini has no messages of its own)", () => {
    // Prepare
    const vars = { ...env, STATE_TABLE_NAME: 'x', INTERRUPTION_QUEUE_URL: 'not a url' };

    // Act
    const read = () => parseConfig(vars);

    // Assess
    expect(read).toThrowError(
      expect.objectContaining({
        name: 'ConfigInvalidError',
        message:
          'nodewright function environment is invalid: STATE_TABLE_NAME: Too small: expected string to have >=3 characters; INTERRUPTION_QUEUE_URL: Invalid URL',
      }),
    );
  });
});
