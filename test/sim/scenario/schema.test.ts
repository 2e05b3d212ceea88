import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../../shared/sim';

const OBJECTS = `objects: |
  apiVersion: apps/v1
  kind: Deployment
  metadata: {name: inflate}
  spec:
    replicas: 0
    selector: {matchLabels: {app: inflate}}
    template:
      metadata: {labels: {app: inflate}}
      spec:
        containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]
`;

describe('parseScenario', () => {
  it('should read durations, defaults and events sorted by time', () => {
    // Act
    const s = parseScenario(
      `name: t\nseed: 4\nregion: us-west-2\nduration: 1h30m\n${OBJECTS}events:\n  - at: 10m\n    scale: {deployment: default/inflate, replicas: 0}\n  - at: 90s\n    scale: {deployment: inflate, replicas: 5}\n  - at: 2m\n    unavailable: {instanceType: m5.large, capacityType: spot, for: 10m}\n`,
      'scenario.yaml',
    );
    // Assess
    expect(s).toMatchObject({
      name: 't',
      seed: 4,
      region: 'us-west-2',
      zones: ['us-west-2a', 'us-west-2b', 'us-west-2c'],
      durationSeconds: 5400,
      settings: { nodeStartupSeconds: 35 },
    });
    expect(s.objects.map((o) => o.kind)).toEqual(['Deployment']);
    expect(s.events.map((e) => e.at)).toEqual([90, 120, 600]);
    expect(s.events[1].unavailable).toEqual({ instanceType: 'm5.large', capacityType: 'spot', for: 600 });
    expect(s.settings.capacity).toEqual([]);
  });

  it.each([
    ['name: t\nduration: soon\n', 'duration: "soon" is not a duration'],
    ['name: t\nevents:\n  - at: 1m\n', 'events.0: each event needs exactly one of'],
    ['name: t\nevents:\n  - at: 1m\n    interrupt: {node: any, kind: meteor}\n', 'events.0.interrupt.kind'],
    ['name: t\nevents:\n  - at: 1m\n    interrupt: {node: any, count: 0}\n', 'events.0.interrupt.count'],
    ['name: t\nevents:\n  - at: 1m\n    scale: {deployment: inflate, replicas: -1}\n', 'events.0.scale.replicas'],
    [
      'name: t\nevents:\n  - at: 1m\n    unhealthy: {node: any, condition: DiskBroken}\n',
      'events.0.unhealthy.condition: Invalid option: expected one of "Ready"|"KernelReady"',
    ],
    ['name: t\nevents:\n  - at: 1m\n    unhealthy: {node: any}\n', 'events.0.unhealthy.condition'],
    ['name: t\nevents:\n  - at: 1m\n    unhealthy: {condition: AcceleratedHardwareReady}\n', 'events.0.unhealthy.condition'],
    [
      'name: t\nevents:\n  - at: 1m\n    unhealthy: {condition: KernelReady, fixedBy: restart}\n',
      'events.0.unhealthy.fixedBy: Invalid option: expected one of "reboot"|"replace"',
    ],
    ['name: t\nevents:\n  - at: 1m\n    unhealthy: {condition: KernelReady, fixedby: reboot}\n', 'events.0.unhealthy: Unrecognized key: "fixedby"'],
    ['name: t\nevents:\n  - at: 1m\n    unhealthy: {condition: Ready, count: 0}\n', 'events.0.unhealthy.count'],
    ['name: t\nduration: 5m\nevents:\n  - at: 10m\n    scale: {deployment: inflate, replicas: 1}\n', 'events.0.at: 600s is after the end'],
    ['name: t\nregion: us-east-1\nzones: [eu-west-1a]\n', 'zones: eu-west-1a is not in region us-east-1'],
    ['seed: 1\n', 'name:'],
    [
      'name: t\nobjects: |\n  apiVersion: karpenter.sh/v1\n  kind: NodePool\n  metadata: {name: bad}\n  spec: {template: {spec: {nodeClassRef: 3}}}\n',
      'objects:',
    ],
    ['name: [unclosed\n', 'invalid YAML'],
    ['name: t\nduration: 100000h\n', 'duration: at most 168h'],
    ['name: t\nduration: 1000000000\n', 'duration: at most 168h'],
    ['name: t\nevents:\n  - at: 1m\n    scale: {deployment: inflate, replicas: 1000000000}\n', 'events.0.scale.replicas: replicas must be at most 100000'],
    [
      'name: t\nx: &a [1,1,1,1,1,1,1,1,1,1]\ny: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nz: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nw: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n',
      'invalid YAML',
    ],
  ])('should refuse %j naming the field', (text, message) => {
    // Act / Assess
    expect(() => parseScenario(text, 'bad.yaml')).toThrow(expect.objectContaining({ name: 'ScenarioInvalidError', message: expect.stringContaining(message) }));
    expect(() => parseScenario(text, 'bad.yaml')).toThrow(/^bad\.yaml: /);
  });

  it.each([
    ['name: t\nzones: []\n', 'bad.yaml: zones: Too small: expected array to have >=1 items'],
    ['name: t\nseed: 1.5\n', 'bad.yaml: seed: Invalid input: expected int, received number'],
    ['name: t\nduration: soon\n', 'bad.yaml: duration: "soon" is not a duration (e.g. 90s, 5m, 1h30m)'],
  ])("should word %j's problem as classic zod did (zod/mini's English locale)", (text, message) => {
    // Act / Assess
    expect(() => parseScenario(text, 'bad.yaml')).toThrowError(expect.objectContaining({ name: 'ScenarioInvalidError', message }));
  });

  it('should read an unhealthy event with its defaults: any node, one, fixed only by replacing it', () => {
    // Act
    const s = parseScenario(
      'name: t\nevents:\n  - {at: 5m07s, unhealthy: {condition: KernelReady}}\n  - {at: 6m, unhealthy: {node: ip-10-0-1-5.ec2.internal, condition: Ready, count: 2, fixedBy: reboot}}\n',
      'scenario.yaml',
    );
    // Assess
    expect(s.events.map((e) => [e.at, e.unhealthy])).toEqual([
      [307, { node: 'any', condition: 'KernelReady', count: 1, fixedBy: 'replace' }],
      [360, { node: 'ip-10-0-1-5.ec2.internal', condition: 'Ready', count: 2, fixedBy: 'reboot' }],
    ]);
  });

  it('should read event times to the second (2m37s, 24m05s)', () => {
    // Act
    const s = parseScenario(
      `name: t\nduration: 30m\n${OBJECTS}events:\n  - at: 24m05s\n    scale: {deployment: inflate, replicas: 1}\n  - at: 2m37s\n    scale: {deployment: inflate, replicas: 2}\n`,
      'scenario.yaml',
    );
    // Assess
    expect(s.events.map((e) => e.at)).toEqual([157, 1445]);
  });

  it('should substitute ${CLUSTER_NAME} in objects with the scenario cluster name', () => {
    // Act
    const s = parseScenario(
      'name: t\nclusterName: demo\nobjects: |\n  apiVersion: karpenter.k8s.aws/v1\n  kind: EC2NodeClass\n  metadata: {name: default}\n  spec:\n    role: KarpenterNodeRole-${CLUSTER_NAME}\n    amiSelectorTerms: [{alias: al2023@latest}]\n    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}]\n    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: "${CLUSTER_NAME}"}}]\n',
      'a.yaml',
    );
    // Assess
    expect(s.objects[0].spec).toMatchObject({ role: 'KarpenterNodeRole-demo', subnetSelectorTerms: [{ tags: { 'karpenter.sh/discovery': 'demo' } }] });
  });
});
