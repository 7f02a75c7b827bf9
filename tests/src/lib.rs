//! End-to-end tests: real clients against the built `weft` binary.
