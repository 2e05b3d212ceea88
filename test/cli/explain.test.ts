import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './run';

const run = runCli;

describe('nodewright explain', () => {
  afterEach(() => vi.restoreAllMocks());

  it('should say where each pod goes and, for a pending pod, which NodePool check fails', async () => {
    // Act
    const r = await run('explain', '-f', 'examples/inflate.yaml', '-f', 'test/fixtures/manifests/unschedulable-pods.yaml');
    // Assess
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/default\/inflate-0: scheduled on new node #1 \(nodepool default, c6a\.2xlarge on-demand/);
    expect(r.stdout).toMatch(/default\/huge: stays pending/);
    expect(r.stdout).toMatch(/✗ resources: none fits the pod's requests \{"cpu":"500"/);
    expect(r.stdout).toMatch(/default\/gpu: stays pending[\s\S]*✗ instance types for the pod: 0 instance types satisfy the combined requirements/);
  });

  it('should explain a single pod and refuse an unknown one with exit code 2', async () => {
    const one = await run('explain', '-f', 'examples/inflate.yaml', '--pod', 'default/inflate-3');
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^default\/inflate-3: scheduled on new node/);
    expect(one.stdout).toMatch(/nodepool default: could launch a node for this pod on its own/);
    const missing = await run('explain', '-f', 'examples/inflate.yaml', '--pod', 'default/nope');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/pod default\/nope is not a pending pod/);
  });

  it('should warn once per pre-v1 annotation key seen, naming the v1 key (plan and explain)', async () => {
    for (const cmd of ['explain', 'plan']) {
      // Act
      const r = await run(cmd, '-f', 'test/fixtures/manifests/legacy-annotations.yaml');
      // Assess
      expect(r.code).toBe(0);
      const lines = r.stderr.split('\n').filter((l) => /do-not-(evict|consolidate) is deprecated/.test(l));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^warning: karpenter\.sh\/do-not-evict is deprecated.*use karpenter\.sh\/do-not-disrupt: "true" on the pod/);
      expect(lines[1]).toMatch(
        /^warning: karpenter\.sh\/do-not-consolidate is deprecated.*consolidation.*not drift or expiration.*karpenter\.sh\/do-not-disrupt/,
      );
    }
  });
});
