/**
 * What a Lambda container keeps between invocations: the dependencies its function was composed of, built on
 * first use. A deployed Lambda is one container per process; the simulator runs many in one process (its
 * `containerKey` override names the sandbox) and forgets them when it reclaims a sandbox or binds a new world.
 * A build that fails is forgotten, so the next invocation tries again.
 */
import { dependencyOverrides } from '../overrides';

const containers = new Map<string, { generation: number; built: Map<string, Promise<unknown>> }>();

/** `build()` once per container under `name`. */
export function inContainer<T>(name: string, build: () => Promise<T>): Promise<T> {
  const { generation, overrides } = dependencyOverrides();
  const key = overrides.containerKey?.() ?? '';
  let container = containers.get(key);
  if (!container || container.generation !== generation) {
    if (container) containers.clear(); // a new world: every container of the previous one is gone
    containers.set(key, (container = { generation, built: new Map() }));
  }
  const { built } = container;
  let value = built.get(name) as Promise<T> | undefined;
  if (!value) {
    const building = build();
    built.set(name, (value = building));
    building.catch(() => {
      if (built.get(name) === building) built.delete(name);
    });
  }
  return value;
}

/** Forgets one container (the simulator reclaims idle sandboxes). A deployed Lambda never calls this. */
export function forgetContainer(key: string): void {
  containers.delete(key);
}
