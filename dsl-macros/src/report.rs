//! Diagnostics → `compile_error!` invocations at the DSL tokens.

use dsl_core::Diagnostic;
use dsl_core::parse::TokenTable;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};

/// Where the diagnostics point.
pub enum Origin<'a> {
    /// Macro mode: token indices map to compiler spans.
    Tokens(&'a TokenTable),
    /// File mode: the `file = "…"` literal's span, and the file's path for the message.
    File { literal: Span, path: &'a str },
}

/// One `compile_error!` per diagnostic, spanning its first to last token (like
/// `syn::Error::to_compile_error`: the path carries the start span, the braces the end).
pub fn errors(diags: &[Diagnostic], origin: &Origin) -> TokenStream {
    let mut out = TokenStream::new();
    for d in diags {
        let (start, end, msg) = match origin {
            Origin::Tokens(table) => {
                let start = table
                    .get(d.span.first_token)
                    .unwrap_or_else(Span::call_site);
                let end = table.get(d.span.last_token).unwrap_or(start);
                (start, end, d.rendered_message())
            }
            Origin::File { literal, path } => {
                let at = if d.span.is_dummy() {
                    path.to_string()
                } else {
                    format!("{path}:{}:{}", d.span.start.line, d.span.start.col + 1)
                };
                (
                    *literal,
                    *literal,
                    format!("{at}: {}", d.rendered_message()),
                )
            }
        };
        let path = quote_spanned!(start=> ::core::compile_error!);
        let body = quote_spanned!(end=> { #msg });
        out.extend(quote!(#path #body));
    }
    out
}
