import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { isManifestValidationError, type ManifestValidationError } from '../../../shared/core/errors';

const ROOT = new URL('../../../', import.meta.url);

/** The YAML manifests the repository ships (examples/ and test/fixtures/manifests/), as repository paths. */
export function shippedManifests(): string[] {
  return ['examples/', 'test/fixtures/manifests/'].flatMap((dir) =>
    readdirSync(new URL(dir, ROOT))
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => `${dir}${f}`),
  );
}

/** A repository file's text. */
export function repoFile(path: string): string {
  return readFileSync(new URL(path, ROOT), 'utf8');
}

export function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url)), 'utf8');
}

/** Runs fn and returns the ManifestValidationError it throws (fails the test otherwise). */
export function validationError(fn: () => unknown): ManifestValidationError {
  try {
    fn();
  } catch (e) {
    if (isManifestValidationError(e)) return e;
    throw e;
  }
  expect.fail('expected a ManifestValidationError');
}

type Json = Record<string, unknown>;

/** A valid karpenter.sh/v1 NodePool; `edit` mutates a deep copy. */
export function nodePoolJson(edit: (np: { spec: Json & { template: { metadata: Json; spec: Json } } }) => void = () => {}): Json {
  const np = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { name: 'default' },
    spec: {
      template: {
        metadata: {},
        spec: {
          requirements: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] }],
          nodeClassRef: { group: 'karpenter.k8s.aws', kind: 'EC2NodeClass', name: 'default' },
        } as Json,
      },
    } as Json & { template: { metadata: Json; spec: Json } },
  };
  edit(np);
  return np;
}

/** A valid karpenter.k8s.aws/v1 EC2NodeClass; `edit` mutates a deep copy. */
export function nodeClassJson(edit: (spec: Json) => void = () => {}): Json {
  const spec: Json = {
    role: 'KarpenterNodeRole-demo',
    amiSelectorTerms: [{ alias: 'al2023@latest' }],
    subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
    securityGroupSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }],
  };
  edit(spec);
  return { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata: { name: 'default' }, spec };
}
