/**
 * The zod every nodewright schema uses: `zod/mini` (functional API: `z.optional(s)`, `s.check(z.minLength(1))`),
 * which tree-shakes to ≈ 35 kB of a Lambda bundle where classic `zod` carries ≈ 450 kB, with zod's English
 * messages. zod/mini ships without a locale (every issue would read "Invalid input"); the messages users see
 * ("Too small: expected string to have >=1 characters") are the English locale's, configured here once.
 *
 * Import it as a namespace, `import * as z from '…/core/zod'`, never `zod` or `zod/mini` directly, and never
 * `import { z }`: that `z` is zod/mini's namespace object, which esbuild cannot shake, and it brings every schema
 * type, JSON-schema conversion and all ≈ 50 locales (≈ 430 kB) into the bundle. eslint.config.js enforces all three.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
