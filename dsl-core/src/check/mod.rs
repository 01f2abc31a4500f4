//! Semantic checks.
