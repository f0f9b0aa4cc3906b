/**
 * How the command checks data with zod: without the code zod generates at
 * run time for each object schema. A command checks each schema a few times
 * at most, so compiling that fast path costs more than it saves; the same
 * checks run either way.
 */
import { config } from 'zod';

/**
 * Turns zod's generated fast path off. Zod decides when a schema is built,
 * and most schemas are built as their module loads: this must run before any
 * module that defines one (the commands', the core's) is loaded.
 */
export function checkWithoutGeneratedCode(): void {
  config({ jitless: true });
}
