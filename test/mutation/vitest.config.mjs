// The project's vitest config, reporting only to the JSON file the mutation
// runner names (VITEST_MUTATION_REPORT): the project config's own JSON
// reporter has a fixed output file that a command-line --outputFile cannot
// replace, and runs in this worktree must not overwrite each other's report.
import base from '../../vitest.config.ts';

const report = process.env.VITEST_MUTATION_REPORT;
if (!report) throw new Error('VITEST_MUTATION_REPORT is not set: this config is for test/mutation/run.mjs');

export default { ...base, test: { ...base.test, reporters: [['json', { outputFile: report }]] } };
