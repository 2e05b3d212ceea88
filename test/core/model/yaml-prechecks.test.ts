import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NON_PRINTABLE, readsWhole, UNSPLITTABLE } from '../../../shared/core/model/manifests/block-yaml';
import { HAS_ANCHOR_ALIAS_OR_TAG, hasAnchorAliasOrTag } from '../../../shared/core/model/manifests/parse';

/** Texts built from the characters the patterns look at, plus ordinary manifest lines. */
const pieces = fc.constantFrom(
  ...[
    '\n',
    ' ',
    '  ',
    '\t',
    '\r',
    '-',
    '---',
    '--- ',
    '...',
    '.',
    '%',
    '&',
    '*',
    '!',
    '[',
    '{',
    ',',
    ':',
    'a',
    'key: value',
    '#',
    '\u2028',
    '\uFEFF',
    '\x07',
    '\x85',
    '\u00e9',
    '\uD83D',
    '\uDE00',
    '\uFFFE',
  ],
);
const texts = fc.array(pieces, { maxLength: 14 }).map((xs) => xs.join(''));

describe('the YAML pre-checks', () => {
  it('send a stream to js-yaml whole exactly when the patterns say so', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(readsWhole(t)).toBe(UNSPLITTABLE.test(t) || NON_PRINTABLE.test(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('find anchors, aliases and tags exactly where the pattern does', () => {
    fc.assert(
      fc.property(texts, (t) => {
        expect(hasAnchorAliasOrTag(t)).toBe(HAS_ANCHOR_ALIAS_OR_TAG.test(t));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agree on the lines kubectl writes and their near misses', () => {
    for (const t of [
      'a: 1\n---\nb: 2\n',
      '--- \nb: 2',
      '---x\n',
      '----\n',
      '...\n',
      '...',
      '....\n',
      ' ...\n',
      '%YAML 1.2\n',
      'a: "%"\n',
      'x: &a 1',
      'x: *a',
      'x: !!str 1',
      'x: a&b',
      '& ',
      '&',
      'x: [*a]',
    ])
      expect([readsWhole(t), hasAnchorAliasOrTag(t)]).toEqual([UNSPLITTABLE.test(t) || NON_PRINTABLE.test(t), HAS_ANCHOR_ALIAS_OR_TAG.test(t)]);
  });
});
