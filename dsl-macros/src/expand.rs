//! Expansion: input → (parse, check, lower, emit) → `pub mod <kernel> { … }`.

use crate::report::{Origin, errors};
use dsl_core::ir::{DType, MemSpace, Module};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};

pub fn gemm_kernel(input: TokenStream) -> TokenStream {
    match crate::args::file_arg(&input) {
        Some(Ok(arg)) => return file_mode(&arg.path, arg.span),
        Some(Err(e)) => return stub(None, e.to_compile_error()),
        None => {}
    }
    // Several `__co__` functions: each is its own kernel module, with the header items written
    // before it.
    let parts = split_functions(&input);
    if parts.len() > 1 {
        if let Some(err) = duplicate_name(&input) {
            return stub(None, err);
        }
        return parts.into_iter().map(one_kernel).collect();
    }
    one_kernel(input)
}

/// A `compile_error!` at the name of a `__co__` function an earlier function of the invocation
/// already took (each function becomes a module of its name), if any.
fn duplicate_name(input: &TokenStream) -> Option<TokenStream> {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
    let mut seen: Vec<String> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if !matches!(t, TokenTree::Ident(id) if id == "__co__") {
            continue;
        }
        // The name is the last identifier before the parameter list.
        let name = tokens[i + 1..]
            .iter()
            .take_while(
                |t| !matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis),
            )
            .filter_map(|t| match t {
                TokenTree::Ident(id) => Some(id.clone()),
                _ => None,
            })
            .last()?;
        let text = name.to_string();
        if seen.contains(&text) {
            let d = dsl_core::Diagnostic::new(
                dsl_core::parse::codes::BAD_KERNEL,
                dsl_core::Span::DUMMY,
                format!("a second `__co__` function named `{text}`"),
            )
            .with_help("each function of an invocation is a kernel module of its name: rename one");
            let msg = d.rendered_message();
            let span = name.span();
            return Some(quote::quote_spanned!(span=> ::core::compile_error!{ #msg }));
        }
        seen.push(text);
    }
    None
}

/// The invocation split into one token stream per `__co__` function, each with the tokens that
/// precede it outside any function (header items: tunables, constants, `#define`s), so each
/// parses as a one-function invocation; tokens after the last function stay with it (so a
/// stray token is still reported). Fewer than two functions: the input as it is.
fn split_functions(input: &TokenStream) -> Vec<TokenStream> {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = input.clone().into_iter().collect();
    let mut header: Vec<TokenTree> = Vec::new();
    let mut parts: Vec<Vec<TokenTree>> = Vec::new();
    // How much of `header` the last function saw: what follows it is trailing.
    let mut seen_by_last = 0;
    let mut i = 0;
    while i < tokens.len() {
        if !matches!(&tokens[i], TokenTree::Ident(id) if id == "__co__") {
            header.push(tokens[i].clone());
            i += 1;
            continue;
        }
        // The function runs to the first brace group after its parameter list.
        let mut j = i + 1;
        let mut seen_params = false;
        while j < tokens.len() {
            match &tokens[j] {
                TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
                    seen_params = true
                }
                TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && seen_params => break,
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(tokens.len());
        let mut part = header.clone();
        part.extend(tokens[i..end].iter().cloned());
        parts.push(part);
        seen_by_last = header.len();
        i = end;
    }
    if parts.len() < 2 {
        return vec![input.clone()];
    }
    if let Some(last) = parts.last_mut() {
        last.extend(header[seen_by_last..].iter().cloned());
    }
    parts.into_iter().map(|p| p.into_iter().collect()).collect()
}

/// One `__co__` function (with its header items): parse, check, lower, emit, expand.
fn one_kernel(input: TokenStream) -> TokenStream {
    let dsl_text = crate::layout::dsl_text(&input);
    let table = dsl_core::parse::token_spans(input.clone());
    let origin = Origin::Tokens(&table);
    match dsl_core::parse::parse_tokens(input) {
        // A body-declared output becomes a parameter of the launch (`launch_form`).
        Ok(p) => finish(
            &dsl_core::lower::launch_form(p.module),
            &dsl_text,
            None,
            &origin,
            TokenStream::new(),
        ),
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
    // A file of several `__co__` functions: one kernel module per function, each carrying its
    // own text (the others blanked) for the later stages.
    let texts = dsl_core::parse::function_texts(&text);
    if texts.len() > 1 {
        let dups = dsl_core::parse::duplicate_functions(&text);
        if !dups.is_empty() {
            return stub(None, errors(&dups, &origin));
        }
        let mut out = track;
        for (_, one) in &texts {
            out.extend(match dsl_core::parse::parse_str(one, Some(rel)) {
                Ok(p) => finish(
                    &dsl_core::lower::launch_form(p.module),
                    one,
                    Some(rel),
                    &origin,
                    TokenStream::new(),
                ),
                Err(d) => stub(None, errors(&d.0, &origin)),
            });
        }
        return out;
    }
    match dsl_core::parse::parse_str(&text, Some(rel)) {
        Ok(p) => finish(
            &dsl_core::lower::launch_form(p.module),
            &text,
            Some(rel),
            &origin,
            track,
        ),
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
            return stub(Some((&name, m.kernel.params.len())), {
                let mut e = errors(&d.0, origin);
                e.extend(extra);
                e
            });
        }
    };
    let kernel = match dsl_core::lower::lower(m, &info) {
        Ok(k) => k,
        Err(d) => {
            return stub(Some((&name, m.kernel.params.len())), {
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
    // Typed `launch` arguments: views of the declared element type, writable for the
    // parameters the kernel writes.
    let typed = m
        .kernel
        .params
        .iter()
        .all(|p| matches!(p.dtype, DType::F16 | DType::BF16 | DType::F32));
    let launch_params: Vec<TokenStream> = m
        .kernel
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let id = format_ident!("{}", p.name.name);
            let ty = elem_type(p.dtype);
            if kernel.written_params.contains(&i) {
                quote!(#id: ::tessel::runtime::tensor::TensorMut<'_, #ty>)
            } else {
                quote!(#id: ::tessel::runtime::tensor::TensorRef<'_, #ty>)
            }
        })
        .collect();
    let launch_args: Vec<TokenStream> = m
        .kernel
        .params
        .iter()
        .map(|p| {
            let id = format_ident!("{}", p.name.name);
            quote!(::tessel::runtime::kernel::LaunchArg::from(#id))
        })
        .collect();
    let signature = m
        .kernel
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let dims: Vec<String> = p.shape.iter().map(|&d| m.expr_to_string(d)).collect();
            let access = if kernel.written_params.contains(&i) {
                "`TensorMut`"
            } else {
                "`TensorRef`"
            };
            format!(
                "`{}`: {} `[{}]`, {access}",
                p.name.name,
                p.dtype,
                dims.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let launch_doc = format!(
        "Checks the tensors against the signature ({signature}) and launches on the handle's \
         stream. Bad shapes and sizes are `Err`s; nothing is launched then."
    );
    let typed_launch = |inner: TokenStream| {
        if typed {
            quote! {
                #[doc = #launch_doc]
                pub fn launch(&self, #(#launch_params),*) -> ::core::result::Result<(), ::tessel::runtime::dsl::DslError> {
                    #inner.launch(&[#(#launch_args),*])
                }
            }
        } else {
            TokenStream::new()
        }
    };
    let handle_launch = typed_launch(quote!(self.inner));
    let autotuned_launch = typed_launch(quote!(self.inner));
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
            /// This kernel compiled for one configuration and loaded on a stream: see [`load`].
            #[derive(Debug)]
            pub struct Handle {
                inner: ::tessel::runtime::kernel::CompiledKernel,
            }
            /// Checks the kernel for `config` and the device of `stream`, compiles it (NVRTC,
            /// cached) and loads it, once. Launches go to `stream`; the loaded module lives as
            /// long as the handle.
            pub fn load(stream: &::std::sync::Arc<::tessel::runtime::cudarc::driver::CudaStream>, config: &::tessel::Config) -> ::core::result::Result<Handle, ::tessel::runtime::dsl::DslError> {
                ::tessel::runtime::kernel::load(&KERNEL, stream, config).map(|inner| Handle { inner })
            }
            impl Handle {
                #handle_launch
                /// Launches with untyped tensor arguments (checked the same way).
                pub fn launch_args(&self, args: &[::tessel::runtime::kernel::LaunchArg<'_>]) -> ::core::result::Result<(), ::tessel::runtime::dsl::DslError> {
                    self.inner.launch(args)
                }
                /// The runtime's handle (configuration, resources, launch plan).
                pub fn compiled(&self) -> &::tessel::runtime::kernel::CompiledKernel {
                    &self.inner
                }
            }
            /// This kernel dispatching each problem shape to the tuner's cached winner for it
            /// (the default configuration where none is cached): see [`autotuned`].
            #[derive(Debug)]
            pub struct Autotuned {
                inner: ::tessel::runtime::kernel::Autotuned,
            }
            /// An autotuned handle on `stream` (loads the default configuration now, a cached
            /// winner on the first launch of each shape).
            pub fn autotuned(stream: &::std::sync::Arc<::tessel::runtime::cudarc::driver::CudaStream>) -> ::core::result::Result<Autotuned, ::tessel::runtime::dsl::DslError> {
                ::tessel::runtime::kernel::autotuned(&KERNEL, stream).map(|inner| Autotuned { inner })
            }
            impl Autotuned {
                #autotuned_launch
                /// Launches with untyped tensor arguments (checked the same way).
                pub fn launch_args(&self, args: &[::tessel::runtime::kernel::LaunchArg<'_>]) -> ::core::result::Result<(), ::tessel::runtime::dsl::DslError> {
                    self.inner.launch(args)
                }
                /// Reads winners from the tune cache in `dir` instead of the default folder.
                pub fn with_tune_cache(self, dir: impl ::core::convert::Into<::std::path::PathBuf>) -> Self {
                    Autotuned { inner: self.inner.with_tune_cache(dir) }
                }
                /// Tunes a shape on its first launch when no winner is cached (see
                /// `tessel::runtime::kernel::Autotuned::tune_on_first_use`; `main` must start
                /// with `tessel::runtime::tune::worker_main_if_requested(&[&KERNEL])`).
                pub fn tune_on_first_use(self, opts: ::tessel::runtime::tune::TuneOptions) -> Self {
                    Autotuned { inner: self.inner.tune_on_first_use(opts) }
                }
                /// The runtime's autotuned handle (which configuration a shape gets).
                pub fn runtime(&self) -> &::tessel::runtime::kernel::Autotuned {
                    &self.inner
                }
            }
        }
    }
}

/// After an error: the compile errors plus a stub module with the kernel's API (`load`,
/// `autotuned`, a `launch` of the right arity), so uses of the kernel elsewhere do not pile up
/// follow-on errors. Nothing in it runs: the crate does not compile.
fn stub(kernel: Option<(&str, usize)>, errs: TokenStream) -> TokenStream {
    let Some((name, arity)) = kernel else {
        return errs;
    };
    let id = format_ident!("{}", name);
    let generics: Vec<Ident> = (0..arity).map(|i| format_ident!("A{}", i)).collect();
    let args: Vec<Ident> = (0..arity).map(|i| format_ident!("_a{}", i)).collect();
    let launch = quote! {
        pub fn launch<#(#generics),*>(&self, #(#args: #generics),*) -> ::core::result::Result<(), ::tessel::runtime::dsl::DslError> {
            ::core::unreachable!("kernel `{}` did not compile", #name)
        }
    };
    quote! {
        #errs
        #[allow(non_snake_case, dead_code, missing_docs)]
        pub mod #id {
            pub static KERNEL: ::tessel::KernelDef = ::tessel::KernelDef::INVALID;
            pub const CUDA: &str = "";
            pub const IR: &str = "";
            pub fn config() -> ::tessel::Config { ::core::unreachable!("kernel `{}` did not compile", #name) }
            pub struct Handle;
            pub struct Autotuned;
            pub fn load<S, C>(_stream: S, _config: C) -> ::core::result::Result<Handle, ::tessel::runtime::dsl::DslError> {
                ::core::unreachable!("kernel `{}` did not compile", #name)
            }
            pub fn autotuned<S>(_stream: S) -> ::core::result::Result<Autotuned, ::tessel::runtime::dsl::DslError> {
                ::core::unreachable!("kernel `{}` did not compile", #name)
            }
            impl Handle { #launch }
            impl Autotuned { #launch }
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
        DType::U1 => "U1",
        DType::U2 => "U2",
        DType::S2 => "S2",
        DType::U4 => "U4",
        DType::S4 => "S4",
        DType::U6 => "U6",
        DType::S6 => "S6",
        DType::Bin1 => "Bin1",
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
        DType::U1 | DType::U2 | DType::U4 | DType::U6 | DType::Bin1 => quote!(u8),
        DType::S2 | DType::S4 | DType::S6 => quote!(i8),
    }
}
