//! codegen-cuda
