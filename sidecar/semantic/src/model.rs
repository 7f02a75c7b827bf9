//! An embedding model loaded from a local folder holding `config.json`,
//! `tokenizer.json` and `model.safetensors`, of one of two kinds:
//!
//! - a static model (Model2Vec format: F32, F16 or I8 `embeddings`,
//!   optional `weights` and `mapping`): a tokenisation, a lookup and a
//!   mean, thousands of passages a second on one core;
//! - a small BERT sentence encoder (`model_type: bert` in `config.json`,
//!   the all-MiniLM-L6-v2 kind; the `transformer` feature): a hundred times
//!   slower, much better at meaning ([`crate::bert`]).
//!
//! Nothing here downloads: a model is a folder (the user's, or one `fetch`
//! put in the cache).

use std::io::Read;
use std::path::{Path, PathBuf};

use model2vec_rs::model::StaticModel;
use sha2::{Digest, Sha256};

/// The files a model folder must hold.
pub const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// The largest model file read (a static model of 500k tokens × 1024 F32
/// dimensions is 2 GB; the usual ones are 8–120 MB).
const MAX_MODEL_FILE: u64 = 2 << 30;

/// Tokens a static model reads of one text: a passage past this is
/// embedded by its start.
const MAX_TOKENS: usize = 512;

enum Backend {
    Static(StaticModel),
    #[cfg(feature = "transformer")]
    Bert(Box<crate::bert::Bert>),
}

/// A loaded embedding model.
pub struct Model {
    inner: Backend,
    /// `static` or `bert`.
    pub kind: &'static str,
    /// The folder it was loaded from.
    pub folder: PathBuf,
    /// A fingerprint of its files (16 hex digits of their SHA-256): vectors
    /// made by another model are never mixed with this one's.
    pub id: String,
    /// Dimensions of its vectors.
    pub dim: usize,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("folder", &self.folder)
            .field("id", &self.id)
            .field("dim", &self.dim)
            .finish()
    }
}

/// Why a model folder cannot be used; the message says what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelError(pub String);

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ModelError {}

impl Model {
    /// Loads the model in `folder`. Refuses, saying why, a folder that is
    /// missing, lacks a file, holds a file too large, or whose files do
    /// not parse as a Model2Vec model; never panics on what it reads.
    pub fn load(folder: &Path) -> Result<Model, ModelError> {
        if !folder.is_dir() {
            return Err(ModelError(format!(
                "the semantic model folder {} does not exist; set `[semantic] model` in \
                 .weft.toml to a folder holding {}",
                folder.display(),
                MODEL_FILES.join(", ")
            )));
        }
        let mut hasher = Sha256::new();
        let mut files = Vec::with_capacity(MODEL_FILES.len());
        for name in MODEL_FILES {
            let bytes = read_bounded(&folder.join(name)).map_err(|e| {
                ModelError(format!(
                    "the semantic model in {} cannot be used: {name}: {e}",
                    folder.display()
                ))
            })?;
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
            files.push(bytes);
        }
        let id: String = hasher
            .finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        let [config, tokenizer, model] = <[Vec<u8>; 3]>::try_from(files).expect("three files");
        let unusable = |why: String| {
            ModelError(format!(
                "the semantic model in {} cannot be used: {why}",
                folder.display()
            ))
        };
        // The crates parse what they are given with errors, but a malformed
        // tensor could still reach an index they do not check.
        let loaded = std::panic::catch_unwind(move || -> Result<Backend, String> {
            if is_bert(&config) {
                #[cfg(feature = "transformer")]
                return crate::bert::Bert::load(&config, &tokenizer, model)
                    .map(|b| Backend::Bert(Box::new(b)));
                #[cfg(not(feature = "transformer"))]
                return Err("a BERT model, and this build of weft runs static models only".into());
            }
            StaticModel::from_bytes(&tokenizer, &model, &config, Some(true))
                .map(Backend::Static)
                .map_err(|e| format!("{e:#}"))
        });
        let inner = match loaded {
            Ok(Ok(inner)) => inner,
            Ok(Err(e)) => return Err(unusable(e)),
            Err(_) => return Err(unusable("its files are malformed".into())),
        };
        let (dim, kind) = match &inner {
            Backend::Static(m) => (m.dim(), "static"),
            #[cfg(feature = "transformer")]
            Backend::Bert(b) => (b.dim(), "bert"),
        };
        if dim == 0 || dim > 4096 {
            return Err(ModelError(format!(
                "the semantic model in {} has {dim} dimensions; 1 to 4096 are supported",
                folder.display()
            )));
        }
        // One probe: a model whose tokenizer and table disagree panics here
        // rather than on a note.
        let model = Model {
            inner,
            kind,
            folder: folder.to_path_buf(),
            id,
            dim,
        };
        if model.raw(&["probe".to_string()]).is_none() {
            return Err(unusable("its tokenizer and its table disagree".into()));
        }
        Ok(model)
    }

    /// The vectors of `texts` as the model makes them (`dim` each), or
    /// `None` when it fails on them (or panics).
    fn raw(&self, texts: &[String]) -> Option<Vec<f32>> {
        let made = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &self.inner {
            Backend::Static(m) => Some(m.encode_flat_with_args(texts, Some(MAX_TOKENS))),
            #[cfg(feature = "transformer")]
            Backend::Bert(b) => b.embed(texts).ok(),
        }));
        made.ok()
            .flatten()
            .filter(|flat| flat.len() == texts.len() * self.dim)
    }

    /// The unit-length vectors of `texts`, one after the other (`dim` each).
    /// A text the model cannot embed (it panicked) gets a zero vector.
    pub fn embed(&self, texts: &[String]) -> Vec<f32> {
        let mut flat = match self.raw(texts) {
            Some(flat) => flat,
            None => texts
                .iter()
                .flat_map(|t| self.embed_one_guarded(t))
                .collect(),
        };
        for v in flat.chunks_mut(self.dim) {
            normalize(v);
        }
        flat
    }

    /// One text's unit-length vector.
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut v = self.embed_one_guarded(text);
        normalize(&mut v);
        v
    }

    fn embed_one_guarded(&self, text: &str) -> Vec<f32> {
        self.raw(&[text.to_string()])
            .unwrap_or_else(|| vec![0.0; self.dim])
    }
}

fn read_bounded(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    if len > MAX_MODEL_FILE {
        return Err(std::io::Error::other(format!(
            "{len} bytes, more than the {MAX_MODEL_FILE} read"
        )));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(MAX_MODEL_FILE).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether `config.json` describes a BERT model.
fn is_bert(config: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(config)
        .is_ok_and(|c| c.get("model_type").and_then(|t| t.as_str()) == Some("bert"))
}

/// Scales `v` to unit length (a zero vector stays zero).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in v {
            *x /= norm;
        }
    } else {
        v.fill(0.0);
    }
}
