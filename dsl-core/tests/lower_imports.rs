//! The files of `src/lower/` import each other without a cycle, nothing in lowering reads back
//! the C++ text of the nodes it built, and lowering takes view shapes from the checker.
//!
//! An import is any path through the parent: `super::NAME` or `crate::lower::NAME` (in `use`
//! lines, `use super::{a, b}` groups and inline paths alike). NAME is a sibling file's module,
//! or else an item of `mod.rs` (an edge to `mod`). In `mod.rs`, `NAME::` names a child.
//! `*_tests.rs` files are child modules of the file that includes them, not siblings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn lower_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lower"))
}

/// The source of each file of `src/lower/` by module name, comments removed.
fn sources() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(lower_dir()).expect("src/lower") {
        let p = e.expect("entry").path();
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        if p.extension().is_none_or(|x| x != "rs") || stem.ends_with("_tests") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read");
        out.insert(stem, strip_comments(&text));
    }
    out
}

/// The text with `//` comments removed (outside string literals).
fn strip_comments(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            if c == '"' && prev != '\\' {
                in_str = !in_str;
            }
            if !in_str && c == '/' && prev == '/' {
                cut = i - 1;
                break;
            }
            prev = c;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The identifiers following each occurrence of `prefix` (`super::` → `body`, `{`…).
fn after<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    let is_id = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let before_ok = i == 0 || !rest[..i].ends_with(is_id);
        rest = &rest[i + prefix.len()..];
        if !before_ok {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let id = part.trim().split(|c: char| !is_id(c)).next().unwrap_or("");
                if !id.is_empty() {
                    out.push(id);
                }
            }
        } else {
            let end = rest.find(|c: char| !is_id(c)).unwrap_or(rest.len());
            if end > 0 {
                out.push(&rest[..end]);
            }
        }
    }
    out
}

/// Module → the modules it imports.
fn graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (name, text) in files {
        let mut deps = BTreeSet::new();
        if name == "mod" {
            for m in files.keys().filter(|m| *m != "mod") {
                let path = format!("{m}::");
                let named = text.match_indices(&path).any(|(i, _)| {
                    !text[..i]
                        .ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                });
                if named {
                    deps.insert(m.clone());
                }
            }
        } else {
            for id in after(text, "super::")
                .into_iter()
                .chain(after(text, "crate::lower::"))
            {
                let target = if files.contains_key(id) && id != "mod" {
                    id.to_string()
                } else {
                    "mod".to_string()
                };
                if target != *name {
                    deps.insert(target);
                }
            }
        }
        g.insert(name.clone(), deps);
    }
    g
}

