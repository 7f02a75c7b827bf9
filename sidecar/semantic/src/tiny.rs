//! A tiny model in the real Model2Vec format, written by tests: a word-level
//! tokenizer over a handful of words and a table that gives words of one
//! meaning one direction ("car" and "automobile" alike), so finding by
//! meaning can be tested without a downloaded model (the end-to-end tests
//! write the same with `tests/python/tiny_model.py`).

use std::path::Path;

/// Writes a model whose words are `words`, each `(word, meaning)`: words of
/// the same meaning (an index below `dim`) get the same unit vector, with a
/// little of their own so they are not identical. Unknown words map to an
/// `[UNK]` token with a zero vector.
pub fn write_model(dir: &Path, words: &[(&str, usize)], dim: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut vocab = serde_json::Map::new();
    vocab.insert("[UNK]".into(), 0.into());
    let mut table: Vec<f32> = vec![0.0; dim];
    for (i, (word, meaning)) in words.iter().enumerate() {
        vocab.insert((*word).into(), (i + 1).into());
        let mut v = vec![0.0f32; dim];
        v[meaning % dim] = 1.0;
        v[(meaning + 1 + i % 2) % dim] += 0.05;
        table.extend(v);
    }
    let tokenizer = serde_json::json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": false, "lstrip": false,
                          "rstrip": false, "normalized": false, "special": true}],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null,
        "decoder": null,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"}
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string())?;
    std::fs::write(dir.join("config.json"), r#"{"normalize": true}"#)?;
    let rows = words.len() + 1;
    let data: Vec<u8> = table.iter().flat_map(|x| x.to_le_bytes()).collect();
    let header = serde_json::json!({
        "embeddings": {"dtype": "F32", "shape": [rows, dim], "data_offsets": [0, data.len()]}
    })
    .to_string();
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header.as_bytes());
    file.extend_from_slice(&data);
    std::fs::write(dir.join("model.safetensors"), file)
}
