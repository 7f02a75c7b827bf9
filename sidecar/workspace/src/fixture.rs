//! Test vaults on disk: a file written with its folders, or a whole inline
//! fixture (`//- /path` starts a file; `weft_vault::fixture` reads it).
//! Built for tests alone, this crate's and the adapters' above it.

use std::path::Path;

/// Writes `bytes` to `root/rel`, making the folders on the way.
pub fn write_file(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write fixture file");
}

/// Writes every file of the inline fixture `src` under `root`.
pub fn write(root: &Path, src: &str) {
    for file in weft_vault::fixture::files(src) {
        write_file(root, &file.path, file.text);
    }
}
