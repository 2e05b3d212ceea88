/**
 * A handler as deployed: wrapped by `lambdaHandler`, composed per function of only the parts its use case takes
 * (shared/adapters/compose/parts), built once per container. A Task that only drains imports no EC2 client and
 * no instance-type catalog, so its bundle and cold start carry neither.
 */
import { base, type Base, type Part } from '../compose/base';
import { inContainer } from '../compose/container';
import { lambdaHandler, type PlainHandler } from './handler';

type Parts = Record<string, Part<unknown>>;
/** The base plus each named part, built. */
export type Composed<P extends Parts> = Base & { [K in keyof P]: P[K] extends Part<infer T> ? T : never };

export function deployedHandler<P extends Parts, E, R>(
  functionKey: string,
  parts: P,
  create: (deps: Composed<P>) => PlainHandler<E, R>,
  opts: { metricsEveryMs?: number } = {},
) {
  return lambdaHandler<E, R>(functionKey, async (event, context) => {
    const { deps, handler } = await inContainer(`handler:${functionKey}`, async () => {
      const b = await base(opts);
      const names = Object.keys(parts);
      const built = await Promise.all(names.map((name) => (parts[name] as Part<unknown>)(b)));
      const deps = { ...b, ...Object.fromEntries(names.map((name, i) => [name, built[i]])) } as Composed<P>;
      return { deps, handler: create(deps) };
    });
    try {
      return await handler(event, context);
    } finally {
      deps.flushMetrics();
    }
  });
}
