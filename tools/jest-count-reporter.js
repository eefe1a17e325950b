// A jest reporter that appends this run's pass/fail counts to $RLHF_TEST_COUNTS (one JSON line per
// jest run), so .ci/run can print one total over all nx projects. Does nothing when the variable is unset.
const fs = require('fs');

class CountReporter {
  onRunComplete(_contexts, results) {
    const file = process.env.RLHF_TEST_COUNTS;
    if (!file) return;
    const line = {
      passed: results.numPassedTests,
      failed: results.numFailedTests,
      // A suite that fails to load or crashes has no failed test of its own: count it as one failure.
      brokenSuites: results.numRuntimeErrorTestSuites,
    };
    fs.appendFileSync(file, JSON.stringify(line) + '\n');
  }
}

module.exports = CountReporter;
