/**
 * The tests' Task functions, derived rather than listed: a Task's function key names its function in
 * infra/functions/*.yml (the contract test holds state name, function key and file name to one name), whose
 * module exports `createHandler(deps)` beside the deployed `handler`. Each function is built on the given ports
 * the first time a Task invokes it.
 */
import type { LifecycleDeps, Planner } from '../../core/lifecycle';
import { deployedFunctions, loadExport } from '../runtime/functions';
import type { InvokeFunction } from './runner';

type CreateHandler = (deps: unknown) => (event: unknown) => Promise<unknown>;

class LocalFunctionMissingError extends Error {
  override readonly name = 'LocalFunctionMissingError' as const;
}

/** Invokes each function as its module's `createHandler(deps)` builds it (the provisioner needs `deps.planner`). */
export function localFunctions(deps: LifecycleDeps & { planner?: Planner }): InvokeFunction {
  const functions = deployedFunctions();
  const built = new Map<string, Promise<(event: unknown) => Promise<unknown>>>();
  const build = async (functionKey: string) => {
    const fn = functions.find((f) => f.key === functionKey);
    if (!fn) throw new LocalFunctionMissingError(`function "${functionKey}" is not declared in infra/functions`);
    return (await loadExport<CreateHandler>(fn, 'createHandler'))(deps);
  };
  return async (functionKey, payload) => {
    let handler = built.get(functionKey);
    if (!handler) {
      handler = build(functionKey);
      built.set(functionKey, handler);
    }
    return (await handler)(payload);
  };
}
