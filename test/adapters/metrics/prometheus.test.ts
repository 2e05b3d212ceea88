import { describe, expect, it } from 'vitest';
import { PrometheusMetricsRecorder } from '../../../shared/adapters/metrics/prometheus';
import { DURATION_BUCKETS } from '../../../shared/core/metrics/catalog';

/** The sample lines of the exposition (no comments, no blank lines). */
const samples = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
/** The sample lines of one metric family (the name itself or name_bucket/_sum/_count). */
const family = (text: string, name: string): string[] =>
  samples(text).filter((l) => l === name || l.startsWith(`${name}{`) || l.startsWith(`${name}_`) || l.startsWith(`${name} `));

describe('PrometheusMetricsRecorder', () => {
  it('should expose a counter in Prometheus text with HELP and TYPE lines and Karpenter names and labels', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    const labels = { reason: 'provisioned', nodepool: 'default', min_values_relaxed: 'false' };
    // Act
    recorder.count('karpenter_nodeclaims_created_total', labels);
    recorder.count('karpenter_nodeclaims_created_total', labels);
    const text = await recorder.text();
    // Assess
    expect(text).toContain('# HELP karpenter_nodeclaims_created_total Number of nodeclaims created in total by Karpenter.');
    expect(text).toContain('# TYPE karpenter_nodeclaims_created_total counter');
    expect(samples(text)).toContain('karpenter_nodeclaims_created_total{reason="provisioned",nodepool="default",min_values_relaxed="false"} 2');
  });

  it('should add a counter increment of more than one', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' }, 3);
    recorder.count('karpenter_interruption_received_messages_total', { message_type: 'spot_interrupted' });
    // Assess
    expect(samples(await recorder.text())).toContain('karpenter_interruption_received_messages_total{message_type="spot_interrupted"} 4');
  });

  it('should keep one series per distinct label set', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.count('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1a' });
    recorder.count('karpenter_nodes_created_total', { nodepool: 'default', zone: 'eu-west-1b' }, 2);
    // Assess
    expect(family(await recorder.text(), 'karpenter_nodes_created_total').sort()).toEqual([
      'karpenter_nodes_created_total{nodepool="default",zone="eu-west-1a"} 1',
      'karpenter_nodes_created_total{nodepool="default",zone="eu-west-1b"} 2',
    ]);
  });

  it('should expose a missing label as an empty string', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.count('karpenter_nodeclaims_disrupted_total', { reason: 'drifted', nodepool: 'default' });
    recorder.count('karpenter_interruption_received_messages_total');
    // Assess
    const text = await recorder.text();
    expect(samples(text)).toContain(
      'karpenter_nodeclaims_disrupted_total{reason="drifted",nodepool="default",capacity_type="",consolidation_policy="",termination_mode=""} 1',
    );
    expect(samples(text)).toContain('karpenter_interruption_received_messages_total{message_type=""} 1');
  });

  it('should ignore labels the metric does not have', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.gauge('karpenter_scheduler_queue_depth', { controller: 'provisioner', nodepool: 'default' }, 5);
    // Assess
    expect(family(await recorder.text(), 'karpenter_scheduler_queue_depth')).toEqual(['karpenter_scheduler_queue_depth{controller="provisioner"} 5']);
  });

  it('should expose a gauge without labels as a bare sample with its last value', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.gauge('karpenter_cluster_state_node_count', {}, 3);
    recorder.gauge('karpenter_cluster_state_node_count', {}, 2);
    const text = await recorder.text();
    // Assess
    expect(text).toContain('# TYPE karpenter_cluster_state_node_count gauge');
    expect(family(text, 'karpenter_cluster_state_node_count')).toEqual(['karpenter_cluster_state_node_count 2']);
  });

  it('should expose a histogram with Karpenter duration buckets up to 600 and +Inf, a sum and a count', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, 0.3);
    recorder.observe('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, 900);
    const text = await recorder.text();
    // Assess
    expect(text).toContain('# TYPE karpenter_scheduler_scheduling_duration_seconds histogram');
    const buckets = family(text, 'karpenter_scheduler_scheduling_duration_seconds').filter((l) => l.includes('_bucket{'));
    const le = buckets.map((l) => /le="([^"]+)"/.exec(l)?.[1]);
    expect(le).toEqual([...DURATION_BUCKETS.map(String), '+Inf']);
    expect(le[0]).toBe('0.005');
    expect(le.at(-2)).toBe('600');
    const lines = samples(text);
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_bucket{le="0.25",controller="provisioner"} 0');
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_bucket{le="0.3",controller="provisioner"} 1');
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_bucket{le="600",controller="provisioner"} 1');
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_bucket{le="+Inf",controller="provisioner"} 2');
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_sum{controller="provisioner"} 900.3');
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_count{controller="provisioner"} 2');
  });

  it('should expose a summary with Karpenter quantiles, a sum and a count', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    for (const v of [10, 20, 30]) recorder.observe('karpenter_nodes_termination_duration_seconds', { nodepool: 'default' }, v);
    const text = await recorder.text();
    // Assess
    expect(text).toContain('# TYPE karpenter_nodes_termination_duration_seconds summary');
    const quantiles = family(text, 'karpenter_nodes_termination_duration_seconds')
      .map((l) => /quantile="([^"]+)"/.exec(l)?.[1])
      .filter(Boolean);
    expect(quantiles).toEqual(['0', '0.5', '0.9', '0.99', '1']);
    const lines = samples(text);
    expect(lines).toContain('karpenter_nodes_termination_duration_seconds{quantile="0",nodepool="default"} 10');
    expect(lines).toContain('karpenter_nodes_termination_duration_seconds{quantile="0.99",nodepool="default"} 30');
    expect(lines).toContain('karpenter_nodes_termination_duration_seconds{quantile="1",nodepool="default"} 30');
    expect(lines).toContain('karpenter_nodes_termination_duration_seconds_sum{nodepool="default"} 60');
    expect(lines).toContain('karpenter_nodes_termination_duration_seconds_count{nodepool="default"} 3');
  });

  it('should replace the whole gauge on gaugeSet, so a node no longer in the set has no series', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    const node = (name: string) => ({
      node_name: name,
      nodepool: 'default',
      resource_type: 'cpu',
      zone: 'eu-west-1a',
      capacity_type: 'spot',
      instance_type: 'm5.large',
      arch: 'amd64',
    });
    recorder.gaugeSet('karpenter_nodes_allocatable', [
      { labels: node('ip-10-0-0-1'), value: 1.93 },
      { labels: node('ip-10-0-0-2'), value: 1.93 },
    ]);
    // Act
    recorder.gaugeSet('karpenter_nodes_allocatable', [{ labels: node('ip-10-0-0-1'), value: 1.5 }]);
    const text = await recorder.text();
    // Assess
    expect(text).not.toContain('ip-10-0-0-2');
    expect(family(text, 'karpenter_nodes_allocatable')).toEqual([
      'karpenter_nodes_allocatable{node_name="ip-10-0-0-1",nodepool="default",resource_type="cpu",zone="eu-west-1a",capacity_type="spot",instance_type="m5.large",arch="amd64"} 1.5',
    ]);
  });

  it('should keep every label Karpenter has, including per-node detail and non-cpu resources', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.gaugeSet('karpenter_nodes_allocatable', [{ labels: { node_name: 'ip-10-0-0-1', nodepool: 'default', resource_type: 'pods' }, value: 29 }]);
    // Assess
    expect(family(await recorder.text(), 'karpenter_nodes_allocatable')).toEqual([
      'karpenter_nodes_allocatable{node_name="ip-10-0-0-1",nodepool="default",resource_type="pods",zone="",capacity_type="",instance_type="",arch=""} 29',
    ]);
  });

  it('should leave a gauge set to nothing without series', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    recorder.gaugeSet('karpenter_nodepools_cost_total', [{ labels: { nodepool: 'default' }, value: 0.2 }]);
    // Act
    recorder.gaugeSet('karpenter_nodepools_cost_total', []);
    // Assess
    expect(family(await recorder.text(), 'karpenter_nodepools_cost_total')).toEqual([]);
  });

  it('should observe the duration of timed work and return its value', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    const out = await recorder.time('karpenter_scheduler_scheduling_duration_seconds', { controller: 'provisioner' }, async () => 'planned');
    // Assess
    expect(out).toBe('planned');
    const lines = samples(await recorder.text());
    expect(lines).toContain('karpenter_scheduler_scheduling_duration_seconds_count{controller="provisioner"} 1');
    const sum = Number(lines.find((l) => l.startsWith('karpenter_scheduler_scheduling_duration_seconds_sum'))?.split(' ')[1]);
    expect(sum).toBeGreaterThanOrEqual(0);
  });

  it('should expose nothing for metrics never recorded', async () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    recorder.count('karpenter_interruption_deleted_messages_total');
    const text = await recorder.text();
    // Assess
    expect(text).not.toContain('karpenter_nodeclaims_created_total');
    expect(samples(text)).toEqual(['karpenter_interruption_deleted_messages_total 1']);
  });

  it('should keep separate registries per recorder', async () => {
    // Prepare
    const a = new PrometheusMetricsRecorder();
    const b = new PrometheusMetricsRecorder();
    // Act
    a.count('karpenter_interruption_deleted_messages_total');
    // Assess
    expect(samples(await b.text())).toEqual([]);
    expect(samples(await a.text())).toEqual(['karpenter_interruption_deleted_messages_total 1']);
  });

  it('should advertise the Prometheus text content type', () => {
    // Prepare
    const recorder = new PrometheusMetricsRecorder();
    // Act
    const contentType = recorder.contentType;
    // Assess
    expect(contentType.startsWith('text/plain')).toBe(true);
  });
});
