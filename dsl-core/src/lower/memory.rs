//! Pass `memory`: places every `shared` tensor in the kernel's dynamic shared memory
//! (`tsl_smem`), each at an offset aligned for its use (1024 B on the Hopper path, where TMA
//! and WGMMA swizzle patterns repeat every 1024 B; 128 B otherwise), and counts the bytes.
//! The buffers are the checker's ([`KernelInfo::shared`]): the shared tensors and the fresh
//! buffer of each future (`f = dma.copy … => shared;`, `f = tma.copy … => shared;`: a shared
//! tensor named `f`, of its source's tile shape, `check::fresh_tile`), each of the checker's
//! size (`SharedBuffer::sym_bytes`, the formula the budget check evaluates). A buffer may be
//! sized by problem sizes (`check/launch_sized.rs`): the offsets after it are then computed by
//! the kernel from its parameters (`CudaKernel::launch_time_constants`, printed `const int`),
//! and the total is the launch's to evaluate.

use super::error::LowerError;
use super::kernel::{ConstValue, KernelPath};
use crate::check::KernelInfo;
use crate::ir::{DType, Module};
use crate::sym::Sym;

#[derive(Clone, Debug, PartialEq)]
pub struct SharedSlot {
    pub name: String,
    /// Bytes of all array entries.
    pub bytes: Sym,
    /// `constexpr` name of the byte offset in the emitted kernel.
    pub offset_name: String,
    /// The offset: 0 for the first slot, else the end of the previous slot aligned up.
    pub offset: ConstValue,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Memory {
    pub slots: Vec<SharedSlot>,
    pub align: i64,
    /// Host-side total dynamic shared memory (bytes, including alignment slack).
    pub total: Sym,
    /// The fresh buffers of futures: name, element type, shape.
    pub fresh: Vec<(String, DType, Vec<Sym>)>,
}

impl Memory {
    pub fn slot(&self, name: &str) -> Option<&SharedSlot> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// The element type and shape of the fresh buffer of future `name`.
    pub fn fresh(&self, name: &str) -> Option<(DType, &[Sym])> {
        self.fresh
            .iter()
            .find(|f| f.0 == name)
            .map(|f| (f.1, f.2.as_slice()))
    }
}

fn shape_error(m: &Module, d: crate::ir::ExprId) -> LowerError {
    LowerError::new(
        m.expr_span(d),
        "a shared buffer's shape and array count must be arithmetic over tunables and constants",
    )
}

fn align_up(x: Sym, a: i64) -> Sym {
    Sym::mul(Sym::cdiv(x, Sym::Int(a)), Sym::Int(a))
}

pub fn run(m: &Module, info: &KernelInfo, path: KernelPath) -> Result<Memory, LowerError> {
    let align = if path == KernelPath::Hopper {
        1024
    } else {
        128
    };
    let mut mem = Memory {
        align,
        ..Default::default()
    };
    let mut end = Sym::Int(0);
    let mut prev: Option<(String, Sym)> = None;
    for buf in &info.shared {
        if buf.fresh {
            let shape = buf.sym_shape().map_err(|d| shape_error(m, d))?;
            mem.fresh.push((buf.name.clone(), buf.dtype, shape));
        }
        let bytes = buf.sym_bytes(m).map_err(|d| shape_error(m, d))?;
        let offset_name = format!("tsl_smem_{}", buf.name);
        let offset = match &prev {
            None => ConstValue::Int(Sym::Int(0)),
            Some((after, bytes)) => ConstValue::AlignUp {
                after: after.clone(),
                bytes: bytes.clone(),
                align,
            },
        };
        let start = if prev.is_none() {
            Sym::Int(0)
        } else {
            align_up(end.clone(), align)
        };
        end = Sym::add(start, bytes.clone());
        prev = Some((offset_name.clone(), bytes.clone()));
        mem.slots.push(SharedSlot {
            name: buf.name.clone(),
            bytes,
            offset_name,
            offset,
        });
    }
    // Slack so the kernel can round the dynamic base up to the alignment.
    mem.total = if mem.slots.is_empty() {
        Sym::Int(0)
    } else {
        Sym::add(end, Sym::Int(align))
    };
    Ok(mem)
}
