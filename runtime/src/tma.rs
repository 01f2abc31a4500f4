//! TMA tensor maps (`CUtensorMap`) for 2-D row-major tensors, via `cuTensorMapEncodeTiled`.
//!
//! ```no_run
//! use tessel_runtime::tma::{encode_tiled_2d, Tiled2d, TmaDtype};
//! # let lhs_ptr = 0u64;
//! // lhs: row-major [M=4096, K=4096] f16, boxes of 128 rows x 64 K-elements, 128B swizzle.
//! let map = encode_tiled_2d(&Tiled2d::new("lhs", lhs_ptr, TmaDtype::F16, 4096, 4096, 128, 64, 128))?;
//! # Ok::<(), tessel_runtime::tma::TmaError>(())
//! ```
//!
//! The argument arrays are built and checked by a pure function ([`TiledMapArgs::build`]),
//! following HOPPER_NOTES §d and the driver documentation:
//!
//! * dimensions are **innermost first**: row-major `[rows, cols]` → `globalDim = {cols, rows}`;
//! * `globalStrides` has rank − 1 = 1 entry, **in bytes**: `{row_stride_elems · elem_size}`,
//!   a multiple of 16 and < 2^40;
//! * the global address is 16-byte aligned;
//! * `boxDim[i]` in 1..=256; inner box bytes a multiple of 16 and, with a swizzle, at most the
//!   swizzle span (32/64/128 B) — f16 with 128B swizzle: inner box ≤ 64 elements;
//! * element strides all 1, no interleave, OOB fill NONE (zeros), L2 promotion 256B.
//!
//! Each violated rule is a [`TmaError`] naming the tensor and the dimension.
//! [`encode_tiled_2d`] then calls the driver (probing libcuda first; no panic without a GPU).

use cudarc::driver::sys::{
    self, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};

use crate::device::{DeviceError, guard};
use crate::dtype::DType;
use crate::locate;

/// Element types TMA moves for tessel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaDtype {
    /// binary16.
    F16,
    /// bfloat16.
    BF16,
    /// binary32.
    F32,
    /// Any byte type (fp8, s8): TMA moves bytes.
    U8,
    /// Any 16-bit integer type: TMA moves its bits.
    U16,
    /// Any 32-bit integer type (s32, u32): TMA moves its bits.
    I32,
}

impl TmaDtype {
    /// Bytes per element.
    pub fn size_bytes(self) -> u64 {
        match self {
            TmaDtype::U8 => 1,
            TmaDtype::F16 | TmaDtype::BF16 | TmaDtype::U16 => 2,
            TmaDtype::F32 | TmaDtype::I32 => 4,
        }
    }

    fn to_cu(self) -> CUtensorMapDataType {
        match self {
            TmaDtype::F16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            TmaDtype::BF16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            TmaDtype::F32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
            TmaDtype::U8 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8,
            TmaDtype::U16 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
            TmaDtype::I32 => CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_INT32,
        }
    }
}

impl From<DType> for TmaDtype {
    fn from(d: DType) -> Self {
        match d {
            DType::F16 => TmaDtype::F16,
            DType::BF16 => TmaDtype::BF16,
            DType::F32 => TmaDtype::F32,
            DType::F8E4M3 | DType::F8E5M2 | DType::S8 | DType::U8 => TmaDtype::U8,
            DType::S16 | DType::U16 => TmaDtype::U16,
            DType::S32 | DType::U32 => TmaDtype::I32,
        }
    }
}

/// A 2-D tiled tensor-map description (row-major tensor, row-major box).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tiled2d {
    /// Tensor name for error messages (`lhs`, `rhs`, `out`).
    pub name: String,
    /// Device address of element (0, 0).
    pub ptr: u64,
    /// Element type.
    pub dtype: TmaDtype,
    /// Rows (outer dimension).
    pub rows: u64,
    /// Columns (inner, contiguous dimension).
    pub cols: u64,
    /// Distance between rows, in elements (≥ cols).
    pub row_stride_elems: u64,
    /// Box rows.
    pub box_rows: u32,
    /// Box columns.
    pub box_cols: u32,
    /// Swizzle span in bytes: 0 (none), 32, 64 or 128.
    pub swizzle_bytes: u32,
}

impl Tiled2d {
    /// A description of a dense tensor (`row_stride_elems = cols`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: &str,
        ptr: u64,
        dtype: TmaDtype,
        rows: u64,
        cols: u64,
        box_rows: u32,
        box_cols: u32,
        swizzle_bytes: u32,
    ) -> Self {
        Self {
            name: name.to_string(),
            ptr,
            dtype,
            rows,
            cols,
            row_stride_elems: cols,
            box_rows,
            box_cols,
            swizzle_bytes,
        }
    }
}