/// A cycle of `g`, as the path that closes it.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        v: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == v) {
            let mut c = path[i..].to_vec();
            c.push(v.to_string());
            return Some(c);
        }
        if done.contains(v) {
            return None;
        }
        path.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            if let Some(c) = visit(w, g, done, path) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(v.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for v in g.keys() {
        if let Some(c) = visit(v, g, &mut done, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn the_files_of_lower_import_each_other_without_a_cycle() {
    let files = sources();
    assert!(files.len() > 10, "src/lower/ not found");
    let g = graph(&files);
    assert!(
        g["body"].contains("emitter") && g["simt"].contains("emitter"),
        "the import scan finds nothing: {g:?}"
    );
    if let Some(c) = find_cycle(&g) {
        panic!("import cycle in src/lower/: {}", c.join(" → "));
    }
}

#[test]
fn the_cycle_check_sees_use_lines_groups_and_inline_paths() {
    let files: BTreeMap<String, String> = [
        ("a", "use super::b::X;\n"),
        ("b", "use super::{c, Y};\n"),
        ("c", "fn f() { super::a::g() } // super::d\n"),
        ("d", ""),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_string(), strip_comments(t)))
    .collect();
    let g = graph(&files);
    assert_eq!(g["b"], BTreeSet::from(["c".to_string(), "mod".to_string()]));
    assert_eq!(g["c"], BTreeSet::from(["a".to_string()]));
    let c = find_cycle(&g).expect("a → b → c → a");
    assert_eq!(c.first(), c.last());
    assert_eq!(c.len(), 4);
}

/// Whether a line declares or names a kernel-IR node that holds a statement as C++ text
/// (`Stmt(String)` in `Op`, `Op::Stmt(…)`): every statement is a typed node, so no pass or
/// writer has C++ text to read.
fn names_text_statement(line: &str) -> bool {
    line.contains("Op::Stmt") || line.trim_start().starts_with("Stmt(String)")
}

#[test]
fn the_text_check_sees_a_raw_statement_node() {
    assert!(names_text_statement(
        "    if let Op::Stmt(code) = &mut e.lines[decl].op {"
    ));
    assert!(names_text_statement("        op: Op::Stmt(code),"));
    assert!(names_text_statement("    Stmt(String),"));
    assert!(!names_text_statement("    Stmt::Foreach { vars, .. } => {"));
}

/// Lowering builds nodes and never renders them to search or rewrite the text: no `Display`
/// of a node or line (`.to_string()` / `.text()` / `format!` of an `Op`) outside the printing
/// code itself (`kernel.rs`) and the pass dump (`passes.rs`); and no node holds a statement as
/// C++ text.
#[test]
fn lowering_never_reads_back_the_text_of_its_nodes() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        let printer = name == "kernel" || name == "passes";
        for (i, line) in text.lines().enumerate() {
            for pat in [".op.to_string()", ".text()", "l.code", ".code."] {
                if !printer && line.contains(pat) {
                    found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
                }
            }
            // A statement held as C++ text (the kernel IR, `kernel.rs`, has none).
            if names_text_statement(line) {
                found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "text read back in lowering:\n{}",
        found.join("\n")
    );
}

/// Whether a line of lowering takes a view apart to work out its shape or origin itself: the
/// tiling methods (`.subspan`, `.step`, `.chunkat`) and the chunk-index analysis are the
/// checker's (`KernelInfo::sym_views`, `check/view_sym.rs`).
fn derives_view_shape(line: &str) -> bool {
    [
        "ViewOp::Subspan",
        "ViewOp::Step",
        "ViewOp::Chunkat",
        "chunk_index",
    ]
    .iter()
    .any(|p| line.contains(p))
}

#[test]
fn the_view_check_sees_a_tiling_method() {
    assert!(derives_view_shape(
        "        Expr::View { op: ViewOp::Subspan, args, .. } => {"
    ));
    assert!(derives_view_shape(
        "    match crate::check::chunk_index(e.m, a) {"
    ));
    assert!(!derives_view_shape("    let v = e.cx().view(src)?;"));
}

/// Lowering reads each view's shape and origin from the checker instead of deriving them.
#[test]
fn lowering_takes_view_shapes_from_the_checker() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        for (i, line) in text.lines().enumerate() {
            if derives_view_shape(line) {
                found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "view shapes derived in lowering:\n{}",
        found.join("\n")
    );
}

/// Whether a line of lowering builds shared-memory layout, constant or launch-bound text, or
/// reads names back out of C++ text: the offsets and constants are typed values (`ConstValue`),
/// the launch bounds a `LaunchBounds`, which `kernel.rs` prints, and a constant's names are
/// the value's own.
fn builds_layout_text(line: &str) -> bool {
    [
        "tsl_align_up(",
        "identifiers(",
        "offset_cpp",
        "__launch_bounds__(",
        "__cluster_dims__(",
    ]
    .iter()
    .any(|p| line.contains(p))
}

#[test]
fn the_layout_check_sees_text_offsets() {
    assert!(builds_layout_text(
        r#"Some((pn, pb)) => format!("tsl_align_up({pn} + {pb}, {align})"),"#
    ));
    assert!(builds_layout_text(
        "            super::kernel::identifiers(&value, &mut used);"
    ));
    assert!(builds_layout_text(
        r#"None => format!("__launch_bounds__({})", threads.to_cpp()),"#
    ));
    assert!(!builds_layout_text("            value.names(&mut used);"));
}

/// The shared-memory layout, the kernel's constants and its launch bounds are typed values;
/// only the printer (`kernel.rs`) spells them as C++.
#[test]
fn lowering_builds_no_layout_text() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        // The kernel IR's printers: the nodes (`kernel.rs`) and their expressions (`cxx.rs`).
        if name == "kernel" || name == "cxx" {
            continue;
        }
        // A file's unit tests may spell the printed form they expect.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (i, line) in code.lines().enumerate() {
            if builds_layout_text(line) {
                found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "layout or constant text built in lowering:\n{}",
        found.join("\n")
    );
}

/// The 1-based line of byte `i`.
fn line_of(text: &str, i: usize) -> usize {
    text[..i].matches('\n').count() + 1
}

/// The lines where lowering takes a tensor declaration's shape apart
/// (`Stmt::TensorDecl { shape, .. }`) or evaluates an extent itself (`constant_of`): the
/// shapes, counts and fixed dimensions are the checker's (`KernelInfo::tensors`).
fn reads_declared_shape(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("Stmt::TensorDecl") {
        let rest = &text[i..];
        let fields = &rest[..rest.find('}').unwrap_or(rest.len())];
        let binds_shape = fields
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == "shape");
        if binds_shape {
            out.push(line_of(text, i));
        }
    }
    for (i, _) in text.match_indices("constant_of(") {
        out.push(line_of(text, i));
    }
    out
}

