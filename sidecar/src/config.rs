//! The configuration.
