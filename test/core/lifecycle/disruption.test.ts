import { describe, expect, it } from 'vitest';
import { launchReplacement, untaintCandidates, type DisruptionState } from '../../../shared/core/lifecycle';
import { fakes, nodeClaim } from '../../fakes/lifecycle';

const ANNOTATION = 'nodewright.io/disruption-id';

function ours(name: string, id: string) {
  const c = nodeClaim(name);
  c.annotations[ANNOTATION] = id;
  return c;
}

describe('replacements belong to their disruption', () => {
  it('should not adopt a claim another actor created between the read and the create (409 answered with the existing object)', async () => {
    // Prepare
    const f = fakes();
    const get = f.cluster.getNodeClaim.bind(f.cluster);
    f.cluster.getNodeClaim = async (name) => {
      const c = await get(name);
      f.cluster.claims.set('default-r0001', nodeClaim('default-r0001'));
      return c;
    };

    // Act
    const attempt = launchReplacement(f, { nodeClaim: ours('default-r0001', 'abcd1234'), disruptionId: 'abcd1234' });

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'NodeClaimConflictError', message: expect.stringMatching(/not created by disruption abcd1234/) });
    expect(f.workflows.started).toEqual([]);
  });

  it('should launch again a replacement this disruption created (a retried step)', async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-r0001', ours('default-r0001', 'abcd1234'));

    // Act
    const out = await launchReplacement(f, { nodeClaim: ours('default-r0001', 'abcd1234'), disruptionId: 'abcd1234' });

    // Assess
    expect(out).toEqual({ nodeClaimName: 'default-r0001' });
    expect(f.workflows.started.map((s) => s.name)).toEqual(['default-r0001']);
  });

  it('should refuse a replacement that ValidateDisruptInput did not mark', async () => {
    // Prepare
    const f = fakes();

    // Act
    const attempt = launchReplacement(f, { nodeClaim: nodeClaim('default-r0001'), disruptionId: 'abcd1234' });

    // Assess
    await expect(attempt).rejects.toMatchObject({ name: 'ExecutionInputInvalidError' });
    expect(f.cluster.writes).toEqual([]);
  });

  it("should roll back only the replacements carrying this disruption's annotation", async () => {
    // Prepare
    const f = fakes();
    f.cluster.claims.set('default-old01', nodeClaim('default-old01'));
    f.cluster.claims.set('default-r0001', ours('default-r0001', 'abcd1234'));
    f.cluster.claims.set('default-other', nodeClaim('default-other'));
    f.cluster.claims.set('default-r0003', ours('default-r0003', 'zzzz9999'));
    const state = {
      reason: 'Manual',
      candidates: [{ nodeClaimName: 'default-old01' }],
      disruptionId: 'abcd1234',
      deadlineMs: 0,
      pollSeconds: 10,
      replacements: [ours('default-r0001', 'abcd1234'), ours('default-other', 'abcd1234'), ours('default-r0003', 'abcd1234')],
    } as unknown as DisruptionState;

    // Act
    const out = await untaintCandidates(f, state, 'DeadlineExceededError');

    // Assess
    expect(out.rolledBack).toEqual(['default-r0001']);
    expect(f.workflows.started.map((s) => (s.input as { nodeClaimName: string }).nodeClaimName)).toEqual(['default-r0001']);
  });
});
