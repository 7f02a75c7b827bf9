// Lays out an MCP Bundle (MCPB) of one platform's `weft`, for
// `mcpb pack DIR FILE`: DIR/manifest.json (this folder's manifest.json,
// said of that one platform) and DIR/server/weft (or weft.exe).
//
//   node packaging/mcpb/bundle.mjs BINARY PLATFORM DIR
//
// PLATFORM is a release platform (`x86_64-linux`, `aarch64-windows`, …, as
// .github/workflows/release.yml names them). The release workflow runs it
// for each platform; tests/tests/registry.rs runs it on the test's `weft`,
// packs the bundle with the real `mcpb` and starts the server as the
// bundle's manifest says.
import { copyFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [binary, platform, out] = process.argv.slice(2);
if (!binary || !platform || !out) {
  console.error("usage: node packaging/mcpb/bundle.mjs BINARY PLATFORM DIR");
  process.exit(2);
}
const os = { linux: "linux", macos: "darwin", windows: "win32" }[platform.split("-")[1]];
if (!os || !/^(x86_64|aarch64)-/.test(platform)) {
  console.error(`bundle.mjs: unknown platform ${platform} (ARCH-OS, as the release names them)`);
  process.exit(2);
}
if (!existsSync(binary)) {
  console.error(`bundle.mjs: no binary at ${binary}`);
  process.exit(2);
}
if (existsSync(out)) {
  console.error(`bundle.mjs: ${out} exists; give a new folder`);
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(here, "manifest.json"), "utf8"));
const name = os === "win32" ? "weft.exe" : "weft";
manifest.server.entry_point = `server/${name}`;
manifest.server.mcp_config.command = `\${__dirname}/server/${name}`;
manifest.compatibility.platforms = [os];

mkdirSync(join(out, "server"), { recursive: true });
copyFileSync(binary, join(out, "server", name));
chmodSync(join(out, "server", name), 0o755);
writeFileSync(join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
