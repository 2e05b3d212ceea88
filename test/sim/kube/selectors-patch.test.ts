import { describe, expect, it } from 'vitest';
import {
  applyPatch,
  jsonPatch,
  KubeApiStatusError,
  matchesLabelSelector,
  matchesStructuredSelector,
  mergePatch,
  parseLabelSelector,
} from '../../../shared/sim/kube';

describe('label selectors', () => {
  it('should match equality, set-based and existence requirements together', () => {
    // Prepare
    const sel = parseLabelSelector('app=web,tier in (front, edge),env notin (prod),!canary,zone');
    // Act
    const labelSets: Record<string, string>[] = [
      { app: 'web', tier: 'edge', env: 'dev', zone: 'a' },
      { app: 'web', tier: 'edge', env: 'prod', zone: 'a' },
      { app: 'web', tier: 'edge', zone: 'a', canary: 'true' },
      { app: 'web', tier: 'back', zone: 'a' },
      { app: 'web', tier: 'front' },
    ];
    const results = labelSets.map((l) => matchesLabelSelector(l, sel));
    // Assess
    expect(results).toEqual([true, false, false, false, false]);
  });

  it('should reject a malformed selector with 400 BadRequest', () => {
    // Act
    const act = () => parseLabelSelector('app in web');
    // Assess
    expect(act).toThrow(KubeApiStatusError);
  });

  it('should match structured selectors like PDBs use, and match nothing without a selector', () => {
    // Prepare
    const selector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['a', 'b'] },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    };
    // Act & Assess
    expect(matchesStructuredSelector({ app: 'web', tier: 'a' }, selector)).toBe(true);
    expect(matchesStructuredSelector({ app: 'web', tier: 'a', canary: 'x' }, selector)).toBe(false);
    expect(matchesStructuredSelector({ app: 'web' }, undefined)).toBe(false);
  });
});

describe('patches', () => {
  it('should merge objects, delete on null and replace arrays (RFC 7386)', () => {
    // Act
    const out = mergePatch({ a: { b: 1, c: 2 }, list: [1, 2], keep: true }, { a: { b: null, d: 3 }, list: [3] });
    // Assess
    expect(out).toEqual({ a: { c: 2, d: 3 }, list: [3], keep: true });
  });

  it('should apply add, replace, remove, move, copy and test operations (RFC 6902)', () => {
    // Act
    const out = jsonPatch({ a: [1, 2], b: { c: 'x' } }, [
      { op: 'add', path: '/a/-', value: 3 },
      { op: 'replace', path: '/b/c', value: 'y' },
      { op: 'copy', from: '/b/c', path: '/d' },
      { op: 'move', from: '/a/0', path: '/e' },
      { op: 'remove', path: '/b' },
      { op: 'test', path: '/d', value: 'y' },
      { op: 'add', path: '/f~1g', value: true },
    ]);
    // Assess
    expect(out).toEqual({ a: [2, 3], d: 'y', e: 1, 'f/g': true });
  });

  it('should answer 422 for a missing path and 415 for an unknown patch type', () => {
    // Act
    const missing = (() => {
      try {
        jsonPatch({}, [{ op: 'remove', path: '/nope' }]);
      } catch (e) {
        return e as KubeApiStatusError;
      }
    })();
    const unknown = (() => {
      try {
        applyPatch('application/apply-patch+yaml', {}, {});
      } catch (e) {
        return e as KubeApiStatusError;
      }
    })();
    // Assess
    expect(missing?.code).toBe(422);
    expect(unknown?.code).toBe(415);
  });
});
