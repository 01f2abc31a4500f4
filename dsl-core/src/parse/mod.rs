//! The Croqtile parser: tokens → [`ir::Module`](crate::ir::Module).
//!
//! Two entry points share one parser. [`parse_tokens`] takes the `proc_macro2` tokens of a
//! `gemm_kernel! { … }` invocation; [`parse_str`] lexes a `.co` file with proc_macro2's own
//! fallback lexer (so `a#b` without spaces is accepted, which rustc rejects inside a macro)
//! and then does the same. The token stream is flattened into one vector (`lexer`), which a
//! recursive-descent parser walks (`cursor` for the machinery, `header` for the module level,
//! `stmt`/`bind`/`ops` for statements, `expr` for expressions).
//!
//! Every IR node gets a [`Span`](crate::span::Span) whose `first_token`/`last_token` index
//! [`TokenTable::spans`], so the macro can turn a diagnostic back into compiler spans. The
//! parser never panics: every malformed input becomes a [`Diagnostic`](crate::Diagnostic)
//! (codes in [`codes`]), and it recovers at `;`, `}` and header items to report several
//! errors per run.

mod array;
mod bind;
mod cluster;
pub mod codes;
mod cursor;
mod expr;
mod ext;
mod filemode;
mod frag_array;
mod header;
mod ituple;
mod levels;
mod lexer;
mod limits;
mod ops;
mod shape_ops;
mod steps;
mod stmt;
mod suggest;
mod wgmma_copies;

use crate::diag::Diagnostics;
use crate::ir::{Module, Source};

/// A parsed module and the compiler spans of its tokens.
#[derive(Debug)]
pub struct Parsed {
    pub module: Module,
    pub tokens: TokenTable,
    /// Notes that are not errors (file mode: the host C++ and preprocessor lines skipped).
    pub notes: Vec<crate::Diagnostic>,
}

/// proc_macro2 spans of every token, indexed by `Span::first_token` / `last_token` (the macro
/// maps our Span back to compiler spans with it). Delimiters are tokens of their own: an
/// opening and a closing token per group. In file mode these are fallback spans, which carry
/// line/column but cannot be handed to the compiler.
#[derive(Debug, Default)]
pub struct TokenTable {
    pub spans: Vec<proc_macro2::Span>,
}

impl TokenTable {
    /// The compiler span of token `index`, if it exists (`u32::MAX` marks synthetic spans).
    pub fn get(&self, index: u32) -> Option<proc_macro2::Span> {
        self.spans.get(index as usize).copied()
    }
}

/// The token table [`parse_tokens`] would build for `ts`, without parsing: the macro needs it
/// to place diagnostics when parsing fails (the error carries only our spans).
pub fn token_spans(ts: proc_macro2::TokenStream) -> TokenTable {
    TokenTable {
        spans: lexer::flatten(ts).spans,
    }
}

/// Parses the tokens of a macro invocation.
pub fn parse_tokens(ts: proc_macro2::TokenStream) -> Result<Parsed, Diagnostics> {
    run(lexer::flatten(ts), None)
}

/// File mode: lex `text` with proc_macro2's own (fallback) lexer — forced for the duration of
/// the call, so it also works inside a proc macro and accepts `a#b` with no spaces; spans carry
/// the file's line/column. Sets `module.source.file`.
///
/// A Croqtile program file is accepted as written: host C++ (`#include`, `main`, helper
/// templates) and preprocessor conditionals are skipped (see `filemode`), with one note saying
/// which lines were.
pub fn parse_str(text: &str, file: Option<&str>) -> Result<Parsed, Diagnostics> {
    limits::prescan(text).map_err(|d| Diagnostics(vec![d]))?;
    let filtered = filemode::filter(text);
    let lexed = lexer::lex_file(&filtered.text).map_err(|d| Diagnostics(vec![d]))?;
    let mut parsed = run(lexed, file.map(str::to_string))?;
    parsed.notes.extend(skipped_note(&filtered.skipped));
    parsed.module.device_fns = filtered.device_fns;
    Ok(parsed)
}