/// A rule of the tensor-map encoder that a description breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TmaError {
    /// The global address is not 16-byte aligned.
    #[error("tensor map `{tensor}`: global address {addr:#x} is not 16-byte aligned")]
    MisalignedAddress {
        /// Tensor name.
        tensor: String,
        /// The address.
        addr: u64,
    },
    /// A global dimension outside 1..=2^32.
    #[error("tensor map `{tensor}`: {dim} = {value} is outside 1..=2^32")]
    BadDim {
        /// Tensor name.
        tensor: String,
        /// Which dimension (`cols (dim 0, innermost)`, `rows (dim 1)`).
        dim: &'static str,
        /// The value.
        value: u64,
    },
    /// The row stride is smaller than a row.
    #[error("tensor map `{tensor}`: row stride {stride} elements is smaller than cols = {cols}")]
    StrideTooSmall {
        /// Tensor name.
        tensor: String,
        /// Row stride in elements.
        stride: u64,
        /// Columns.
        cols: u64,
    },
    /// The row stride in bytes is not a multiple of 16 (or too large).
    #[error(
        "tensor map `{tensor}`: stride of dim 1 (rows) is {stride_bytes} bytes; it must be a multiple of 16 and < 2^40 (pad the leading dimension to a multiple of {pad} elements)"
    )]
    BadStride {
        /// Tensor name.
        tensor: String,
        /// Stride in bytes.
        stride_bytes: u64,
        /// Elements per 16 bytes.
        pad: u64,
    },
    /// A box dimension outside 1..=256.
    #[error("tensor map `{tensor}`: box {dim} = {value} is outside 1..=256")]
    BadBox {
        /// Tensor name.
        tensor: String,
        /// Which dimension.
        dim: &'static str,
        /// The value.
        value: u32,
    },
    /// The inner box is not a multiple of 16 bytes.
    #[error(
        "tensor map `{tensor}`: inner box (dim 0, cols) is {bytes} bytes; it must be a multiple of 16"
    )]
    InnerBoxNotMultipleOf16 {
        /// Tensor name.
        tensor: String,
        /// Inner box bytes.
        bytes: u64,
    },
    /// The inner box is wider than the swizzle span.
    #[error(
        "tensor map `{tensor}`: inner box (dim 0, cols) is {bytes} bytes, wider than the {swizzle}B swizzle span; use box_cols <= {max_cols}"
    )]
    InnerBoxExceedsSwizzle {
        /// Tensor name.
        tensor: String,
        /// Inner box bytes.
        bytes: u64,
        /// Swizzle span.
        swizzle: u32,
        /// Largest legal box_cols.
        max_cols: u64,
    },
    /// Unsupported swizzle span.
    #[error("tensor map `{tensor}`: swizzle of {swizzle} bytes is not one of 0, 32, 64, 128")]
    BadSwizzle {
        /// Tensor name.
        tensor: String,
        /// The value.
        swizzle: u32,
    },
    /// The driver rejected the arguments (or is missing).
    #[error("tensor map `{tensor}`: cuTensorMapEncodeTiled failed: {message}")]
    Encode {
        /// Tensor name.
        tensor: String,
        /// The driver error.
        message: String,
    },
}

/// The exact arguments of `cuTensorMapEncodeTiled` for a rank-2 map.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMapArgs {
    /// Data type.
    pub dtype: CUtensorMapDataType,
    /// Rank (2).
    pub rank: u32,
    /// Global address.
    pub global_address: u64,
    /// `{cols, rows}`.
    pub global_dim: [u64; 2],
    /// `{row stride in bytes}`.
    pub global_strides: [u64; 1],
    /// `{box_cols, box_rows}`.
    pub box_dim: [u32; 2],
    /// `{1, 1}`.
    pub element_strides: [u32; 2],
    /// No interleave.
    pub interleave: CUtensorMapInterleave,
    /// Swizzle mode.
    pub swizzle: CUtensorMapSwizzle,
    /// L2 promotion.
    pub l2_promotion: CUtensorMapL2promotion,
    /// Out-of-bounds fill (zeros).
    pub oob_fill: CUtensorMapFloatOOBfill,
}

