//! Test and benchmark kit: a deterministic generator of realistic vaults
//! ([`generate`]) and the measurements behind `weft bench` ([`bench`]).
//!
//! Nothing here is used by the faces; it exists so that tests, benchmarks
//! and people can make large vaults and time the product's real paths.

pub mod bench;
pub mod generate;

pub use bench::{BenchOptions, BenchReport, Summary, index_bench};
pub use generate::{GenSpec, GenStats, generate, generate_or_reuse};
