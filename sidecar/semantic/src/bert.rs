//! A small BERT sentence encoder (the all-MiniLM-L6-v2 kind) on the CPU
//! through candle: WordPiece tokens, the encoder layers, the mean of the
//! token states over the attention mask. Loaded from a sentence-transformers
//! folder (`config.json` with `model_type: bert`, `tokenizer.json`,
//! `model.safetensors`). Slower than a static model by two orders of
//! magnitude, and much better at meaning.
//!
//! Texts are embedded in batches of similar length (padding masked), each
//! batch on one thread, batches in parallel.

use candle_core::{D, DType, Device, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, Module, VarBuilder};
use rayon::prelude::*;
use serde::Deserialize;
use tokenizers::{Tokenizer, TruncationParams};

/// Tokens read of one text (the sentence-transformers default for MiniLM).
const MAX_TOKENS: usize = 256;
/// Texts per batch.
const BATCH: usize = 16;

#[derive(Debug, Deserialize)]
struct Config {
    hidden_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    max_position_embeddings: usize,
    #[serde(default = "one")]
    type_vocab_size: usize,
    #[serde(default = "eps")]
    layer_norm_eps: f64,
    #[serde(default)]
    hidden_act: Option<String>,
    vocab_size: usize,
}

fn one() -> usize {
    1
}

fn eps() -> f64 {
    1e-12
}

struct Layer {
    query: Linear,
    key: Linear,
    value: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    intermediate: Linear,
    output: Linear,
    output_norm: LayerNorm,
}

pub(crate) struct Bert {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    tokenizer: Tokenizer,
    dim: usize,
}

fn linear(
    vb: &VarBuilder,
    name: &str,
    inputs: usize,
    outputs: usize,
) -> candle_core::Result<Linear> {
    candle_nn::linear(inputs, outputs, vb.pp(name))
}

fn norm(vb: &VarBuilder, name: &str, size: usize, eps: f64) -> candle_core::Result<LayerNorm> {
    candle_nn::layer_norm(size, eps, vb.pp(name))
}

