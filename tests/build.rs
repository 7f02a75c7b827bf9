//! Points the Zed extension host (tests/host/) at the WIT files of the
//! `zed_extension_api` version the extension is built with: asks `cargo
//! metadata` where that crate's source is, and writes the `bindgen!` call
//! with the absolute path of its `wit/since_v0.6.0` folder into
//! `$OUT_DIR/zed_bindings.rs`. No copy of the WIT is kept in the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The API version the extension depends on (root `Cargo.toml`) and the WIT
/// folder that version binds.
const ZED_API_CRATE: &str = "zed_extension_api";
const ZED_API_VERSION: &str = "0.7.0";
const WIT_FOLDER: &str = "wit/since_v0.6.0";

fn main() {
    let manifest_dir =
        PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let workspace = manifest_dir.parent().expect("tests/ sits in the workspace");
    println!("cargo:rerun-if-changed=build.rs");
    println!(
        "cargo:rerun-if-changed={}",
        workspace.join("Cargo.lock").display()
    );

    let wit = wit_folder(workspace);
    println!("cargo:rerun-if-changed={}", wit.display());
    let wit = wit.to_str().expect("the cargo registry path is UTF-8");

    let bindings = format!(
        r#"wasmtime::component::bindgen!({{
    path: {wit:?},
    world: "extension",
    imports: {{ default: trappable }},
    additional_derives: [PartialEq],
    with: {{
        "worktree": crate::host::worktree::FakeWorktree,
        "project": crate::host::worktree::FakeProject,
        "key-value-store": crate::host::worktree::FakeKeyValueStore,
        "zed:extension/http-client.http-response-stream": crate::host::worktree::FakeResponseStream,
    }},
}});
"#
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out.join("zed_bindings.rs"), bindings).expect("write zed_bindings.rs");
}

/// `<registry>/zed_extension_api-0.7.0/wit/since_v0.6.0`, found through
/// `cargo metadata` on the workspace (which depends on that crate).
fn wit_folder(workspace: &Path) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = std::env::var("TARGET").expect("cargo sets it");
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
        ])
        .arg(target)
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .output()
        .expect("run cargo metadata");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let package = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|package| package["name"] == ZED_API_CRATE && package["version"] == ZED_API_VERSION)
        .unwrap_or_else(|| {
            panic!(
                "the workspace does not depend on {ZED_API_CRATE} {ZED_API_VERSION}; \
                 the extension host binds that version's {WIT_FOLDER}: update tests/build.rs \
                 together with the extension's dependency"
            )
        });
    let manifest = PathBuf::from(package["manifest_path"].as_str().expect("manifest_path"));
    let wit = manifest.parent().expect("crate folder").join(WIT_FOLDER);
    assert!(wit.is_dir(), "{} is missing", wit.display());
    wit
}
