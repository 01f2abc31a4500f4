//! Expression trees (precedence, associativity, `#`, postfix chains, `.swiz<…>` delimiting)
//! and the Let/Assign scoping rule, checked on the IR structure rather than the dump.

use dsl_core::ir::{Expr, ExprId, Module, Stmt};
use dsl_core::parse::parse_str;

/// A fully parenthesized S-expression of `e`.
fn sexp(m: &Module, e: ExprId) -> String {
    match &m.exprs[e] {
        Expr::Int(v) => v.to_string(),
        Expr::Float { text, .. } => text.clone(),
        Expr::Bool(b) => b.to_string(),
        Expr::Name(n) => n.clone(),
        Expr::Wildcard => "_".into(),
        Expr::Unary { op, expr } => format!("({} {})", op.symbol(), sexp(m, *expr)),
        Expr::Binary { op, lhs, rhs } => {
            format!("({} {} {})", op.symbol(), sexp(m, *lhs), sexp(m, *rhs))
        }
        Expr::Compose { outer, inner } => format!("(# {} {})", sexp(m, *outer), sexp(m, *inner)),
        Expr::Call { func, args } => call(m, &func.name, args),
        Expr::Index { base, index } => format!("([] {} {})", sexp(m, *base), sexp(m, *index)),
        Expr::View { base, op, args } => {
            call(m, &format!(".{} {}", op.name(), sexp(m, *base)), args)
        }
        Expr::Field { base, field } => format!("(.{} {})", field.name, sexp(m, *base)),
    }
}

fn call(m: &Module, head: &str, args: &[ExprId]) -> String {
    let a: Vec<String> = args.iter().map(|&x| sexp(m, x)).collect();
    format!("({head} {})", a.join(" "))
}

fn parse(body: &str) -> Module {
    let src = format!("tunable T in [1] = 1;\n__co__ void k(global f16 [M, K] a) {{\n{body}\n}}\n");
    parse_str(&src, None)
        .unwrap_or_else(|d| panic!("{d}"))
        .module
}

/// The value of the single `x = …;` let in `x = {expr};`.
fn tree(expr: &str) -> String {
    let m = parse(&format!("x = {expr};"));
    match &m.stmts[m.kernel.body[0]] {
        Stmt::Let { value, .. } => sexp(&m, *value),
        other => panic!("expected a let, got {other:?}"),
    }
}

#[test]
fn c_precedence_and_associativity() {
    assert_eq!(tree("a + b * c"), "(+ a (* b c))");
    assert_eq!(tree("a - b - c"), "(- (- a b) c)");
    assert_eq!(tree("a / b % c"), "(% (/ a b) c)");
    assert_eq!(tree("a << 1 + b"), "(<< a (+ 1 b))");
    assert_eq!(tree("a < b == c >= d"), "(== (< a b) (>= c d))");
    assert_eq!(tree("a & b ^ c | d"), "(| (^ (& a b) c) d)");
    assert_eq!(tree("a || b && c != d"), "(|| a (&& b (!= c d)))");
    assert_eq!(tree("(a + b) * c"), "(* (+ a b) c)");
    assert_eq!(tree("a>=b"), "(>= a b)");
    // Operators are rebuilt from adjacent punctuation only: `> =` is not `>=`.
    let spaced = "__co__ void k(global f16 [M] a) {\n x = a > = b;\n}\n";
    let err = parse_str(spaced, None).expect_err("`> =` is not an operator");
    assert_eq!(err.0[0].code, "E0003");
}

#[test]
fn compose_binds_tighter_than_multiplication() {
    assert_eq!(tree("a # b * c"), "(* (# a b) c)");
    assert_eq!(tree("a * b # c"), "(* a (# b c))");
    assert_eq!(tree("a # b # c"), "(# (# a b) c)");
    assert_eq!(tree("-a # b"), "(- (# a b))");
    assert_eq!(tree("-a * b"), "(* (- a) b)");
    assert_eq!(tree("!(a < b)"), "(! (< a b))");
    assert_eq!(tree("- -a"), "(- (- a))");
}

#[test]
fn postfix_chains_and_literals() {
    assert_eq!(
        tree("a.subspan(T, 4).at(i # j, _)[0].data"),
        "(.data ([] (.at (.subspan a T 4) (# i j) _) 0))"
    );
    assert_eq!(tree("cdiv(M, max(T, 2))"), "(cdiv M (max T 2))");
    assert_eq!(
        tree("0.0f + 1.5 + 1e3 + 0x10 + 1_000"),
        "(+ (+ (+ (+ 0.0f 1.5) 1e3) 16) 1000)"
    );
    assert_eq!(tree("true && !false"), "(&& true (! false))");
}