#[test]
fn the_shape_check_sees_a_declaration_taken_apart() {
    let decl = "match st {\n    Stmt::TensorDecl {\n        dtype,\n        shape,\n        names,\n        ..\n    } => {}\n}";
    assert_eq!(reads_declared_shape(decl), [2]);
    assert_eq!(
        reads_declared_shape("let v = warp::constant_of(m, x);"),
        [1]
    );
    assert!(reads_declared_shape("Stmt::TensorDecl { dtype, names, .. } => {}").is_empty());
}

/// Lowering declares tensors of the checker's shapes. `launch.rs` is exempt: it rewrites the
/// module (outputs become parameters) before the checker sees it.
#[test]
fn lowering_takes_declared_shapes_from_the_checker() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        if name == "launch" {
            continue;
        }
        for l in reads_declared_shape(&text) {
            found.push(format!("{name}.rs:{l}"));
        }
    }
    assert!(
        found.is_empty(),
        "declared shapes read in lowering:\n{}",
        found.join("\n")
    );
}

/// Whether a line of lowering looks a fragment up by its name: the checker's name-keyed table
/// (`info.frags`) or a "latest declaration under this name" map. Fragments are keyed by the
/// checker's binding of their declaration, so one name in two scopes is two fragments.
fn finds_fragment_by_name(line: &str) -> bool {
    [
        "info.frags",
        ".named(",
        "frag_named(",
        "latest.get(",
        "c.name == acc",
        "acc.name == name",
        "meta.name == name",
        "ln.name == op",
        "b.name == name",
        "tiles.get(name",
        "tiles.contains_key(&name",
    ]
    .iter()
    .any(|p| line.contains(p))
        // `e.info` / `.frags` / `.get(…)` split over lines by rustfmt.
        || line.trim() == ".frags"
}

#[test]
fn the_fragment_check_sees_a_lookup_by_name() {
    assert!(finds_fragment_by_name(
        "        KernelPath::Simt => match e.warp.named(name) {"
    ));
    assert!(finds_fragment_by_name(
        "    let def = e.info.frags.get(name)?.def;"
    ));
    assert!(finds_fragment_by_name(
        "        Stmt::Mma { acc: c, .. } if c.name == acc => operand_dtype(e, s),"
    ));
    assert!(finds_fragment_by_name("            .frags"));
    assert!(finds_fragment_by_name(
        "    m.sparse.iter().any(|sp| sp.meta.name == name)"
    ));
    assert!(!finds_fragment_by_name(
        "    match e.info.bindings.get(&x) {"
    ));
}

