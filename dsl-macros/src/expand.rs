//! Expansion: input → (parse, check, lower, emit) → `pub mod <kernel> { … }`.

use crate::report::{Origin, errors};
use dsl_core::ir::{DType, MemSpace, Module};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};

/// Token trees with invisible (`Delimiter::None`) groups flattened: a `macro_rules!` that
/// forwards `file = $path` wraps the literal in one.
fn flat(input: &TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for t in input.clone() {
        match t {
            TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::None => {
                out.extend(flat(&g.stream()))
            }
            other => out.push(other),
        }
    }
    out
}

/// `file = "path"` as the whole input.
fn file_arg(input: &TokenStream) -> Option<(String, Span)> {
    match flat(input).as_slice() {
        [
            TokenTree::Ident(i),
            TokenTree::Punct(p),
            TokenTree::Literal(l),
        ] if i == "file" && p.as_char() == '=' => {
            let s = l.to_string();
            let path = s.strip_prefix('"')?.strip_suffix('"')?.to_string();
            Some((path, l.span()))
        }
        _ => None,
    }
}

pub fn gemm_kernel(input: TokenStream) -> TokenStream {
    if let Some((path, lit)) = file_arg(&input) {
        return file_mode(&path, lit);
    }
    let dsl_text = crate::layout::dsl_text(&input);
    let table = dsl_core::parse::token_spans(input.clone());
    let origin = Origin::Tokens(&table);
    match dsl_core::parse::parse_tokens(input) {
        Ok(p) => finish(&p.module, &dsl_text, None, &origin, TokenStream::new()),
        Err(d) => stub(None, errors(&d.0, &origin)),
    }
}

