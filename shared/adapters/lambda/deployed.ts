/** A handler as deployed: wrapped by `lambdaHandler`, its dependencies built once per container by the composition root. */
import type { Dependencies } from '../dependencies';
import { lambdaHandler, type PlainHandler } from './handler';

export function deployedHandler<E, R>(functionKey: string, create: (deps: Dependencies) => PlainHandler<E, R>) {
  let built: { deps: Dependencies; handler: PlainHandler<E, R> } | undefined;
  return lambdaHandler<E, R>(functionKey, async (event, context) => {
    // Loaded lazily so tests of createHandler never load the AWS/Kubernetes adapters.
    const { dependencies } = await import('../dependencies');
    const deps = await dependencies();
    // Built once per container; again only if the dependencies were rebuilt (resetDependencies, the simulator).
    if (built?.deps !== deps) built = { deps, handler: create(deps) };
    try {
      return await built.handler(event, context);
    } finally {
      deps.flushMetrics();
    }
  });
}