impl Bert {
    pub(crate) fn load(config: &[u8], tokenizer: &[u8], model: Vec<u8>) -> Result<Bert, String> {
        let config: Config =
            serde_json::from_slice(config).map_err(|e| format!("config.json: {e}"))?;
        if config.hidden_act.as_deref().is_some_and(|a| a != "gelu") {
            return Err(format!(
                "config.json: activation {:?}; only gelu is supported",
                config.hidden_act
            ));
        }
        let h = config.hidden_size;
        if config.num_attention_heads == 0
            || !h.is_multiple_of(config.num_attention_heads)
            || h == 0
            || h > 4096
            || config.num_hidden_layers > 48
        {
            return Err("config.json: sizes this encoder cannot run".into());
        }
        let mut tokenizer =
            Tokenizer::from_bytes(tokenizer).map_err(|e| format!("tokenizer.json: {e}"))?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_TOKENS.min(config.max_position_embeddings),
                ..TruncationParams::default()
            }))
            .map_err(|e| format!("tokenizer.json: {e}"))?;
        tokenizer.with_padding(None);
        let vb = VarBuilder::from_buffered_safetensors(model, DType::F32, &Device::Cpu)
            .map_err(|e| format!("model.safetensors: {e}"))?;
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let load = || -> candle_core::Result<Bert> {
            let e = vb.pp("embeddings");
            let eps = config.layer_norm_eps;
            let layers = (0..config.num_hidden_layers)
                .map(|i| {
                    let l = vb.pp(format!("encoder.layer.{i}"));
                    Ok(Layer {
                        query: linear(&l, "attention.self.query", h, h)?,
                        key: linear(&l, "attention.self.key", h, h)?,
                        value: linear(&l, "attention.self.value", h, h)?,
                        attention_out: linear(&l, "attention.output.dense", h, h)?,
                        attention_norm: norm(&l, "attention.output.LayerNorm", h, eps)?,
                        intermediate: linear(
                            &l,
                            "intermediate.dense",
                            h,
                            config.intermediate_size,
                        )?,
                        output: linear(&l, "output.dense", config.intermediate_size, h)?,
                        output_norm: norm(&l, "output.LayerNorm", h, eps)?,
                    })
                })
                .collect::<candle_core::Result<Vec<Layer>>>()?;
            Ok(Bert {
                words: candle_nn::embedding(config.vocab_size, h, e.pp("word_embeddings"))?,
                positions: candle_nn::embedding(
                    config.max_position_embeddings,
                    h,
                    e.pp("position_embeddings"),
                )?,
                token_types: candle_nn::embedding(
                    config.type_vocab_size,
                    h,
                    e.pp("token_type_embeddings"),
                )?,
                embeddings_norm: norm(&e, "LayerNorm", h, eps)?,
                layers,
                heads: config.num_attention_heads,
                tokenizer: tokenizer.clone(),
                dim: h,
            })
        };
        load().map_err(|e| format!("model.safetensors: {e}"))
    }

    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    /// The mean-pooled vectors of `texts`, one after the other.
    pub(crate) fn embed(&self, texts: &[String]) -> Result<Vec<f32>, String> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.iter().map(String::as_str).collect::<Vec<_>>(), true)
            .map_err(|e| e.to_string())?;
        let mut ids: Vec<(usize, Vec<u32>)> = encodings
            .into_iter()
            .map(|e| e.get_ids().to_vec())
            .enumerate()
            .collect();
        // Batches of similar length pad little.
        ids.sort_by_key(|(_, ids)| ids.len());
        // Each batch's vectors, with the index of the text each is for.
        type Batch = Result<Vec<(usize, Vec<f32>)>, String>;
        let batches: Vec<Batch> = ids
            .par_chunks(BATCH)
            .map(|batch| {
                let vectors = self.batch(batch).map_err(|e| e.to_string())?;
                Ok(batch.iter().map(|(i, _)| *i).zip(vectors).collect())
            })
            .collect();
        let mut out = vec![0f32; texts.len() * self.dim];
        for batch in batches {
            for (i, v) in batch? {
                out[i * self.dim..(i + 1) * self.dim].copy_from_slice(&v);
            }
        }
        Ok(out)
    }

    fn batch(&self, batch: &[(usize, Vec<u32>)]) -> candle_core::Result<Vec<Vec<f32>>> {
        let device = Device::Cpu;
        let len = batch
            .iter()
            .map(|(_, ids)| ids.len())
            .max()
            .unwrap_or(0)
            .max(1);
        let n = batch.len();
        let mut ids = vec![0u32; n * len];
        let mut mask = vec![0f32; n * len];
        for (row, (_, t)) in batch.iter().enumerate() {
            ids[row * len..row * len + t.len()].copy_from_slice(t);
            mask[row * len..row * len + t.len()].fill(1.0);
        }
        let ids = Tensor::from_vec(ids, (n, len), &device)?;
        let mask = Tensor::from_vec(mask, (n, len), &device)?;
        let positions = Tensor::arange(0u32, len as u32, &device)?.unsqueeze(0)?;
        let types = ids.zeros_like()?;
        let x = self
            .words
            .forward(&ids)?
            .broadcast_add(&self.positions.forward(&positions)?)?
            .add(&self.token_types.forward(&types)?)?;
        let mut x = self.embeddings_norm.forward(&x)?;
        // 0 where a token is, a large negative number on padding.
        let bias = ((mask.ones_like()? - &mask)? * -10_000.0)?.reshape((n, 1, 1, len))?;
        for layer in &self.layers {
            x = self.layer(layer, &x, &bias)?;
        }
        let weights = mask.unsqueeze(2)?;
        let summed = x.broadcast_mul(&weights)?.sum(1)?;
        let counts = weights.sum(1)?.clamp(1.0, f64::MAX)?;
        summed.broadcast_div(&counts)?.to_vec2::<f32>()
    }

    fn layer(&self, l: &Layer, x: &Tensor, bias: &Tensor) -> candle_core::Result<Tensor> {
        let (b, s, h) = x.dims3()?;
        let d = h / self.heads;
        let split = |t: Tensor| -> candle_core::Result<Tensor> {
            t.reshape((b, s, self.heads, d))?
                .transpose(1, 2)?
                .contiguous()
        };
        let q = split(l.query.forward(x)?)?;
        let k = split(l.key.forward(x)?)?;
        let v = split(l.value.forward(x)?)?;
        let scores = (q.matmul(&k.t()?)? / (d as f64).sqrt())?.broadcast_add(bias)?;
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b, s, h))?;
        let attended = l
            .attention_norm
            .forward(&(l.attention_out.forward(&context)? + x)?)?;
        let inner = l.intermediate.forward(&attended)?.gelu_erf()?;
        l.output_norm
            .forward(&(l.output.forward(&inner)? + attended)?)
    }
}
