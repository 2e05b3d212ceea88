/**
 * What the simulated account pays for its instances (`cost` in the result; docs/simulator.md, "Billing").
 *
 * - Compute: per second from launch until terminated, at the instance's price (spot or on-demand), except from a
 *   StopInstances call until the next StartInstances (or the termination): EC2 bills an instance until it stops, and a
 *   stopping or stopped instance is not billed for compute (./ec2-stop-start.ts).
 * - EBS: each instance's volumes — the launch template's block device mappings, a 20 GiB gp3 root when none are known
 *   (AL2023's EC2NodeClass default) — per second from launch until terminated, running or stopped, at the volume type's
 *   list price per GB-month (us-east-1; other regions times the simulated Price List's regional factor), gp3's and
 *   io1/io2's provisioned IOPS and gp3's provisioned throughput above what is included.
 */
import type { LaunchTemplateBlockDeviceMappingRequest } from '@aws-sdk/client-ec2';
import { MONTH_SECONDS } from '../runtime/prices';
import { regionFactor } from './pricing';
import type { SimVolume } from './ec2-resources';
import type { Ec2World, SimInstance } from './ec2-world';

/** The root volume an instance is billed for when its launch template names none (Karpenter's AL2023 default). */
const DEFAULT_ROOT_VOLUME: SimVolume = { sizeGiB: 20, type: 'gp3' };

/** us-east-1 EBS list prices, $ per GB-month of provisioned size, by volume type. */
const GB_MONTH: Record<string, number> = { gp3: 0.08, gp2: 0.1, io1: 0.125, io2: 0.125, st1: 0.045, sc1: 0.015, standard: 0.05 };
/** gp3: 3,000 IOPS and 125 MiB/s included; more at $0.005 per IOPS-month and $0.04 per MiB/s-month. io1/io2: $0.065 per IOPS-month. */
const GP3_FREE = { iops: 3000, throughput: 125 } as const;
const PER_IOPS_MONTH: Record<string, number> = { gp3: 0.005, io1: 0.065, io2: 0.065 };
const GP3_PER_MIBPS_MONTH = 0.04;

/** The EBS volumes of a launch template's block device mappings (instance-store and NoDevice mappings left out). */
export function launchTemplateVolumes(mappings: readonly LaunchTemplateBlockDeviceMappingRequest[] | undefined): SimVolume[] | undefined {
  const volumes = (mappings ?? [])
    .filter((m) => m.Ebs !== undefined && m.NoDevice === undefined)
    .map((m) => ({
      sizeGiB: m.Ebs?.VolumeSize ?? DEFAULT_ROOT_VOLUME.sizeGiB,
      type: m.Ebs?.VolumeType ?? DEFAULT_ROOT_VOLUME.type,
      ...(m.Ebs?.Iops !== undefined ? { iops: m.Ebs.Iops } : {}),
      ...(m.Ebs?.Throughput !== undefined ? { throughput: m.Ebs.Throughput } : {}),
    }));
  return volumes.length ? volumes : undefined;
}

/** $ per month of one volume at us-east-1 list prices. */
function volumeUsdPerMonth(v: SimVolume): number {
  const iops = v.type === 'gp3' ? Math.max(0, (v.iops ?? 0) - GP3_FREE.iops) : (v.iops ?? 0);
  const throughput = v.type === 'gp3' ? Math.max(0, (v.throughput ?? 0) - GP3_FREE.throughput) : 0;
  return v.sizeGiB * (GB_MONTH[v.type] ?? GB_MONTH.gp3) + iops * (PER_IOPS_MONTH[v.type] ?? 0) + throughput * GP3_PER_MIBPS_MONTH;
}

/** $ per hour of the instance's volumes in the region. */
export function ebsUsdPerHour(i: SimInstance, region: string): number {
  const perMonth = (i.volumes?.length ? i.volumes : [DEFAULT_ROOT_VOLUME]).reduce((s, v) => s + volumeUsdPerMonth(v), 0);
  return (perMonth / (MONTH_SECONDS / 3600)) * regionFactor(region);
}

/** Milliseconds the instance has spent stopping or stopped (not billed for compute) up to `nowMs` or its termination. */
export function stoppedMsUntil(i: SimInstance, nowMs: number): number {
  const end = i.terminatedAtMs ?? nowMs;
  return (i.stoppedMs ?? 0) + (i.stoppedSinceMs !== undefined ? Math.max(0, end - i.stoppedSinceMs) : 0);
}

/** Compute so far of every instance: per second from launch until terminated, the stopped time left out. */
export function computeCostUntil(world: Ec2World, nowMs: number): number {
  let total = 0;
  for (const i of world.instances.values()) {
    const end = i.terminatedAtMs ?? nowMs;
    total += (Math.max(0, end - i.launchTimeMs - stoppedMsUntil(i, nowMs)) / 3_600_000) * i.pricePerHour;
  }
  return total;
}

/** $/h of compute now: the instances neither terminated nor stopped (stopping or stopped since a StopInstances). */
export function computePerHourNow(world: Ec2World): number {
  let total = 0;
  for (const i of world.instances.values()) if (i.state !== 'terminated' && i.stoppedSinceMs === undefined) total += i.pricePerHour;
  return total;
}

/** EBS so far of every instance: its volumes from launch until terminated, running or stopped. */
export function ebsCostUntil(world: Ec2World, nowMs: number): number {
  let total = 0;
  for (const i of world.instances.values()) {
    total += (Math.max(0, (i.terminatedAtMs ?? nowMs) - i.launchTimeMs) / 3_600_000) * ebsUsdPerHour(i, world.region);
  }
  return total;
}

/** $/h of EBS now: the volumes of every instance not terminated. */
export function ebsPerHourNow(world: Ec2World): number {
  let total = 0;
  for (const i of world.instances.values()) if (i.state !== 'terminated') total += ebsUsdPerHour(i, world.region);
  return total;
}
