//! What Zed's `download_file` does not do: check a release asset against
//! the release's `SHA256SUMS` (as `sha256sum` writes it) before anything of
//! it is installed, and take the binary out of the archive here, in the
//! extension, from the very bytes that were checked. Pure: no Zed calls.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use sha2::{Digest, Sha256};
use zed_extension_api::Os;

/// The checksums file every release publishes beside its assets.
pub const SUMS_ASSET: &str = "SHA256SUMS";

/// A binary larger than this in an archive is refused (a release binary
/// is about 25 MB; the tests pack a debug build of 650 MB).
const MAX_BINARY: u64 = 1 << 30;

/// The SHA-256 (lower-case hex) that `sums` gives for `asset`.
pub fn expected_sha256(sums: &str, asset: &str) -> Result<String, String> {
    sums.lines()
        .filter_map(|line| {
            let (hash, name) = line.trim().split_once(char::is_whitespace)?;
            // `sha256sum -b` marks the name with `*`.
            let name = name.trim_start().trim_start_matches('*');
            (name == asset).then(|| hash.to_ascii_lowercase())
        })
        .find(|hash| hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| format!("the release's {SUMS_ASSET} lists no checksum for {asset}"))
}

/// The SHA-256 of what `reader` gives, lower-case hex.
pub fn sha256_hex(mut reader: impl Read) -> std::io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = reader.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Refuses the archive at `path` unless its SHA-256 is the one `sums`
/// lists for `asset`.
pub fn check(path: &Path, sums: &str, asset: &str) -> Result<(), String> {
    let expected = expected_sha256(sums, asset)?;
    let actual = File::open(path)
        .and_then(sha256_hex)
        .map_err(|e| format!("reading the download: {e}"))?;
    if actual != expected {
        return Err(format!(
            "{asset} does not match the release's {SUMS_ASSET} (SHA-256 {actual}, expected \
             {expected}): the download is damaged or not the release's"
        ));
    }
    Ok(())
}

/// Writes the file `binary` at the root of the release archive at
/// `archive` (`.tar.gz` on Linux and macOS, `.zip` on Windows) to `to`.
pub fn unpack_binary(archive: &Path, os: Os, binary: &str, to: &Path) -> Result<(), String> {
    let file = File::open(archive).map_err(|e| format!("reading the download: {e}"))?;
    match os {
        Os::Windows => unpack_zip(file, binary, to),
        Os::Linux | Os::Mac => unpack_tar_gz(file, binary, to),
    }
}

fn unpack_tar_gz(file: File, binary: &str, to: &Path) -> Result<(), String> {
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(BufReader::new(file)));
    let entries = tar
        .entries()
        .map_err(|e| format!("reading the archive: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("reading the archive: {e}"))?;
        let path = entry
            .path()
            .map_err(|e| format!("reading the archive: {e}"))?
            .into_owned();
        let at_root = path
            .to_str()
            .is_some_and(|p| p.trim_start_matches("./") == binary);
        if at_root && entry.header().entry_type().is_file() {
            return copy_bounded(entry, binary, to);
        }
    }
    Err(format!("the archive has no `{binary}` at its root"))
}

fn unpack_zip(file: File, binary: &str, to: &Path) -> Result<(), String> {
    let mut zip = zip::ZipArchive::new(BufReader::new(file))
        .map_err(|e| format!("reading the archive: {e}"))?;
    let entry = zip
        .by_name(binary)
        .map_err(|_| format!("the archive has no `{binary}` at its root"))?;
    copy_bounded(entry, binary, to)
}

fn copy_bounded(reader: impl Read, binary: &str, to: &Path) -> Result<(), String> {
    let mut out = File::create(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let copied = std::io::copy(&mut reader.take(MAX_BINARY + 1), &mut out)
        .map_err(|e| format!("unpacking `{binary}`: {e}"))?;
    if copied > MAX_BINARY {
        return Err(format!(
            "`{binary}` in the archive is larger than {MAX_BINARY} bytes"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_read_as_sha256sum_writes_them() {
        let hash = |bytes: &[u8]| sha256_hex(bytes).unwrap();
        let sums = format!(
            "{}  weft-0.2.0-x86_64-linux.tar.gz\n{} *weft-0.2.0-x86_64-windows.zip\n",
            hash(b"linux"),
            hash(b"windows").to_uppercase()
        );
        let linux = "weft-0.2.0-x86_64-linux.tar.gz";
        assert_eq!(expected_sha256(&sums, linux).unwrap(), hash(b"linux"));
        let windows = "weft-0.2.0-x86_64-windows.zip";
        assert_eq!(expected_sha256(&sums, windows).unwrap(), hash(b"windows"));
        let missing = expected_sha256(&sums, "weft-0.2.0-aarch64-macos.tar.gz").unwrap_err();
        assert!(missing.contains("lists no checksum"), "{missing}");
        assert_eq!(
            hash(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
