/** EvictPods: one drain pass (4 tiers, PDB-aware, do-not-disrupt waits, TGP deadline deletes). */
import { DrainingSchema, evictPods, parseStateInput, type DrainDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';

export const createHandler = (deps: DrainDeps) => async (event: unknown) => evictPods(deps, parseStateInput('evictPods', DrainingSchema, event));

export const handler = deployedHandler('evictPods', { cluster }, createHandler);
