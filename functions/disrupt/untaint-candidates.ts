/** UntaintCandidates (disrupt rollback): untaint candidates and terminate replacements that were created. */
import { z } from 'zod';
import { untaintCandidates, type DisruptionState, type LifecycleDeps } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { parseStateInput } from '../../shared/adapters/lambda/state-input';
import { DisruptionStateSchema } from '../disrupt/check-replacements-ready';

const Input = DisruptionStateSchema.extend({ error: z.looseObject({ Error: z.string().optional(), Cause: z.string().optional() }).optional() });

export const createHandler = (deps: LifecycleDeps) => async (event: unknown) => {
  const input = parseStateInput('untaintCandidates', Input, event);
  return untaintCandidates(deps, input as unknown as DisruptionState, input.error?.Error);
};

export const handler = deployedHandler('untaintCandidates', createHandler);
