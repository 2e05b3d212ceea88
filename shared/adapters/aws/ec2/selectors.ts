import { paginateDescribeSecurityGroups, paginateDescribeSubnets, type EC2Client, type Filter } from '@aws-sdk/client-ec2';
import type { SelectorTerm } from '../../../core/model/karpenter';
import { mapAwsError } from '../errors';

export interface ResolvedSubnet {
  id: string;
  zone: string;
  zoneID?: string;
  availableIpAddressCount: number;
}

export interface ResolvedSecurityGroup {
  id: string;
  name?: string;
}

/** Tag selectors: `*` matches any value (tag-key filter), otherwise an exact tag:<key> match. */
export function tagFilters(tags: Record<string, string> | undefined): Filter[] {
  return Object.entries(tags ?? {}).map(([k, v]) => (v === '*' ? { Name: 'tag-key', Values: [k] } : { Name: `tag:${k}`, Values: [v] }));
}

function termFilters(term: SelectorTerm, idFilter: string, nameFilter?: string): Filter[] {
  const filters: Filter[] = [];
  if (term.id) filters.push({ Name: idFilter, Values: [term.id] });
  if (term.name && nameFilter) filters.push({ Name: nameFilter, Values: [term.name] });
  filters.push(...tagFilters(term.tags));
  return filters;
}

/** Subnets matching any term (terms ORed, fields within a term ANDed), de-duplicated, sorted by id. */
export async function resolveSubnets(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSubnet[]> {
  const byId = new Map<string, ResolvedSubnet>();
  for (const term of terms) {
    const filters = termFilters(term, 'subnet-id');
    if (filters.length === 0) continue;
    try {
      for await (const page of paginateDescribeSubnets({ client: ec2 }, { Filters: filters })) {
        for (const s of page.Subnets ?? []) {
          if (!s.SubnetId || !s.AvailabilityZone || s.State === 'pending') continue;
          byId.set(s.SubnetId, {
            id: s.SubnetId,
            zone: s.AvailabilityZone,
            zoneID: s.AvailabilityZoneId,
            availableIpAddressCount: s.AvailableIpAddressCount ?? 0,
          });
        }
      }
    } catch (e) {
      throw mapAwsError(e, 'DescribeSubnets');
    }
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** Security groups matching any term (id, name or tags). */
export async function resolveSecurityGroups(ec2: EC2Client, terms: SelectorTerm[]): Promise<ResolvedSecurityGroup[]> {
  const byId = new Map<string, ResolvedSecurityGroup>();
  for (const term of terms) {
    const filters = termFilters(term, 'group-id', 'group-name');
    if (filters.length === 0) continue;
    try {
      for await (const page of paginateDescribeSecurityGroups({ client: ec2 }, { Filters: filters })) {
        for (const g of page.SecurityGroups ?? []) if (g.GroupId) byId.set(g.GroupId, { id: g.GroupId, name: g.GroupName });
      }
    } catch (e) {
      throw mapAwsError(e, 'DescribeSecurityGroups');
    }
  }
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

/** One subnet per zone: the one with the most free addresses (ties: lowest id), as Karpenter picks. */
export function subnetPerZone(subnets: ResolvedSubnet[]): Map<string, ResolvedSubnet> {
  const out = new Map<string, ResolvedSubnet>();
  for (const s of subnets) {
    const cur = out.get(s.zone);
    if (!cur || s.availableIpAddressCount > cur.availableIpAddressCount) out.set(s.zone, s);
  }
  return out;
}

// Re-exported so tests can mock by command class.
