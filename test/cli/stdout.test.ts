/** Large output goes to stdout in pieces (cli/stdout.ts): together they are the text, and no piece ends inside a character. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeOut } from '../../cli/stdout';

function captured(): string[] {
  const chunks: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return chunks;
}

const endsInsidePair = (s: string) => {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
};

afterEach(() => vi.restoreAllMocks());

describe('writeOut', () => {
  it('should write a large string in pieces that never split a surrogate pair', () => {
    // Arrange: emoji (two UTF-16 units each) straddle every 64k boundary, whatever the cut's parity.
    const text = 'a' + '😀'.repeat(100_000);
    const chunks = captured();
    // Act
    writeOut(text);
    // Assess
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.join('')).toBe(`${text}\n`);
    expect(chunks.filter(endsInsidePair)).toEqual([]);
    expect(Buffer.concat(chunks.map((c) => Buffer.from(c, 'utf8'))).toString('utf8')).toBe(`${text}\n`);
  });

  it('should join the pieces of a text given in pieces, cut anywhere', () => {
    // Arrange
    const pieces = ['x'.repeat(65_535), '😀', 'y'.repeat(70_000), '', 'z'];
    const chunks = captured();
    // Act
    writeOut(pieces);
    // Assess
    expect(chunks.join('')).toBe(`${pieces.join('')}\n`);
    expect(chunks.filter(endsInsidePair)).toEqual([]);
  });

  it('should write a short line at once', () => {
    const chunks = captured();
    writeOut('hello');
    expect(chunks).toEqual(['hello\n']);
  });
});
