import { describe, expect, it } from 'vitest';
import { isManifestValidationError } from '../../../shared/core/errors';
import { parseManifestFiles, type ManifestFile } from '../../../shared/core/model/manifests/parse';
import { repoFile, shippedManifests } from './helpers';

/**
 * A set without PriorityClasses or RuntimeClasses is read in one pass (each document converted as it is read);
 * any mention of those kinds sends it through the two-pass read. One more file holding only a comment that names
 * one forces the two passes over the same documents, so both reads can be compared on one input.
 */
const twoPass = (files: ManifestFile[]): ManifestFile[] => [...files, { file: 'marker.yaml', text: '# RuntimeClass\n' }];

/** The set, or the message of what was thrown (with its file and document for a ManifestValidationError). */
function outcome(files: ManifestFile[]): unknown {
  try {
    return parseManifestFiles(files);
  } catch (e) {
    if (isManifestValidationError(e)) return { file: e.file, documentIndex: e.documentIndex, message: e.message };
    return { thrown: (e as Error).message };
  }
}

const pod = (name: string, cpu = '1') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  containers:\n    - name: c\n      image: pause\n      resources:\n        requests:\n          cpu: "${cpu}"\n`;
const nodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements: []
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
`;
const join = (...docs: string[]) => docs.join('---\n');

describe('the one-pass manifest read', () => {
  it.each(shippedManifests())('reads %s as the two-pass read does', (f) => {
    const files = [{ file: f, text: repoFile(f) }];
    expect(outcome(files)).toEqual(outcome(twoPass(files)));
  });

  it('gives the same pods, pools, warnings and duplicate handling across files', () => {
    const files = [
      {
        file: 'a.yaml',
        text: join(
          nodePool,
          pod('web-0'),
          pod('web-1', '250m'),
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n',
          'kind: Widget\nmetadata:\n  name: w\n',
        ),
      },
      {
        file: 'b.yaml',
        text: join(pod('web-1', '2'), 'apiVersion: v1\nkind: PodList\nitems:\n  - metadata:\n      name: listed\n    spec:\n      containers: []\n'),
      },
    ];
    const one = outcome(files) as ReturnType<typeof parseManifestFiles>;
    expect(one.pods.map((p) => `${p.name}:${p.requests.cpu}`)).toEqual(['web-0:1000', 'web-1:2000', 'listed:undefined']);
    expect(one.warnings.map((w) => w.message)).toEqual([
      'Widget w is not used by nodewright; ignored',
      'pod default/web-1 is defined more than once; the last definition is used',
    ]);
    expect(one).toEqual(outcome(twoPass(files)));
  });

  it('reports invalid YAML before an earlier document that does not convert, as the two-pass read does', () => {
    const files = [{ file: 'x.yaml', text: join(pod('bad', 'lots'), pod('ok'), 'kind: [unclosed\n') }];
    const err = outcome(files) as { documentIndex: number; message: string };
    expect(err.documentIndex).toBe(2);
    expect(err.message).toMatch(/invalid YAML/);
    expect(err).toEqual(outcome(twoPass(files)));
  });

  it('reports a document that is not an object before an earlier conversion error, and a conversion error only after every file reads', () => {
    const notObject = [{ file: 'x.yaml', text: join(pod('bad', 'lots'), '- a list\n') }];
    expect(outcome(notObject)).toMatchObject({ documentIndex: 1, message: expect.stringMatching(/expected a Kubernetes object/) });
    expect(outcome(notObject)).toEqual(outcome(twoPass(notObject)));

    const acrossFiles = [
      { file: 'a.yaml', text: pod('bad', 'lots') },
      { file: 'b.yaml', text: join(pod('ok'), 'kind: [unclosed\n') },
    ];
    expect(outcome(acrossFiles)).toMatchObject({ file: 'b.yaml', message: expect.stringMatching(/invalid YAML/) });
    expect(outcome(acrossFiles)).toEqual(outcome(twoPass(acrossFiles)));

    const convertOnly = [
      { file: 'a.yaml', text: join(pod('ok'), pod('bad', 'lots')) },
      { file: 'b.yaml', text: pod('later', 'also-bad') },
    ];
    expect(outcome(convertOnly)).toMatchObject({ file: 'a.yaml', documentIndex: 1 });
    expect(outcome(convertOnly)).toEqual(outcome(twoPass(convertOnly)));
  });

  it('leaves anchors and aliases to the two-pass read and its alias limit', () => {
    const files = [{ file: 'x.yaml', text: join(pod('a'), 'kind: Pod\nmetadata: &m\n  name: b\nspec: {containers: []}\n') }];
    expect(outcome(files)).toEqual(outcome(twoPass(files)));
    expect((outcome(files) as ReturnType<typeof parseManifestFiles>).pods.map((p) => p.name)).toEqual(['a', 'b']);
  });
});
