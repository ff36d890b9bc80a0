// Syntax and semantic check of Cypher files with Neo4j's own parser and linter
// (@neo4j-cypher/language-support), offline: no Neo4j server needed.
// Usage: node lint.mjs FILE...   prints one line per error (file:line:column message), exit 1 on any.
import { readFileSync } from "node:fs";
import { lintCypherQuery } from "@neo4j-cypher/language-support";

// The parameters a file's header sets (`//   :param name => value`, see cypher/README.md):
// a parameter the query uses but the header does not set is an error.
function exampleParameters(text) {
  const parameters = {};
  for (const m of text.matchAll(/^\/\/ {3}:param ([A-Za-z_]\w*) => (.+)$/gm)) {
    const value = m[2].trim();
    parameters[m[1]] = /^-?\d+$/.test(value) ? Number(value) : value.replace(/^'(.*)'$/, "$1");
  }
  return parameters;
}

const ERROR = 1; // DiagnosticSeverity.Error (LSP)
let errors = 0;
for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  const { diagnostics } = lintCypherQuery(text, { parameters: exampleParameters(text) });
  for (const d of diagnostics) {
    if (d.severity !== ERROR) continue;
    errors += 1;
    const { line, character } = d.range.start;
    console.log(`${file}:${line + 1}:${character + 1}: ${d.message.replace(/\s+/g, " ")}`);
  }
}
console.log(`${process.argv.length - 2} file(s) checked, ${errors} error(s)`);
process.exit(errors ? 1 : 0);