#[test]
fn lowering_finds_fragments_by_binding() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        for (i, line) in text.lines().enumerate() {
            if finds_fragment_by_name(line) {
                found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "fragments found by name in lowering:\n{}",
        found.join("\n")
    );
}

/// Whether a line of lowering takes an event by its spelled name: the root name of a
/// `wait`/`trigger` operand (`check::events::event_root`, or `walk::root` of an event). Events
/// are the checker's bindings (`check::events::event_ref`), so one name in two scopes is two
/// events; the name only spells the C++ identifiers.
fn finds_event_by_name(line: &str) -> bool {
    [
        "event_root(",
        "root(m, *event)",
        "root(m, *ev)",
        "root(m, ev)",
    ]
    .iter()
    .any(|p| line.contains(p))
}

#[test]
fn the_event_check_sees_a_lookup_by_name() {
    assert!(finds_event_by_name(
        "                crate::check::events::event_root(m, *event).map(str::to_string)"
    ));
    assert!(finds_event_by_name(
        "                    Stmt::Wait { event } => root(m, *event).map(str::to_string),"
    ));
    assert!(!finds_event_by_name(
        "                event_ref(m, &info.bindings, *event)"
    ));
}

#[test]
fn lowering_finds_events_by_binding() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        for (i, line) in text.lines().enumerate() {
            if finds_event_by_name(line) {
                found.push(format!("{name}.rs:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "events found by name in lowering:\n{}",
        found.join("\n")
    );
}

/// The string literal a `format!(` at the start of `rest` formats (on its line or the next).
fn format_template(rest: &str) -> Option<&str> {
    let rest = rest.strip_prefix("format!(")?.trim_start();
    let body = rest.strip_prefix('"')?;
    let mut prev = ' ';
    for (i, c) in body.char_indices() {
        if c == '"' && prev != '\\' {
            return Some(&body[..i]);
        }
        prev = c;
    }
    None
}

/// Whether a `format!` template builds C++ expression text. What may be formatted: a name
/// (`tsl_tm_{}`, `__{base}f`: letters, digits, `_` and placeholders only) and prose (a note, a
/// comment, a diagnostic: words, with no C++ operator). Anything else — a type, an operator or
/// bracket between placeholders (`{} * {ld}`, `&{map}`, `{}[{}]`, `({})`) — is an expression.
fn formats_expression(template: &str) -> bool {
    let mut rest = String::new();
    let mut depth = 0;
    for c in template.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth > 0 => depth -= 1,
            _ if depth == 0 => rest.push(c),
            _ => {}
        }
    }
    // `{{`/`}}` are literal braces: count them as punctuation.
    let literal_braces = template.contains("{{") || template.contains("}}");
    let name = !literal_braces && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if name {
        return false;
    }
    // Prose (a note, a comment, a diagnostic) has words: two or more that are not C++
    // keywords, or a quotation of DSL text in backticks. It may spell operators
    // (`acc += a·b`, `K-steps`).
    const KEYWORDS: &[&str] = &[
        "for",
        "int",
        "if",
        "else",
        "return",
        "const",
        "unsigned",
        "long",
        "char",
        "float",
        "double",
        "bool",
        "true",
        "false",
        "auto",
        "constexpr",
        "static",
        "void",
        "while",
    ];
    let words = rest
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() > 2 && !KEYWORDS.contains(w))
        .count();
    if rest.contains('`') || words >= 2 {
        return false;
    }
    let operators = literal_braces || rest.chars().any(|c| "*+-/%<>&|?[]()=!;^~".contains(c));
    operators || !rest.chars().any(|c| c.is_alphabetic())
}

