// Writes each MCPB package's `fileSha256` into server.json from the
// release's SHA256SUMS (the MCP registry requires the hash; clients check
// the bundle against it before they run it). The committed server.json has
// none: a bundle's hash is known only once the release has built it.
//
//   node packaging/fill-server-json.mjs SHA256SUMS SERVER_JSON
//
// Refuses, changing nothing, when SHA256SUMS lacks a bundle server.json
// names. The release workflow runs it before `mcp-publisher publish`;
// tests/tests/registry.rs runs it on a bundle it packed.
import { readFileSync, renameSync, writeFileSync } from "node:fs";

const [sums, target] = process.argv.slice(2);
if (!sums || !target) {
  console.error("usage: node packaging/fill-server-json.mjs SHA256SUMS SERVER_JSON");
  process.exit(2);
}
const hashes = new Map();
for (const line of readFileSync(sums, "utf8").split("\n")) {
  const match = /^([0-9a-f]{64}) [ *](.+)$/.exec(line.trim());
  if (match) hashes.set(match[2], match[1]);
}
const server = JSON.parse(readFileSync(target, "utf8"));
const missing = [];
for (const pkg of server.packages ?? []) {
  if (pkg.registryType !== "mcpb") continue;
  const file = decodeURIComponent(new URL(pkg.identifier).pathname.split("/").pop());
  const hash = hashes.get(file);
  if (hash) pkg.fileSha256 = hash;
  else missing.push(file);
}
if (missing.length) {
  console.error(`fill-server-json: ${sums} has no line for ${[...new Set(missing)].join(", ")}; server.json is unchanged`);
  process.exit(1);
}
writeFileSync(`${target}.tmp`, JSON.stringify(server, null, 2) + "\n");
renameSync(`${target}.tmp`, target);
