/**
 * The simulator's API server enforces infra/kubernetes/rbac.yaml for nodewright's functions (their EKS token):
 * a call the ClusterRole does not grant is answered 403 Forbidden as on EKS, so the next omission from the role
 * fails in the simulator instead of in a user's cluster. kubectl (any other identity) stays cluster admin.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { resolve } from 'node:path';
import { KubeClusterClient } from '../../../shared/adapters/kubernetes/cluster-client';
import { kubeConfigForServer } from '../../../shared/adapters/kubernetes/config';
import { clusterRoleRules, type RbacRule } from '../../../shared/sim/kube/rbac';
import { REPO_ROOT } from '../../../shared/sim/runtime/functions';
import { startHarness, type Harness } from './fixtures';

const EKS_TOKEN = 'k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8';

describe('RBAC on the simulated API server', () => {
  let h: Harness;
  afterEach(async () => h?.close());

  async function functionsClient(rules: RbacRule[]) {
    h = await startHarness(EKS_TOKEN);
    h.api.rbacRules = rules;
    return new KubeClusterClient(kubeConfigForServer({ server: h.server.url, token: EKS_TOKEN }));
  }

  it('should let the functions read the whole cluster with the ClusterRole users apply', async () => {
    // Prepare
    const client = await functionsClient(clusterRoleRules(resolve(REPO_ROOT, 'infra/kubernetes/rbac.yaml')));
    // Act / Assess
    await expect(client.snapshot()).resolves.toMatchObject({ pods: [], nodes: [] });
  });

  it('should answer 403 Forbidden, naming verb, resource and group, when the role lacks a verb the code uses', async () => {
    // Prepare: the same role without `list` on priorityclasses (the omission the first deploy guide had)
    const rules = clusterRoleRules(resolve(REPO_ROOT, 'infra/kubernetes/rbac.yaml')).filter((r) => !r.resources.includes('priorityclasses'));
    const client = await functionsClient(rules);
    // Act
    const act = client.snapshot();
    // Assess
    await expect(act).rejects.toMatchObject({ code: 403 });
    await expect(act).rejects.toMatchObject({
      body: expect.stringContaining(
        String.raw`priorityclasses is forbidden: User \"nodewright\" cannot list resource \"priorityclasses\" in API group \"scheduling.k8s.io\" at the cluster scope`,
      ),
    });
  });

  it('should leave other identities (kubectl on sim serve) as cluster admin', async () => {
    // Prepare
    h = await startHarness('admin-token');
    h.api.rbacRules = [];
    // Act / Assess
    await expect(h.core.listNode()).resolves.toMatchObject({ items: [] });
  });
});