/// The places where a file builds C++ expression text: a `format!` of an expression, text
/// joined with an operator, or a variable that holds printed C++ (`CExpr::var(x.to_cpp())`).
fn builds_expression_text(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, line) in code.lines().enumerate() {
        if let Some(at) = line.find("CExpr::var(")
            && [".to_cpp()", ".to_string()"]
                .iter()
                .any(|p| line[at..].contains(p))
        {
            found.push(format!("{}: {}", i + 1, line.trim()));
        }
        for sep in [" && ", " + ", " * ", ", "] {
            if line.contains(&format!(".join(\"{sep}\")")) {
                found.push(format!("{}: {}", i + 1, line.trim()));
            }
        }
    }
    for (at, _) in code.match_indices("format!(") {
        // A note or comment (where the text goes says so): prose, whatever it spells.
        let before = code[..at].trim_end();
        let note = ["Some(&", "Comment(", "what =", "note =", "why ="]
            .iter()
            .any(|p| before.ends_with(p));
        if note {
            continue;
        }
        let start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = code[at..].find('\n').map_or(code.len(), |i| at + i);
        let line = &code[start..end];
        if let Some(t) = format_template(&code[at..])
            && formats_expression(t)
        {
            let n = code[..at].matches('\n').count() + 1;
            found.push(format!("{n}: {}", line.trim()));
        }
    }
    found
}

#[test]
fn the_expression_text_check_tells_names_prose_and_types_from_expressions() {
    let bad = [
        r#"        format!("{} * {ld}", wrap(&self.origin[0]))"#,
        r#"    let load = format!("&{map}");"#,
        r#"        _ => format!("{}[{}]", v.entry_ptr(), v.origin_offset()),"#,
        r#"    let c = format!("({c})");"#,
        r#"            format!("[] {{ for (int t = 0; t < n; ++t) {{ }} }}()")"#,
        r#"        let n = CExpr::var(v.tile[0].to_cpp());"#,
        r#"        let p = CExpr::var(format!("&{map}"));"#,
        r#"                init: Some(CExpr::var(format!("{kt} + 1"))),"#,
        r#"        conds.join(" && ")"#,
        "    let s = format!(\n        \"{} + {}\",\n        a, b\n    );",
    ];
    for b in bad {
        assert!(!builds_expression_text(b).is_empty(), "not caught: {b}");
    }
    let good = [
        r#"            format!("tsl_tm_{}_{k}", v.tensor.name)"#,
        r#"        && let Some(e) = math_call(&format!("__{b}"), a)"#,
        r#"                    format!("`{n}` is not a mutable scalar"),"#,
        r#"        Some(&format!("swizzle {} B, zeros past the edge", swz.to_cpp())),"#,
        r#"                        Some(&format!("this loop's entry of `{tensor}`")),"#,
        r#"    verify(&body.lines).map_err(|e| format!("after `body`: {e}"))?;"#,
        r#"        Some(&format!("{} += {a_cpp}·{b_cpp}ᵀ, A 2:4-sparse with metadata {m_cpp}", x)),"#,
        r#"                    Some(&format!("{what}, {} K-steps of {ik}", steps.to_cpp())),"#,
    ];
    for g in good {
        assert!(builds_expression_text(g).is_empty(), "flagged: {g}");
    }
}

/// Lowering builds typed expressions and types (`lower/cxx.rs`), never C++ text: names, notes
/// and diagnostics are the only text it formats.
#[test]
fn lowering_builds_typed_expressions() {
    let mut found = Vec::new();
    for (name, text) in sources() {
        // The kernel IR's printers.
        if name == "kernel" || name == "cxx" {
            continue;
        }
        // A file's unit tests may spell the printed form they expect.
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        // The stage dump prints the constants as C++ declarations.
        let code = code.replace(r#"format!("constexpr int {n} = {v};")"#, "");
        let hits = builds_expression_text(&code);
        found.extend(hits.into_iter().map(|h| format!("{name}.rs:{h}")));
    }
    assert!(
        found.is_empty(),
        "C++ expression text built in lowering:\n{}",
        found.join("\n")
    );
}