/// File mode for a file with several `__co__` functions: one module per function, each with
/// the file's header items (the other functions are blanked out, so spans stay those of the
/// file). A file with one function gives one module, like [`parse_str`].
pub fn parse_file(text: &str, file: Option<&str>) -> Vec<(String, Result<Parsed, Diagnostics>)> {
    if let Err(d) = limits::prescan(text) {
        return vec![(String::new(), Err(Diagnostics(vec![d])))];
    }
    let filtered = filemode::filter(text);
    let kernels = filemode::kernels(&filtered.text);
    if kernels.len() <= 1 {
        let name = kernels.first().map(|k| k.0.clone()).unwrap_or_default();
        return vec![(name, parse_str(text, file))];
    }
    let dups = duplicates(&filtered.text, &kernels);
    kernels
        .iter()
        .enumerate()
        .map(|(i, (name, range))| {
            if let Some((_, d)) = dups.iter().find(|(j, _)| *j == i) {
                return (name.clone(), Err(Diagnostics(vec![d.clone()])));
            }
            let one = filemode::keep_only(&filtered.text, range, &kernels);
            let r = lexer::lex_file(&one)
                .map_err(|d| Diagnostics(vec![d]))
                .and_then(|lexed| run(lexed, file.map(str::to_string)))
                .map(|mut p| {
                    p.notes.extend(skipped_note(&filtered.skipped));
                    p.module.device_fns = filtered.device_fns.clone();
                    p
                });
            (name.clone(), r)
        })
        .collect()
}

/// A diagnostic for each `__co__` function whose name an earlier function of the file took:
/// each function becomes a module of its name, so two of one name cannot both be kernels.
pub fn duplicate_functions(text: &str) -> Vec<crate::Diagnostic> {
    let filtered = filemode::filter(text);
    let kernels = filemode::kernels(&filtered.text);
    duplicates(&filtered.text, &kernels)
        .into_iter()
        .map(|(_, d)| d)
        .collect()
}

/// The index of each function whose name is taken by an earlier one, with its diagnostic.
fn duplicates(
    text: &str,
    kernels: &[(String, std::ops::Range<usize>)],
) -> Vec<(usize, crate::Diagnostic)> {
    let at = |char_index: usize| {
        let before: Vec<char> = text.chars().take(char_index).collect();
        let line = before.iter().filter(|c| **c == '\n').count() as u32 + 1;
        let col = before.iter().rev().take_while(|c| **c != '\n').count() as u32;
        crate::span::LineCol { line, col }
    };
    let mut out = Vec::new();
    for (i, (name, range)) in kernels.iter().enumerate() {
        let Some((_, first)) = kernels[..i].iter().find(|(n, _)| n == name) else {
            continue;
        };
        let start = at(range.start);
        let span = crate::Span {
            start,
            end: crate::span::LineCol {
                line: start.line,
                col: start.col + 6,
            },
            first_token: u32::MAX,
            last_token: u32::MAX,
        };
        out.push((
            i,
            crate::Diagnostic::new(
                codes::BAD_KERNEL,
                span,
                format!(
                    "a second `__co__` function named `{name}` (the first is on line {})",
                    at(first.start).line
                ),
            )
            .with_help("each function of a file is a kernel of its own name: rename one"),
        ));
    }
    out
}

/// Each `__co__` function of a program file with a text of its own: the file with host code
/// and every other function blanked (lines and columns kept), so that [`parse_str`] of it is
/// that function's module (as [`parse_file`] parses it). With one function or none: the text
/// as it is.
pub fn function_texts(text: &str) -> Vec<(String, String)> {
    let filtered = filemode::filter(text);
    let kernels = filemode::kernels(&filtered.text);
    if kernels.len() <= 1 {
        let name = kernels.first().map(|k| k.0.clone()).unwrap_or_default();
        return vec![(name, text.to_string())];
    }
    kernels
        .iter()
        .map(|(name, range)| {
            (
                name.clone(),
                filemode::keep_only(&filtered.text, range, &kernels),
            )
        })
        .collect()
}

