/**
 * Lists every skipped test by its full name at the end of a run. Jest's default reporter only counts
 * them, and a suite skipped for a reason (the ArangoDB contract suites without ARANGO_URL, the
 * fixture-based suites without the shared fixtures) must say so in the test output.
 */
class SkippedTestsReporter {
  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo')
          skipped.push(test.fullName);
      }
    }
    if (skipped.length === 0) return;
    process.stderr.write(`\nSkipped tests (${skipped.length}):\n${skipped.map((name) => `  - ${name}`).join('\n')}\n`);
  }
}

module.exports = SkippedTestsReporter;
