// Prints the closing "N passed, N failed" line from vitest's JSON report plus the typecheck and
// lint checks, and exits non-zero if anything failed or the report is missing.
import { existsSync, readFileSync } from "node:fs";

const [file, checksPassed = "0", checksFailed = "0", vitestStatus = "0"] = process.argv.slice(2);
let passed = Number(checksPassed);
let failed = Number(checksFailed);
if (file && existsSync(file)) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  // A test file that failed to load counts once.
  for (const suite of report.testResults ?? []) {
    if (suite.status === "failed" && (suite.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  failed += 1;
  console.error("no test report was written");
}
if (Number(vitestStatus) !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
