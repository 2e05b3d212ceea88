/**
 * Writing the CLI's output. A large output (a 5k-pod plan is 4 MB of JSON) goes to `process.stdout` in pieces of
 * about PIECE characters: built as one string, it would be copied into one output-sized buffer to be written, and
 * fresh memory is dear on small VMs (docs/benchmarks.md).
 */
const PIECE = 1 << 16;

/** Where the cut at `at` falls in `s`: one place earlier rather than between the halves of a surrogate pair. */
function cutAt(s: string, at: number): number {
  if (at >= s.length) return s.length;
  const before = s.charCodeAt(at - 1);
  return before >= 0xd800 && before <= 0xdbff ? at - 1 : at;
}

/** Writes a line of output: a string, or the pieces of one (jsonText). */
export function writeOut(s: string | Iterable<string>): void {
  if (typeof s === 'string' && s.length < PIECE) {
    process.stdout.write(`${s}\n`);
    return;
  }
  let pending = '';
  for (const piece of typeof s === 'string' ? [s] : s) {
    for (let at = 0; at < piece.length;) {
      // Each piece is encoded on its own: a surrogate pair cut in two would come out as two replacement characters.
      const end = cutAt(piece, at + PIECE - pending.length);
      pending += at === 0 && end === piece.length ? piece : piece.slice(at, end);
      at = end;
      if (pending.length >= PIECE - 1) {
        process.stdout.write(pending);
        pending = '';
      }
    }
  }
  process.stdout.write(`${pending}\n`);
}