impl TiledMapArgs {
    /// Checks `d` against the encoder's rules and builds the arguments.
    pub fn build(d: &Tiled2d) -> Result<TiledMapArgs, TmaError> {
        let tensor = || d.name.clone();
        let esize = d.dtype.size_bytes();
        if !d.ptr.is_multiple_of(16) {
            return Err(TmaError::MisalignedAddress {
                tensor: tensor(),
                addr: d.ptr,
            });
        }
        for (dim, value) in [
            ("cols (dim 0, innermost)", d.cols),
            ("rows (dim 1)", d.rows),
        ] {
            if value == 0 || value > 1 << 32 {
                return Err(TmaError::BadDim {
                    tensor: tensor(),
                    dim,
                    value,
                });
            }
        }
        if d.row_stride_elems < d.cols {
            return Err(TmaError::StrideTooSmall {
                tensor: tensor(),
                stride: d.row_stride_elems,
                cols: d.cols,
            });
        }
        let stride_bytes = d.row_stride_elems.saturating_mul(esize);
        if !stride_bytes.is_multiple_of(16) || stride_bytes >= 1 << 40 {
            return Err(TmaError::BadStride {
                tensor: tensor(),
                stride_bytes,
                pad: 16 / esize,
            });
        }
        for (dim, value) in [
            ("box_cols (dim 0, innermost)", d.box_cols),
            ("box_rows (dim 1)", d.box_rows),
        ] {
            if value == 0 || value > 256 {
                return Err(TmaError::BadBox {
                    tensor: tensor(),
                    dim,
                    value,
                });
            }
        }
        let inner_bytes = u64::from(d.box_cols) * esize;
        if !inner_bytes.is_multiple_of(16) {
            return Err(TmaError::InnerBoxNotMultipleOf16 {
                tensor: tensor(),
                bytes: inner_bytes,
            });
        }
        let swizzle = match d.swizzle_bytes {
            0 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            other => {
                return Err(TmaError::BadSwizzle {
                    tensor: tensor(),
                    swizzle: other,
                });
            }
        };
        if d.swizzle_bytes != 0 && inner_bytes > u64::from(d.swizzle_bytes) {
            return Err(TmaError::InnerBoxExceedsSwizzle {
                tensor: tensor(),
                bytes: inner_bytes,
                swizzle: d.swizzle_bytes,
                max_cols: u64::from(d.swizzle_bytes) / esize,
            });
        }
        Ok(TiledMapArgs {
            dtype: d.dtype.to_cu(),
            rank: 2,
            global_address: d.ptr,
            global_dim: [d.cols, d.rows],
            global_strides: [stride_bytes],
            box_dim: [d.box_cols, d.box_rows],
            element_strides: [1, 1],
            interleave: CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            l2_promotion: CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            oob_fill: CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        })
    }

    /// Bytes one box delivers (the mbarrier transaction count of one load).
    pub fn box_bytes(&self) -> u64 {
        let esize = match self.dtype {
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32 => 4,
            _ => 2,
        };
        u64::from(self.box_dim[0]) * u64::from(self.box_dim[1]) * esize
    }
}

/// An encoded 128-byte tensor map, passed by value as a `const __grid_constant__` kernel
/// parameter (see [`crate::launch::KernelArg::TensorMap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct TensorMap(pub sys::CUtensorMap);

impl TensorMap {
    /// The 128 raw bytes.
    pub fn to_bytes(&self) -> [u8; 128] {
        let mut out = [0u8; 128];
        for (chunk, word) in out.chunks_exact_mut(8).zip(self.0.opaque.iter()) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }
}

