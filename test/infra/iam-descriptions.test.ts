/**
 * IAM's own rules for role descriptions (CreateRole: `[\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]*`, at most
 * 1,000 characters): a description outside them rolls the whole stack back at deploy time.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const DIR = new URL('../../infra/resources/', import.meta.url);
const IAM_DESCRIPTION = /^[\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]*$/;

type Resource = { Type?: string; Properties?: { Description?: unknown } };

describe('IAM role descriptions', () => {
  const roles = readdirSync(DIR)
    .filter((f) => f.endsWith('.yml'))
    .flatMap((f) => {
      const doc = parse(readFileSync(new URL(f, DIR), 'utf8')) as { Resources?: Record<string, Resource> };
      return Object.entries(doc.Resources ?? {})
        .filter(([, r]) => r.Type === 'AWS::IAM::Role')
        .map(([name, r]) => ({ file: f, name, description: r.Properties?.Description }));
    });

  it('should find the roles', () => {
    expect(roles.length).toBeGreaterThan(20);
  });

  it('should use only the characters IAM accepts, within 1,000 characters (the deploy-time parameters included)', () => {
    for (const r of roles) {
      // ${param:clusterName} resolves to an EKS cluster name (ASCII, at most 100 characters).
      const resolved = String(r.description ?? '').replace(/\$\{param:clusterName\}/g, 'x'.repeat(100));
      expect(IAM_DESCRIPTION.test(resolved), `${r.file} ${r.name}: ${JSON.stringify(r.description)}`).toBe(true);
      expect(resolved.length, `${r.file} ${r.name}`).toBeLessThanOrEqual(1000);
    }
  });
});
