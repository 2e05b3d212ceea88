#!/usr/bin/env node
// The nodewright CLI: TypeScript sources run through tsx (a pinned dependency), so `npx nodewright …` works
// from a fresh `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
const code = await main(process.argv.slice(2));
// A simulation leaves loopback servers and SDK timers behind; exit once stdout and stderr are flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