/// Checks `d` and encodes it with the driver.
pub fn encode_tiled_2d(d: &Tiled2d) -> Result<TensorMap, TmaError> {
    let args = TiledMapArgs::build(d)?;
    let encode_err = |message: String| TmaError::Encode {
        tensor: d.name.clone(),
        message,
    };
    locate::probe_libcuda().map_err(|e| encode_err(e.to_string()))?;
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    let result = guard("cuTensorMapEncodeTiled", || {
        // SAFETY: every array has `rank` (or rank − 1) entries as the driver expects; `map` is a
        // valid, suitably aligned CUtensorMap.
        unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                args.dtype,
                args.rank,
                args.global_address as *mut std::ffi::c_void,
                args.global_dim.as_ptr(),
                args.global_strides.as_ptr(),
                args.box_dim.as_ptr(),
                args.element_strides.as_ptr(),
                args.interleave,
                args.swizzle,
                args.l2_promotion,
                args.oob_fill,
            )
            .result()
        }
    });
    match result {
        Ok(()) => Ok(TensorMap(map)),
        Err(DeviceError::Driver { source, .. }) => Err(encode_err(format!("{source:?}"))),
        Err(e) => Err(encode_err(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lhs() -> Tiled2d {
        Tiled2d::new(
            "lhs",
            0x7f00_0000_0000,
            TmaDtype::F16,
            4096,
            1024,
            128,
            64,
            128,
        )
    }

    #[test]
    fn builds_innermost_first_byte_strides() {
        let a = TiledMapArgs::build(&lhs()).unwrap();
        assert_eq!(a.rank, 2);
        assert_eq!(a.global_dim, [1024, 4096]);
        assert_eq!(a.global_strides, [2048]);
        assert_eq!(a.box_dim, [64, 128]);
        assert_eq!(a.element_strides, [1, 1]);
        assert_eq!(a.swizzle, CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B);
        assert_eq!(
            a.dtype,
            CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16
        );
        assert_eq!(a.box_bytes(), 64 * 128 * 2);
        let padded = Tiled2d {
            row_stride_elems: 1032,
            ..lhs()
        };
        assert_eq!(TiledMapArgs::build(&padded).unwrap().global_strides, [2064]);
        let f32_out = Tiled2d::new("out", 0x1000, TmaDtype::F32, 100, 100, 64, 32, 128);
        let a = TiledMapArgs::build(&f32_out).unwrap();
        assert_eq!((a.global_strides, a.box_bytes()), ([400], 64 * 32 * 4));
    }

    #[test]
    fn rejects_misaligned_address() {
        let e = TiledMapArgs::build(&Tiled2d {
            ptr: 0x1008,
            ..lhs()
        })
        .unwrap_err();
        assert_eq!(
            e,
            TmaError::MisalignedAddress {
                tensor: "lhs".into(),
                addr: 0x1008
            }
        );
        assert!(e.to_string().contains("`lhs`"));
    }

    #[test]
    fn rejects_stride_not_multiple_of_16_bytes() {
        // f16 K = 100 → 200-byte rows (HOPPER_NOTES pitfall 14); K = 200 is fine.
        let bad = Tiled2d::new("rhs", 0x1000, TmaDtype::F16, 64, 100, 64, 64, 128);
        match TiledMapArgs::build(&bad).unwrap_err() {
            TmaError::BadStride {
                tensor,
                stride_bytes,
                pad,
            } => assert_eq!((tensor.as_str(), stride_bytes, pad), ("rhs", 200, 8)),
            e => panic!("{e:?}"),
        }
        let ok = Tiled2d::new("rhs", 0x1000, TmaDtype::F16, 64, 200, 64, 64, 128);
        assert!(TiledMapArgs::build(&ok).is_ok());
        let short = Tiled2d {
            row_stride_elems: 512,
            ..lhs()
        };
        assert!(matches!(
            TiledMapArgs::build(&short),
            Err(TmaError::StrideTooSmall { .. })
        ));
    }

    #[test]
    fn rejects_inner_box_wider_than_swizzle() {
        // 128 f16 = 256 B > 128B swizzle (pitfall 15).
        let e = TiledMapArgs::build(&Tiled2d {
            box_cols: 128,
            ..lhs()
        })
        .unwrap_err();
        assert_eq!(
            e,
            TmaError::InnerBoxExceedsSwizzle {
                tensor: "lhs".into(),
                bytes: 256,
                swizzle: 128,
                max_cols: 64
            }
        );
        // Without swizzle 128 columns are fine; with 64B swizzle only 32.
        assert!(
            TiledMapArgs::build(&Tiled2d {
                box_cols: 128,
                swizzle_bytes: 0,
                ..lhs()
            })
            .is_ok()
        );
        assert!(matches!(
            TiledMapArgs::build(&Tiled2d {
                swizzle_bytes: 64,
                ..lhs()
            }),
            Err(TmaError::InnerBoxExceedsSwizzle { max_cols: 32, .. })
        ));
    }

    #[test]
    fn rejects_bad_boxes_dims_and_swizzles() {
        let cases = [
            Tiled2d {
                box_rows: 0,
                ..lhs()
            },
            Tiled2d {
                box_rows: 257,
                ..lhs()
            },
            Tiled2d {
                box_cols: 4,
                swizzle_bytes: 0,
                ..lhs()
            },
            Tiled2d { rows: 0, ..lhs() },
            Tiled2d {
                swizzle_bytes: 96,
                ..lhs()
            },
        ];
        let names: Vec<String> = cases
            .iter()
            .map(|c| match TiledMapArgs::build(c).unwrap_err() {
                TmaError::BadBox { dim, .. } => format!("box:{dim}"),
                TmaError::InnerBoxNotMultipleOf16 { bytes, .. } => format!("inner:{bytes}"),
                TmaError::BadDim { dim, .. } => format!("dim:{dim}"),
                TmaError::BadSwizzle { swizzle, .. } => format!("swizzle:{swizzle}"),
                e => format!("other:{e}"),
            })
            .collect();
        assert_eq!(
            names,
            [
                "box:box_rows (dim 1)",
                "box:box_rows (dim 1)",
                "inner:8",
                "dim:rows (dim 1)",
                "swizzle:96"
            ]
        );
    }

    #[test]
    fn encode_without_driver_is_an_error_not_a_panic() {
        if locate::probe_libcuda().is_ok() {
            return; // a machine with a driver: covered by the GPU tests
        }
        let e = encode_tiled_2d(&lhs()).unwrap_err();
        assert!(matches!(e, TmaError::Encode { .. }), "{e:?}");
        // Argument errors come first, driver or not.
        assert!(matches!(
            encode_tiled_2d(&Tiled2d { ptr: 1, ..lhs() }),
            Err(TmaError::MisalignedAddress { .. })
        ));
    }
}
