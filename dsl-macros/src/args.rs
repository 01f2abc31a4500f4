//! The macro's Rust-syntax argument, `file = "path"`, parsed with syn: the string literal's
//! value (escapes and raw strings included) and span, or a spanned `syn::Error` for a malformed
//! argument. Everything else is DSL text, which dsl-core parses from the tokens.

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// `file = "path"`.
pub struct FileArg {
    /// The literal's value.
    pub path: String,
    /// The literal's span: where file-mode diagnostics point.
    pub span: Span,
}

impl Parse for FileArg {
    fn parse(input: ParseStream) -> syn::Result<FileArg> {
        let key: Ident = input.parse()?;
        if key != "file" {
            return Err(syn::Error::new(key.span(), "expected `file`"));
        }
        input.parse::<Token![=]>()?;
        let lit: LitStr = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected a string literal: `gemm_kernel!(file = \"kernels/name.co\")`",
            )
        })?;
        if !input.is_empty() {
            return Err(input.error(
                "unexpected tokens after the file name: `file = \"…\"` is the whole argument",
            ));
        }
        Ok(FileArg {
            path: lit.value(),
            span: lit.span(),
        })
    }
}

/// The first token tree, looking through invisible (`Delimiter::None`) groups: a `macro_rules!`
/// that forwards `file = $path` wraps its fragments in them.
fn first_two(input: &TokenStream) -> Vec<TokenTree> {
    let mut out = Vec::new();
    for t in input.clone() {
        if out.len() == 2 {
            break;
        }
        match t {
            TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::None => {
                out.extend(first_two(&g.stream()).into_iter().take(2 - out.len()))
            }
            other => out.push(other),
        }
    }
    out
}

/// `Some` when the input starts with `file =` (file mode): the parsed argument, or why it is
/// malformed. `None` for DSL text.
pub fn file_arg(input: &TokenStream) -> Option<syn::Result<FileArg>> {
    match first_two(input).as_slice() {
        [TokenTree::Ident(i), TokenTree::Punct(p)] if i == "file" && p.as_char() == '=' => {
            Some(syn::parse2::<FileArg>(input.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::{Delimiter, Group};
    use quote::quote;

    fn parsed(ts: TokenStream) -> Option<Result<String, String>> {
        file_arg(&ts).map(|r| r.map(|a| a.path).map_err(|e| e.to_string()))
    }

    #[test]
    fn the_path_is_the_literal_value() {
        assert_eq!(
            parsed(quote!(file = "kernels/v0_naive.co")),
            Some(Ok("kernels/v0_naive.co".into()))
        );
        assert_eq!(
            parsed(quote!(file = r"kernels\v0.co")),
            Some(Ok("kernels\\v0.co".into()))
        );
        assert_eq!(
            parsed(quote!(file = "a\u{62}c.co")),
            Some(Ok("abc.co".into()))
        );
    }

    #[test]
    fn an_invisible_group_from_macro_rules_is_looked_through() {
        let lit = TokenStream::from(TokenTree::Group(Group::new(
            Delimiter::None,
            quote!("kernels/v1_shared.co"),
        )));
        assert_eq!(
            parsed(quote!(file = #lit)),
            Some(Ok("kernels/v1_shared.co".into()))
        );
        let whole = TokenStream::from(TokenTree::Group(Group::new(
            Delimiter::None,
            quote!(file = "k.co"),
        )));
        assert_eq!(parsed(whole), Some(Ok("k.co".into())));
    }

    #[test]
    fn a_malformed_argument_is_a_spanned_error() {
        let e = parsed(quote!(file = 42)).unwrap().unwrap_err();
        assert!(e.starts_with("expected a string literal"), "{e}");
        let e = parsed(quote!(file = "a.co" extra)).unwrap().unwrap_err();
        assert!(e.contains("unexpected tokens after the file name"), "{e}");
        let e = parsed(quote!(file =)).unwrap().unwrap_err();
        assert!(e.starts_with("expected a string literal"), "{e}");
    }

    #[test]
    fn dsl_text_is_not_a_file_argument() {
        assert!(parsed(quote!(tunable TILE in [16, 32] = 16;)).is_none());
        assert!(parsed(quote!(file)).is_none());
        assert!(parsed(TokenStream::new()).is_none());
    }
}
