/**
 * Pod affinity terms that select namespaces (kube's PodAffinityTerm: `namespaces` ∪ `namespaceSelector`; `{}` is
 * every namespace; neither is the pod's own), as kube-scheduler and Karpenter's topology read them.
 */
import { describe, expect, it } from 'vitest';
import type { Affinity, LabelSelector } from '../../../shared/core/model/kube';
import { NamespaceIndex } from '../../../shared/core/scheduling/namespaces';
import { pods } from '../../fixtures/builders';
import { plan } from './helpers';

const HOST = 'kubernetes.io/hostname';
const antiAcross = (namespaceSelector: LabelSelector): Affinity => ({
  podAntiAffinity: { required: [{ topologyKey: HOST, labelSelector: { matchLabels: { app: 'web' } }, namespaceSelector }] },
});

describe('the namespaces an affinity term reaches', () => {
  const index = new NamespaceIndex(
    [
      { name: 'shop', labels: { team: 'a' } },
      { name: 'pay', labels: { team: 'a' } },
      { name: 'ops', labels: { team: 'b' } },
    ],
    () => ['default', 'batch'],
  );
  it.each([
    ['neither: the pod own namespace', {}, ['shop']],
    ['a list only', { namespaces: ['ops'] }, ['ops']],
    ['a selector on labels', { namespaceSelector: { matchLabels: { team: 'a' } } }, ['pay', 'shop']],
    ['the union of both', { namespaces: ['ops'], namespaceSelector: { matchLabels: { team: 'a' } } }, ['ops', 'pay', 'shop']],
    [
      'the name label every namespace has, also for one only pods name',
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'batch' } } },
      ['batch'],
    ],
    ['a selector matching none', { namespaceSelector: { matchLabels: { team: 'z' } } }, []],
  ])('should read %s', (_what, term, expected) => {
    // Act
    const out = index.termNamespaces('shop', term);
    // Assess
    expect(out === 'all' ? 'all' : [...out].sort()).toEqual(expected);
  });

  it('should reach every namespace with an empty selector, whatever the list', () => {
    expect(index.termNamespaces('shop', { namespaces: ['ops'], namespaceSelector: {} })).toBe('all');
  });
});

describe('solving with a namespaceSelector', () => {
  it("should keep pods of two namespaces of one team apart under the team's hostname anti-affinity, and not those of another team", () => {
    // Prepare: a web pod in shop and one in pay (team a), each anti-affine to team a's web pods; a plain web pod in ops (team b)
    const namespaces = [
      { name: 'shop', labels: { team: 'a' } },
      { name: 'pay', labels: { team: 'a' } },
      { name: 'ops', labels: { team: 'b' } },
    ];
    const [shop, pay] = ['shop', 'pay'].map(
      (ns) => pods(1, { namespace: ns, cpu: '100m', labels: { app: 'web' }, affinity: antiAcross({ matchLabels: { team: 'a' } }) })[0],
    );
    const [ops] = pods(1, { namespace: 'ops', cpu: '100m', labels: { app: 'web' } });
    // Act
    const result = plan({ pods: [shop, pay, ops], namespaces });
    // Assess: shop and pay never share a node (their namespaces are team a's); ops's pod is outside the terms' reach
    const claimOf = (uid: string) => result.nodeClaims.findIndex((c) => c.pods.some((p) => p.uid === uid));
    expect(claimOf(shop.uid)).not.toBe(claimOf(pay.uid));
    expect(result.unschedulable).toEqual([]);
    expect(result.nodeClaims).toHaveLength(2);
    // …and without the Namespaces' labels the selector reaches no namespace: all three share one node
    expect(plan({ pods: [shop, pay, ops] }).nodeClaims).toHaveLength(1);
  });
});
