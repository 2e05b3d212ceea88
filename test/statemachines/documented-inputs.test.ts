import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLaunchInput, parseTerminateInput } from '../../shared/core/lifecycle';

const doc = readFileSync(resolve(__dirname, '../../docs/operations.md'), 'utf8');

/** Every `start-execution … --state-machine-arn "$X" … --input '…'` command in docs/operations.md. */
function documentedCommands(): { machine: string; input: unknown }[] {
  const commands = doc
    .split('aws stepfunctions start-execution')
    .slice(1)
    .map((c) => c.split('\n```')[0]);
  return commands
    .filter((c) => c.includes('--input'))
    .map((c) => ({
      machine: /--state-machine-arn "\$(\w+)"/.exec(c)?.[1] ?? '?',
      input: JSON.parse(/--input '([^']+)'/.exec(c)?.[1] ?? 'null'),
    }));
}

describe('the manual executions documented in docs/operations.md', () => {
  it('should all be accepted by the validation of the machine they start', () => {
    // Prepare
    const commands = documentedCommands();

    // Act
    const kinds = commands.map(({ machine, input }) => (machine === 'LAUNCH' ? parseLaunchInput(input).kind : parseTerminateInput(input).kind));

    // Assess
    expect(commands.length).toBeGreaterThanOrEqual(5);
    expect(new Set(commands.map((c) => c.machine))).toEqual(new Set(['LAUNCH', 'TERMINATE']));
    expect(kinds).toEqual(expect.arrayContaining(['node', 'instance', 'pool', 'reconcile', 'claim']));
  });
});