/// One note listing the skipped line ranges (none when nothing was skipped).
fn skipped_note(skipped: &[(u32, u32)]) -> Option<crate::Diagnostic> {
    let &(first, _) = skipped.first()?;
    let ranges: Vec<String> = skipped
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    let at = crate::span::LineCol {
        line: first,
        col: 0,
    };
    let span = crate::Span {
        start: at,
        end: at,
        first_token: u32::MAX,
        last_token: u32::MAX,
    };
    Some(crate::Diagnostic::new(
        codes::HOST_SKIPPED,
        span,
        format!(
            "host C++ and preprocessor lines skipped (lines {})",
            ranges.join(", ")
        ),
    ))
}

fn run(lexed: lexer::Lexed, file: Option<String>) -> Result<Parsed, Diagnostics> {
    if lexed.toks.len() > limits::MAX_TOKENS {
        return Err(Diagnostics(vec![limits::too_large(format!(
            "{} tokens (at most {})",
            lexed.toks.len(),
            limits::MAX_TOKENS
        ))]));
    }
    let mut p = cursor::Parser::new(lexed.toks);
    let items = p.items();
    let diags = std::mem::take(&mut p.diags);
    let Some(mut kernel) = items.kernel else {
        return Err(diags.into_result(()).err().unwrap_or_default());
    };
    let implicit = std::mem::take(&mut p.implicit_levels);
    let clusters = std::mem::take(&mut p.cluster_levels);
    let header_cluster = items.cluster.map(|e| (e, p.exprs.get_span(e)));
    let (cluster_level, cluster_diags) = cluster::extract(
        &mut p.stmts,
        &mut kernel.body,
        &clusters,
        &implicit,
        header_cluster,
    );
    let mut diags = diags;
    diags.0.extend(cluster_diags);
    levels::resolve(&mut p.stmts, &mut p.exprs, &mut kernel.body, &implicit);
    wgmma_copies::desugar(&mut p.stmts, &p.exprs);
    let mut constants = items.constants;
    constants.extend(std::mem::take(&mut p.body_constants));
    let module = Module {
        tunables: items.tunables,
        constants,
        requires: items.requires,
        raster: items.raster,
        persistent: items.persistent,
        pingpong: items.pingpong,
        streamk: items.streamk,
        cluster: items.cluster,
        cluster_level,
        cluster_nonportable: items.cluster_nonportable,
        multicast: std::mem::take(&mut p.multicast),
        sparse: std::mem::take(&mut p.sparse),
        cluster_triggers: std::mem::take(&mut p.cluster_triggers),
        mma_scales: std::mem::take(&mut p.mma_scales),
        mma_async: std::mem::take(&mut p.mma_async),
        frag_loads: std::mem::take(&mut p.frag_loads),
        occupancy: items.occupancy,
        promote: items.promote,
        kernel,
        decl_ext: std::mem::take(&mut p.decl_ext),
        event_participants: std::mem::take(&mut p.event_participants),
        attributes: std::mem::take(&mut p.attributes),
        streams: std::mem::take(&mut p.streams),
        parallel_ext: std::mem::take(&mut p.parallel_ext),
        unroll_factors: std::mem::take(&mut p.unroll_factors),
        loop_ranges: std::mem::take(&mut p.loop_ranges),
        bounded_values: std::mem::take(&mut p.bounded_values),
        with_extents: std::mem::take(&mut p.with_extents),
        array_indices: std::mem::take(&mut p.array_indices),
        buffer_aliases: std::mem::take(&mut p.buffer_aliases),
        device_fns: Vec::new(),
        exprs: p.exprs,
        stmts: p.stmts,
        source: Source { file },
    };
    diags.into_result(Parsed {
        module,
        tokens: TokenTable { spans: lexed.spans },
        notes: Vec::new(),
    })
}
