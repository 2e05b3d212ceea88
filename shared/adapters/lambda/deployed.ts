/** A handler as deployed: wrapped by `lambdaHandler`, its dependencies built once per container by the composition root. */
import type { Dependencies } from '../dependencies';
import { lambdaHandler, type PlainHandler } from './handler';

export function deployedHandler<E, R>(functionKey: string, create: (deps: Dependencies) => PlainHandler<E, R>) {
  let built: PlainHandler<E, R> | undefined;
  return lambdaHandler<E, R>(functionKey, async (event, context) => {
    if (!built) {
      // Loaded lazily so tests of createHandler never load the AWS/Kubernetes adapters.
      const { dependencies } = await import('../dependencies');
      built = create(await dependencies());
    }
    return built(event, context);
  });
}
