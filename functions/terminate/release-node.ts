/** ReleaseNode (terminate's compensation): untaint the node of a termination that failed for good; audit why. */
import * as z from '../../shared/core/zod';
import { releaseNode, type LifecycleDeps, type TerminationTarget } from '../../shared/core/lifecycle';
import { deployedHandler } from '../../shared/adapters/lambda/deployed';
import { cluster } from '../../shared/adapters/compose/parts/cluster';
import { store } from '../../shared/adapters/compose/parts/store';
import { parseStateInput, TargetSchema } from '../../shared/adapters/lambda/state-input';

const ErrorField = z.looseObject({ error: z.optional(z.looseObject({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })) });

export const createHandler = (deps: Pick<LifecycleDeps, 'clock' | 'cluster' | 'log' | 'store'>) => async (event: unknown) => {
  const target = parseStateInput('releaseNode', TargetSchema, event) as TerminationTarget;
  const error = ErrorField.safeParse(event).data?.error;
  const failure = `${error?.Error ?? 'unknown'}${error?.Cause ? `: ${error.Cause.slice(0, 300)}` : ''}`;
  return releaseNode(deps, target, failure);
};

export const handler = deployedHandler('releaseNode', { cluster, store }, createHandler);
