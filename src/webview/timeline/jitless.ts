/**
 * Imported first by main.ts, so it runs before any schema is built: zod decides at
 * construction whether to compile parsers with `new Function`, and probing for that is a
 * violation of this webview's CSP (no 'unsafe-eval'), reported even though zod catches it.
 */
import * as z from 'zod/mini';

z.config({ jitless: true });
