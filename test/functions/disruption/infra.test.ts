/**
 * The disruption function's infra fragments, read as serverless.yml includes them (YAML with `${…}`
 * Serverless variables left unresolved). The packaged template is checked by test/infra/package.test.ts.
 */
import { deployedFunctions } from '../../../shared/sim/runtime/functions';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const read = (path: string): Doc => parse(readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8'));

const fn: Doc = read('infra/functions/disruption.yml').disruption;
const role: Doc = read('infra/resources/iam-disruption.yml').Resources.DisruptionRole;
/** A policy written as a JSON string (Fn::Join, for a condition key holding the cluster name), read as the statements it joins to. */
const joined = (doc: Doc): Doc[] => JSON.parse((doc['Fn::Join'][1] as unknown[]).map((part) => (typeof part === 'string' ? part : 'X')).join('')).Statement;
const statements = (): Doc[] => role.Properties.Policies.flatMap((p: Doc) => p.PolicyDocument.Statement ?? joined(p.PolicyDocument));
const actions = (): string[] => statements().flatMap((s) => [s.Action].flat());

describe('disruption function infra', () => {
  it('should run when the controller invokes it (no schedule of its own), never twice at once, with its own role', () => {
    // Assess
    expect(fn).toMatchObject({ handler: 'functions/disruption/disruption.handler', role: 'DisruptionRole' });
    expect(deployedFunctions().find((f) => f.key === 'disruption')?.reservedConcurrency).toBe(1);
    expect(fn.events).toBeUndefined();
    expect(fn.timeout).toBeGreaterThanOrEqual(50 + 15);
    expect(fn.timeout).toBeLessThanOrEqual(900);
  });

  it('should start only disrupt and terminate executions', () => {
    // Act
    const start = statements().filter((s) => [s.Action].flat().includes('states:StartExecution'));

    // Assess
    expect(start).toHaveLength(1);
    expect(start[0].Resource).toEqual(['${self:provider.environment.DISRUPT_STATE_MACHINE_ARN}', '${self:provider.environment.TERMINATE_STATE_MACHINE_ARN}']);
  });

  it("should reboot only instances of this cluster's NodePools (node repair), and write nothing else in EC2, no PassRole, no variable in a policy key", () => {
    // Act
    const all = actions();
    const keys = JSON.stringify(
      statements().map((s) => Object.keys(s.Condition ?? {}).concat(...Object.values(s.Condition ?? {}).map((c) => Object.keys(c as Doc)))),
    );

    // Assess
    expect(all.filter((a) => a.startsWith('ec2:') && !a.startsWith('ec2:Describe'))).toEqual(['ec2:RebootInstances']);
    const reboot = statements().find((x) => x.Action === 'ec2:RebootInstances');
    expect(reboot?.Condition).toEqual({
      StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/${param:clusterName}': 'owned' },
      StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    });
    expect(all).not.toContain('iam:PassRole');
    expect(all).toEqual(expect.arrayContaining(['ec2:DescribeInstances', 'ec2:DescribeImages', 'eks:DescribeCluster', 'dynamodb:PutItem', 'dynamodb:Query']));
    // The cluster name in the reboot policy's key is resolved at package time: that policy is a JSON string, not YAML keys.
    expect(keys.replace('aws:ResourceTag/kubernetes.io/cluster/${param:clusterName}', '')).not.toContain('${');
  });
});
