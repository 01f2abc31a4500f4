//! Lowering passes.
