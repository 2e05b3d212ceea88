/** The fake API server validates custom resources against their CRD schemas, as a real one does (issue #13 item 3). */
import { describe, expect, it } from 'vitest';
import { createFakeKubeApi } from '../../../shared/sim/kube';
import { KubeApiStatusError } from '../../../shared/sim/kube/status';
import { nodePoolJson, T0 } from './fixtures';

describe('CRD schema validation in the fake API server', () => {
  const api = () => createFakeKubeApi({ clock: () => T0, token: 't' });
  const poolType = (a: ReturnType<typeof api>) => a.store.typeOf('karpenter.sh/v1', 'NodePool');

  it("should reject each invalid field with the API server's path and wording, and create nothing", () => {
    // Prepare
    const a = api();
    const bad = nodePoolJson('bad', { requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'Inn', values: ['spot'] }] });
    (bad.spec as { weight?: unknown }).weight = 0;
    // Act
    let error: unknown;
    try {
      a.store.create(poolType(a), undefined, bad);
    } catch (e) {
      error = e;
    }
    // Assess
    expect(error).toBeInstanceOf(KubeApiStatusError);
    const e = error as KubeApiStatusError;
    expect(e.code).toBe(422);
    expect(e.message).toBe(
      'NodePool.karpenter.sh "bad" is invalid: spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1, ' +
        'spec.template.spec.requirements[0].operator: Unsupported value: "Inn": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"',
    );
    expect(e.details?.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.weight', message: 'Invalid value: 0: spec.weight in body should be greater than or equal to 1' },
      expect.objectContaining({ reason: 'FieldValueNotSupported', field: 'spec.template.spec.requirements[0].operator' }),
    ]);
    expect(a.store.list(poolType(a)).items).toEqual([]);
  });

  it('should accept the getting-started NodePool, and reject a patch that breaks it', () => {
    // Prepare
    const a = api();
    a.store.create(poolType(a), undefined, nodePoolJson('default'));
    // Act / Assess
    expect(() =>
      a.store.patch(poolType(a), undefined, 'default', 'application/merge-patch+json', { spec: { template: { spec: { nodeClassRef: null } } } }),
    ).toThrow('NodePool.karpenter.sh "default" is invalid: spec.template.spec.nodeClassRef: Required value');
  });
});
