/** `--log-format` (issue #13 item 5): nodewright's log lines for people and for jq, in `simulate` and `sim serve`. */
import { describe, expect, it } from 'vitest';
import { formatLogLine } from '../../cli/log-lines';
import { runCli } from './run';

const launched = {
  t: 64,
  level: 'info',
  message: 'launched nodeclaim',
  fields: { function: 'launchNodeClaim', nodeclaim: 'default-7c7k3', 'instance-type': 'c6a.2xlarge', requests: { cpu: 5000 }, Pods: 'default/a, default/b' },
};

describe('formatLogLine', () => {
  it("should print a JSON object per line with level, simulated time, message and the record's fields", () => {
    // Act
    const line = formatLogLine(launched, 'json', Date.UTC(2025, 0, 6, 9));
    // Assess
    expect(JSON.parse(line)).toEqual({
      level: 'INFO',
      time: '2025-01-06T09:01:04.000Z',
      t: 64,
      message: 'launched nodeclaim',
      function: 'launchNodeClaim',
      nodeclaim: 'default-7c7k3',
      'instance-type': 'c6a.2xlarge',
      requests: { cpu: 5000 },
      Pods: 'default/a, default/b',
    });
  });

  it('should show the fields in the human format, quoting values with spaces', () => {
    expect(formatLogLine(launched, 'text')).toBe(
      '01:04  INFO   launched nodeclaim  function=launchNodeClaim nodeclaim=default-7c7k3 instance-type=c6a.2xlarge requests={"cpu":5000} Pods="default/a, default/b"',
    );
  });
});

describe('nodewright simulate --log-format json', () => {
  it('should write one JSON object per line to stderr and keep -o json on stdout', async () => {
    // Act
    const r = await runCli('simulate', 'examples/scenarios/walkthrough.yaml', '-o', 'json', '--log-format', 'json');
    // Assess
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout) as { scenario: { startedAt: string } };
    const lines = r.stderr
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.every((l) => typeof l.level === 'string' && typeof l.message === 'string' && typeof l.time === 'string')).toBe(true);
    const launch = lines.find((l) => l.message === 'launched nodeclaim')!;
    expect(launch).toMatchObject({ function: 'launchNodeClaim', nodepool: 'default', 'capacity-type': 'on-demand' });
    expect(Date.parse(launch.time as string)).toBe(Date.parse(summary.scenario.startedAt) + (launch.t as number) * 1000);
  }, 120_000);
});
