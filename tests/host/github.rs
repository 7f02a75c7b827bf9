//! GitHub as the host fakes it: one repository's latest release with its
//! assets (archives built in the test, e.g. from the real `weft` binary),
//! served to `download_file`, and the unpacking Zed does for each
//! `downloaded-file-type`. There is no network.

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use flate2::read::GzDecoder;

/// A release the fake GitHub answers `latest_github_release` with.
#[derive(Clone, Debug)]
pub struct FakeRelease {
    /// `owner/name`.
    pub repo: String,
    pub tag: String,
    pub assets: Vec<FakeAsset>,
}

#[derive(Clone)]
pub struct FakeAsset {
    pub name: String,
    pub bytes: Arc<Vec<u8>>,
}

impl std::fmt::Debug for FakeAsset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} bytes)", self.name, self.bytes.len())
    }
}

impl FakeRelease {
    pub fn new(repo: &str, tag: &str) -> FakeRelease {
        FakeRelease {
            repo: repo.to_string(),
            tag: tag.to_string(),
            assets: Vec::new(),
        }
    }

    pub fn with_asset(mut self, name: &str, bytes: Arc<Vec<u8>>) -> FakeRelease {
        self.assets.push(FakeAsset {
            name: name.to_string(),
            bytes,
        });
        self
    }

    /// The asset's `browser_download_url`, as GitHub forms it.
    pub fn download_url(&self, asset: &str) -> String {
        format!(
            "https://github.com/{}/releases/download/{}/{asset}",
            self.repo, self.tag
        )
    }

    /// With `SHA256SUMS` beside the other assets, as the release workflow
    /// publishes it (`sha256sum weft-* > SHA256SUMS`).
    pub fn with_sums(self) -> FakeRelease {
        use sha2::{Digest, Sha256};
        let sums: String = self
            .assets
            .iter()
            .map(|asset| {
                let hash: String = Sha256::digest(asset.bytes.as_slice())
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                format!("{hash}  {}\n", asset.name)
            })
            .collect();
        self.with_asset("SHA256SUMS", Arc::new(sums.into_bytes()))
    }

    /// The same release with the asset `name`'s bytes replaced (after the
    /// checksums were made: a damaged or substituted download).
    pub fn replacing(mut self, name: &str, bytes: Vec<u8>) -> FakeRelease {
        let asset = self
            .assets
            .iter_mut()
            .find(|asset| asset.name == name)
            .unwrap_or_else(|| panic!("no asset {name}"));
        asset.bytes = Arc::new(bytes);
        self
    }

    pub fn without(mut self, name: &str) -> FakeRelease {
        self.assets.retain(|asset| asset.name != name);
        self
    }

    pub fn asset_at(&self, url: &str) -> Option<&FakeAsset> {
        self.assets
            .iter()
            .find(|asset| self.download_url(&asset.name) == url)
    }
}

/// A `.tar.gz` holding `files` (name in the archive, file on disk, mode).
pub fn tar_gz(files: &[(&str, &Path, u32)]) -> Vec<u8> {
    let mut archive = tar::Builder::new(Vec::new());
    for (name, path, mode) in files {
        let bytes =
            std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(*mode);
        header.set_cksum();
        archive
            .append_data(&mut header, name, bytes.as_slice())
            .expect("append to tar");
    }
    gzip_stored(&archive.into_inner().expect("finish tar"))
}

/// A `.zip` holding `files` (name in the archive, file on disk), stored
/// uncompressed, as the Windows release assets hold `weft.exe`.
#[allow(dead_code)] // tests/release.rs packs the Windows assets; not every test binary does.
pub fn zip(files: &[(&str, &Path)]) -> Vec<u8> {
    let mut archive = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    for (name, path) in files {
        let bytes =
            std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        archive.start_file(*name, options).expect("zip entry");
        std::io::Write::write_all(&mut archive, &bytes).expect("zip write");
    }
    archive.finish().expect("finish zip").into_inner()
}

/// `data` as a gzip file of stored (uncompressed) deflate blocks: a valid
/// `.gz` that any gzip reader unpacks. The debug `weft` is large, and a
/// compressor built without optimisations takes many seconds over it;
/// what is tested is the unpacking, not the compression ratio.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 65_535;
    let mut out = Vec::with_capacity(data.len() + data.len() / BLOCK * 5 + 32);
    // Header: magic, deflate, no flags, no mtime, no extra flags, unknown OS.
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    let mut blocks = data.chunks(BLOCK).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let last = u8::from(blocks.peek().is_none());
        let len = block.len() as u16;
        out.push(last);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let mut crc = flate2::Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// The real `weft` binary at the root of a `.tar.gz`, as the release
/// workflow packs it; built once per test binary. Mode 0644: making it
/// executable is the extension's job (`make_file_executable`).
pub fn weft_tar_gz() -> Arc<Vec<u8>> {
    static ARCHIVE: OnceLock<Arc<Vec<u8>>> = OnceLock::new();
    ARCHIVE
        .get_or_init(|| Arc::new(tar_gz(&[("weft", &weft_e2e::weft_bin(), 0o644)])))
        .clone()
}

/// What Zed's `download_file` does with the body once it is fetched.
pub fn unpack(
    bytes: &[u8],
    kind: super::DownloadedFileType,
    destination: &Path,
) -> Result<(), String> {
    use super::DownloadedFileType as Kind;
    match kind {
        Kind::Uncompressed => std::fs::write(destination, bytes).map_err(|e| e.to_string()),
        Kind::Gzip => {
            let mut out = Vec::new();
            GzDecoder::new(bytes)
                .read_to_end(&mut out)
                .map_err(|e| format!("gzip: {e}"))?;
            std::fs::write(destination, out).map_err(|e| e.to_string())
        }
        Kind::GzipTar => {
            std::fs::create_dir_all(destination).map_err(|e| e.to_string())?;
            tar::Archive::new(GzDecoder::new(bytes))
                .unpack(destination)
                .map_err(|e| format!("extracting tar.gz: {e}"))
        }
        Kind::Zip => Err("the test host does not unpack zip archives (Windows only)".into()),
    }
}