fn file_mode(rel: &str, lit: Span) -> TokenStream {
    let root = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let full = std::path::Path::new(&root).join(rel);
    let origin = Origin::File {
        literal: lit,
        path: rel,
    };
    let text = match std::fs::read_to_string(&full) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!(
                "cannot read `{rel}`: {e} (the path is relative to the crate root, the folder of its Cargo.toml)"
            );
            return stub(
                None,
                quote::quote_spanned!(lit=> ::core::compile_error!(#msg);),
            );
        }
    };
    // Recompile when the file changes.
    let full_s = full.display().to_string();
    let track = quote!(
        const _: &[u8] = ::core::include_bytes!(#full_s);
    );
    match dsl_core::parse::parse_str(&text, Some(rel)) {
        Ok(p) => finish(&p.module, &text, Some(rel), &origin, track),
        Err(d) => stub(None, {
            let mut e = errors(&d.0, &origin);
            e.extend(track);
            e
        }),
    }
}

fn finish(
    m: &Module,
    dsl_text: &str,
    file: Option<&str>,
    origin: &Origin,
    extra: TokenStream,
) -> TokenStream {
    let name = m.kernel.name.name.clone();
    let info = match dsl_core::check::check(m) {
        Ok(i) => i,
        Err(d) => {
            return stub(Some(&name), {
                let mut e = errors(&d.0, origin);
                e.extend(extra);
                e
            });
        }
    };
    let kernel = match dsl_core::lower::lower(m, &info) {
        Ok(k) => k,
        Err(d) => {
            return stub(Some(&name), {
                let mut e = errors(&d.0, origin);
                e.extend(extra);
                e
            });
        }
    };
    let source = file.unwrap_or("a gemm_kernel! invocation");
    let cuda = codegen_cuda::emit(&codegen_cuda::Emit {
        kernel: &kernel,
        source,
        instance: None,
    });
    let ir = m.to_string();
    let module_ident = Ident::new(&name, Span::call_site());
    let file_tok = match file {
        Some(f) => quote!(::core::option::Option::Some(#f)),
        None => quote!(::core::option::Option::None),
    };
    let params = m.kernel.params.iter().map(|p| {
        let n = &p.name.name;
        let dt = dtype_tokens(p.dtype);
        let sp = space_tokens(p.space);
        let dims: Vec<String> = p.shape.iter().map(|&d| m.expr_to_string(d)).collect();
        quote!(::tessel::ParamDef { name: #n, dtype: #dt, space: #sp, shape: &[#(#dims),*] })
    });
    let tunables = m.tunables.iter().map(|t| {
        let n = &t.name.name;
        let dom = t.domain.iter().map(|v| Literal::i64_unsuffixed(*v));
        let def = Literal::i64_unsuffixed(t.default);
        quote!(::tessel::TunableDef { name: #n, domain: &[#(#dom),*], default: #def })
    });
    let launch_params = m.kernel.params.iter().enumerate().map(|(i, p)| {
        let id = format_ident!("{}", p.name.name);
        let ty = elem_type(p.dtype);
        if kernel.written_params.contains(&i) {
            quote!(#id: &mut ::tessel::runtime::tensor::DeviceTensor<#ty>)
        } else {
            quote!(#id: &::tessel::runtime::tensor::DeviceTensor<#ty>)
        }
    });
    let launch_args = m.kernel.params.iter().map(|p| {
        let id = format_ident!("{}", p.name.name);
        quote!(#id.as_arg())
    });
    let doc = format!(
        "The `{name}` kernel declared with `gemm_kernel!` (IR dump and CUDA in [`KERNEL`])."
    );
    quote! {
        #extra
        #[doc = #doc]
        #[allow(non_snake_case, non_upper_case_globals, dead_code, clippy::all)]
        pub mod #module_ident {
            /// Everything tessel knows about this kernel: DSL text, signature, tunables, the
            /// emitted CUDA template and the IR dump.
            pub static KERNEL: ::tessel::KernelDef = ::tessel::KernelDef {
                name: #name,
                dsl: #dsl_text,
                file: #file_tok,
                cuda: #cuda,
                ir: #ir,
                params: &[#(#params),*],
                tunables: &[#(#tunables),*],
            };
            /// The emitted CUDA C++ (a template over the tunables).
            pub const CUDA: &str = #cuda;
            /// The checked IR, as `tessel ir` prints it.
            pub const IR: &str = #ir;
            /// Every tunable at its default.
            pub fn config() -> ::tessel::Config { KERNEL.default_config() }
            /// The legality checks for a configuration (and, when given, a problem shape).
            pub fn check(config: &::tessel::Config, problem: ::core::option::Option<&::tessel::Problem>) -> ::core::result::Result<::tessel::KernelInfo, ::tessel::Diagnostics> {
                KERNEL.check(config, problem)
            }
            /// Shared memory (bytes) one block of this configuration uses.
            pub fn smem_bytes(config: &::tessel::Config) -> ::core::result::Result<u64, ::tessel::Diagnostics> {
                KERNEL.smem_bytes(config)
            }
            /// Compiles (cached) and launches the instance for `config` on `stream`. Shapes bind
            /// the symbolic dims; mismatches and misalignment are `Err`s, never UB.
            pub fn launch(stream: &::tessel::runtime::dsl::Stream, config: &::tessel::Config, #(#launch_params),*) -> ::core::result::Result<(), ::tessel::runtime::dsl::DslError> {
                ::tessel::runtime::dsl::launch(&KERNEL, stream, config, &[#(#launch_args),*])
            }
        }
    }
}

/// After an error: the compile errors plus a stub module, so uses of the kernel elsewhere do
/// not pile up follow-on errors.
fn stub(name: Option<&str>, errs: TokenStream) -> TokenStream {
    let Some(name) = name else { return errs };
    let id = format_ident!("{}", name);
    quote! {
        #errs
        #[allow(non_snake_case, dead_code)]
        pub mod #id {
            pub static KERNEL: ::tessel::KernelDef = ::tessel::KernelDef::INVALID;
            pub const CUDA: &str = "";
            pub const IR: &str = "";
            pub fn config() -> ::tessel::Config { ::core::unreachable!("kernel `{}` did not compile", #name) }
        }
    }
}

fn dtype_tokens(d: DType) -> TokenStream {
    let v = match d {
        DType::F16 => "F16",
        DType::BF16 => "BF16",
        DType::F32 => "F32",
        DType::F8E4M3 => "F8E4M3",
        DType::F8E5M2 => "F8E5M2",
        DType::I32 => "I32",
        DType::S8 => "S8",
        DType::U8 => "U8",
        DType::S16 => "S16",
        DType::U16 => "U16",
        DType::U32 => "U32",
        DType::S64 => "S64",
        DType::U64 => "U64",
        DType::F64 => "F64",
        DType::TF32 => "TF32",
        DType::Bool => "Bool",
        DType::F6E2M3 => "F6E2M3",
        DType::F6E3M2 => "F6E3M2",
        DType::F4E2M1 => "F4E2M1",
    };
    let id = Ident::new(v, Span::call_site());
    quote!(::tessel::DType::#id)
}

fn space_tokens(s: MemSpace) -> TokenStream {
    let v = match s {
        MemSpace::Global => "Global",
        MemSpace::Shared => "Shared",
        MemSpace::Local => "Local",
    };
    let id = Ident::new(v, Span::call_site());
    quote!(::tessel::MemSpace::#id)
}

fn elem_type(d: DType) -> TokenStream {
    match d {
        DType::F16 => quote!(::tessel::half::f16),
        DType::BF16 => quote!(::tessel::half::bf16),
        DType::F32 => quote!(f32),
        DType::I32 => quote!(i32),
        DType::F8E4M3 | DType::F8E5M2 => quote!(u8),
        DType::S8 => quote!(i8),
        DType::U8 => quote!(u8),
        DType::S16 => quote!(i16),
        DType::U16 => quote!(u16),
        DType::U32 => quote!(u32),
        DType::S64 => quote!(i64),
        DType::U64 => quote!(u64),
        DType::F64 => quote!(f64),
        DType::TF32 => quote!(f32),
        DType::Bool => quote!(bool),
        DType::F6E2M3 | DType::F6E3M2 | DType::F4E2M1 => quote!(u8),
    }
}
