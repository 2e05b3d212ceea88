/**
 * The zod every nodewright schema uses: `zod/mini` (functional API: `z.optional(s)`, `s.check(z.minLength(1))`),
 * which tree-shakes to a few tens of kB of a Lambda bundle where classic `zod` carries ≈ 450 kB, with zod's
 * English messages. zod/mini ships without a locale (every issue would read "Invalid input"); the messages users
 * see ("Too small: expected string to have >=1 characters") are the English locale's, configured here once.
 * Import `z` from this module, never from `zod` or `zod/mini` directly (eslint.config.js enforces it).
 */
import { config, z } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export { z };