#[test]
fn mma_store_takes_an_accumulator_or_a_view_of_it() {
    let m = parse(
        "mma.store mc, o;\nmma.store mc.subspan(64, T * 8).at(0, h), o;\nmma.store mc.chunkat(_, h), o;",
    );
    let stores: Vec<String> = m
        .kernel
        .body
        .iter()
        .map(|&s| match &m.stmts[s] {
            Stmt::MmaStore { acc, view, dst, .. } => {
                let v = view.map(|v| sexp(&m, v)).unwrap_or_else(|| "-".into());
                format!("{} {v} -> {}", acc.name, sexp(&m, *dst))
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        stores,
        [
            "mc - -> o",
            "mc (.at (.subspan mc 64 (* T 8)) 0 h) -> o",
            "mc (.chunkat mc _ h) -> o"
        ]
    );
    // The accumulator's span is its name, also in a view.
    let Stmt::MmaStore { acc, .. } = &m.stmts[m.kernel.body[1]] else {
        unreachable!()
    };
    assert_eq!((acc.span.start.line, acc.span.start.col), (4, 10));
    assert_eq!(acc.span.end.col, 12);
}

#[test]
fn swiz_argument_ends_at_the_first_top_level_gt() {
    let m = parse("ma = mma.load.swiz<T * 2> a.chunkat(_, 0);\nmb = mma.load.swiz<(T > 1) + 1> a;");
    let swz: Vec<String> = m
        .kernel
        .body
        .iter()
        .map(|&s| match &m.stmts[s] {
            Stmt::MmaLoad {
                swizzle: Some(z),
                src,
                ..
            } => format!("{} <- {}", sexp(&m, *z), sexp(&m, *src)),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(swz, ["(* T 2) <- (.chunkat a _ 0)", "(+ (> T 1) 1) <- a"]);
    let m = parse("tma.copy.swiz<T>.async<e[T % 2]> a => a;");
    match &m.stmts[m.kernel.body[0]] {
        Stmt::TmaCopy {
            event: Some(e),
            swizzle: Some(z),
            bind: None,
            ..
        } => {
            assert_eq!(
                (sexp(&m, *e), sexp(&m, *z)),
                ("([] e (% T 2))".into(), "T".into())
            );
        }
        other => panic!("{other:?}"),
    }
}

/// `L name` / `A target` for each let/assign in the kernel, in source order (all depths).
fn binds(m: &Module) -> Vec<String> {
    let mut out = Vec::new();
    let mut ids: Vec<_> = m.stmts.iter().map(|(h, _)| h).collect();
    ids.sort_by_key(|&h| m.stmt_span(h).start);
    for h in ids {
        match &m.stmts[h] {
            Stmt::Let { name, .. } => out.push(format!("L {}", name.name)),
            Stmt::Assign { target, .. } => out.push(format!("A {}", sexp(m, *target))),
            _ => {}
        }
    }
    out
}

#[test]
fn let_versus_assign() {
    let m = parse(
        "x = 1;\nx = 2;\ny += 1;\nT = 3;\na = 4;\nforeach {i} in [4] { i = 1; z = i; }\nz = 5;\n\
         foreach {j} in [4] w = j;\nw = 6;\nif (x) { v = 1; } else { v = 2; }\nv = 3;\n\
         f16 acc = 0.0f;\nacc = 1;\nmc = mma.fill.f16 0.0f;\nmc = 2;\n\
         f = tma.load.async a => shared;\nf = 3;\nshared event e[2];\ne = 4;\n\
         parallel {p} by [2] : block { p = 1; q = p; }\nq = 7;\na.at(0, 0) = 1;",
    );
    assert_eq!(
        binds(&m),
        [
            "L x",
            "A x",
            "A y",
            "A T",
            "A a",
            "A i",
            "L z",
            "L z",
            "L w",
            "L w",
            "L v",
            "L v",
            "L v",
            "A acc",
            "A mc",
            "A f",
            "A e",
            "A p",
            "L q",
            "L q",
            "A (.at a 0 0)",
        ]
    );
}

#[test]
fn statement_spans_cover_the_statement() {
    let m = parse("  foreach {i} in [4] {\n    z = i;\n  }");
    let s = m.kernel.body[0];
    let span = m.stmt_span(s);
    assert_eq!(
        (span.start.line, span.start.col, span.end.line, span.end.col),
        (3, 2, 5, 3)
    );
    let Stmt::Foreach { body, vars, .. } = &m.stmts[s] else {
        panic!()
    };
    let inner = m.stmt_span(body[0]);
    assert_eq!(
        (inner.start.line, inner.start.col, inner.end.col),
        (4, 4, 10)
    );
    assert_eq!((vars[0].span.start.line, vars[0].span.start.col), (3, 11));
}

#[test]
fn bound_async_tma_load_dumps_as_async() {
    let text = "tunable T in [64] = 64;\n__co__ void k(global f16 [M, K] a) {\n  parallel {b} by [cdiv(M, 64)] : block, by 1 : group-4 {\n    shared f16 [64, 64] a_s;\n    shared event e;\n    f = tma.load.async.swiz<128> a.subspan(64, 64).at(b, 0) => a_s;\n    trigger e after f;\n    wait e;\n  }\n}\n";
    let m = dsl_core::parse::parse_str(text, None).unwrap().module;
    let dump = m.to_string();
    // `f = tma.copy …` without `.async` would be an error (E0015) if written back.
    assert!(dump.contains("f = tma.copy.async.swiz<128>"), "{dump}");
}
