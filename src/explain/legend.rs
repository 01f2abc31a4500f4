//! The helper legend: for each `tsl_` helper the kernel uses, the comment above its definition
//! (why it is there), the PTX instructions in its `asm` strings (what it is) and the helpers it
//! calls. Read from the emitted `.cu` itself, which carries the `codegen-cuda/cuda/*.cuh`
//! headers verbatim in `// ---- helpers: … (file.cuh)` sections, so the legend always
//! describes exactly the code on the page.

use std::collections::{BTreeMap, BTreeSet};

/// One helper.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Helper {
    /// The helper's name (`tsl_mbar_wait_ring`).
    pub name: String,
    /// The header it comes from (`sm90_hopper.cuh`).
    pub file: String,
    /// The comment above its (first commented) definition.
    pub comment: String,
    /// PTX instructions in its `asm` strings, in order of appearance, without repeats.
    pub ptx: Vec<String>,
    /// Other helpers its body uses.
    pub calls: Vec<String>,
    /// Its own PTX, then the PTX of the helpers it calls (transitively): all it comes to.
    pub ptx_reached: Vec<String>,
    /// True when the kernel body names it; false when only other helpers do.
    pub direct: bool,
    /// `.cu` line of its first definition.
    pub line: u32,
}

#[derive(Default)]
struct Def {
    file: String,
    comment: String,
    body: String,
    line: u32,
    /// A function, or a struct with device members / a helper base: not a plain type.
    is_helper: bool,
}

/// The helpers the kernel of `cuda` uses (directly or through other helpers), in order of
/// definition.
pub fn helpers(cuda: &str) -> Vec<Helper> {
    let (defs, order, kernel_text) = definitions(cuda);
    let mut used: BTreeSet<String> = BTreeSet::new();
    let direct: BTreeSet<String> = idents(&kernel_text)
        .into_iter()
        .filter(|n| defs.get(n).is_some_and(|d| d.is_helper))
        .collect();
    let mut todo: Vec<String> = direct.iter().cloned().collect();
    while let Some(n) = todo.pop() {
        if !used.insert(n.clone()) {
            continue;
        }
        if let Some(d) = defs.get(&n) {
            for c in idents(&d.body) {
                if c != n && defs.get(&c).is_some_and(|d| d.is_helper) && !used.contains(&c) {
                    todo.push(c);
                }
            }
        }
    }
    let mut out: Vec<Helper> = order
        .iter()
        .filter(|n| used.contains(*n))
        .map(|n| {
            let d = &defs[n];
            Helper {
                name: n.clone(),
                file: d.file.clone(),
                comment: d.comment.clone(),
                ptx: ptx_ops(&d.body),
                calls: idents(&d.body)
                    .into_iter()
                    .filter(|c| c != n && defs.get(c).is_some_and(|d| d.is_helper))
                    .collect(),
                ptx_reached: Vec::new(),
                direct: direct.contains(n),
                line: d.line,
            }
        })
        .collect();
    for i in 0..out.len() {
        let mut reached: Vec<String> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut stack = vec![out[i].name.clone()];
        // Depth-first in call order: a helper's own PTX before its callees'.
        while let Some(n) = stack.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if let Some(h) = out.iter().find(|h| h.name == n) {
                for p in &h.ptx {
                    if !reached.contains(p) {
                        reached.push(p.clone());
                    }
                }
                stack.extend(h.calls.iter().rev().cloned());
            }
        }
        out[i].ptx_reached = reached;
    }
    out
}

/// Helper definitions by name (overloads and specializations merged), their order, and the
/// kernel section's text.
fn definitions(cuda: &str) -> (BTreeMap<String, Def>, Vec<String>, String) {
    let mut defs: BTreeMap<String, Def> = BTreeMap::new();
    let mut order = Vec::new();
    let mut file = String::new();
    let mut pending: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    let mut kernel = String::new();
    let mut in_kernel = false;
    for (i, line) in cuda.lines().enumerate() {
        if let Some(h) = line.strip_prefix("// ----") {
            in_kernel = h.trim_start().starts_with("kernel");
            current = None;
            pending.clear();
            if let Some(rest) = h.trim_start().strip_prefix("helpers:")
                && let (Some(a), Some(b)) = (rest.find('('), rest.find(')'))
                && a < b
            {
                file = rest[a + 1..b].to_string();
            }
            continue;
        }
        if in_kernel {
            kernel.push_str(line);
            kernel.push('\n');
            continue;
        }
        if let Some(c) = line.strip_prefix("//") {
            pending.push(c.trim().to_string());
            continue;
        }
        if line.trim().is_empty() {
            pending.clear();
            current = None;
            continue;
        }
        if !line.starts_with(char::is_whitespace) && !line.starts_with('}') {
            match defined_name(line) {
                Some(name) => {
                    let d = defs.entry(name.clone()).or_insert_with(|| {
                        order.push(name.clone());
                        Def {
                            file: file.clone(),
                            line: i as u32 + 1,
                            ..Def::default()
                        }
                    });
                    if d.comment.is_empty() && !pending.is_empty() {
                        d.comment = pending.join(" ");
                    }
                    if !line.contains("struct ")
                        || line.contains("TSL_DEVICE")
                        || line
                            .split_once('>')
                            .is_some_and(|(_, r)| r.contains(": tsl_"))
                    {
                        d.is_helper = true;
                    }
                    pending.clear();
                    current = Some(name);
                }
                // A `template <…>` line of its own: the definition follows.
                None if line.starts_with("template") && !line.contains('(') => continue,
                // `#ifdef` inside a body keeps the body going.
                None if line.starts_with('#') => {}
                None => {
                    pending.clear();
                    current = None;
                    continue;
                }
            }
        }
        if let Some(n) = &current
            && let Some(d) = defs.get_mut(n)
        {
            if line.contains("TSL_DEVICE") {
                d.is_helper = true;
            }
            if d.comment.is_empty()
                && let Some(c) = line.trim_start().strip_prefix("//")
            {
                d.comment = c.trim().to_string();
            }
            d.body.push_str(line);
            d.body.push('\n');
        }
    }
    (defs, order, kernel)
}

/// The `tsl_` name a column-0 line defines or declares, if any.
fn defined_name(line: &str) -> Option<String> {
    let t = line.trim_start();
    if t.starts_with('#')
        || t.starts_with("typedef")
        || t.starts_with("extern")
        || t.starts_with("static_assert")
    {
        return None;
    }
    if let Some(at) = t.find("struct ") {
        return t[at + 7..]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .find(|w| w.starts_with("tsl_"))
            .map(str::to_string);
    }
    let head = &t[..t.find('(')?];
    let mut head = head.trim_end();
    // `tsl_pack2<tsl_f16>(…)`: a specialization names its template.
    if head.ends_with('>') {
        let mut depth = 0;
        for (i, c) in head.char_indices().rev() {
            match c {
                '>' => depth += 1,
                '<' => {
                    depth -= 1;
                    if depth == 0 {
                        head = head[..i].trim_end();
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let name: String = head
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    name.starts_with("tsl_").then_some(name)
}

/// Distinct `tsl_` identifiers in `text`, in order of appearance.
fn idents(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for w in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        if w.starts_with("tsl_") && seen.insert(w) {
            out.push(w.to_string());
        }
    }
    out
}

/// PTX instruction names in the string literals of `body`.
fn ptx_ops(body: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for lit in string_literals(body) {
        let lit = lit.replace("\\n", ";");
        for stmt in lit.split(';') {
            let mut s = stmt.trim().trim_start_matches(['{', '}']).trim();
            if s.starts_with('@')
                && let Some((_, r)) = s.split_once(char::is_whitespace)
            {
                s = r.trim_start();
            }
            let word = s.split_whitespace().next().unwrap_or("");
            let ok = word.contains('.')
                && word.starts_with(|c: char| c.is_ascii_lowercase())
                && word
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':'))
                && !word.ends_with(':');
            if ok && !out.iter().any(|o| o == word) {
                out.push(word.to_string());
            }
        }
    }
    out
}

/// Contents of the `"…"` literals in `text` (escapes kept as written).
fn string_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push(&text[start..j.min(b.len())]);
            i = j + 1;
        } else if b[i] == b'\'' {
            // Skip a character literal ('"' would otherwise open a string).
            i += if b.get(i + 1) == Some(&b'\\') { 4 } else { 3 };
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CU: &str = r#"// ---- helpers: mbarrier (sm90_hopper.cuh) ----------
// mbarrier.try_wait.parity: one bounded try.
TSL_DEVICE bool tsl_mbar_try_wait(tsl_u32 bar, tsl_u32 parity) {
  tsl_u32 ok;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}" : "=r"(ok) : "r"(bar), "r"(parity) : "memory");
  return ok;
}
// Spins on tsl_mbar_try_wait.
TSL_DEVICE void tsl_mbar_wait(tsl_u32 bar, tsl_u32 parity) {
#ifdef LIMIT
  asm volatile("trap;");
#endif
  while (!tsl_mbar_try_wait(bar, parity)) {}
}
struct alignas(2) tsl_f16 { tsl_u16 bits; };
// Unused by the kernel.
TSL_DEVICE void tsl_unused() { asm volatile("trap;"); }
template <typename T>
TSL_DEVICE void tsl_st(T *p) { asm volatile("st.shared.b32 [%0], 0;" :: "l"(p)); }

// ---- kernel ----------
__global__ void tsl_k(tsl_f16 *x) {
  tsl_mbar_wait(0, 0);  // dsl:3
  tsl_st(x);  // dsl:4
}
// ---- launch ----
"#;

    #[test]
    fn legend_follows_calls_and_reads_ptx() {
        let h = helpers(CU);
        let names: Vec<&str> = h.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, vec!["tsl_mbar_try_wait", "tsl_mbar_wait", "tsl_st"]);
        assert_eq!(
            h[0].ptx,
            vec!["mbarrier.try_wait.parity.shared::cta.b64", "selp.u32"]
        );
        assert!(!h[0].direct && h[1].direct && h[2].direct);
        assert_eq!(
            h[1].calls,
            vec!["tsl_mbar_try_wait"],
            "#ifdef does not end a body"
        );
        assert!(h[1].ptx.is_empty());
        assert_eq!(h[1].ptx_reached, h[0].ptx);
        assert_eq!(h[1].comment, "Spins on tsl_mbar_try_wait.");
        assert_eq!(h[0].file, "sm90_hopper.cuh");
        assert_eq!(h[2].ptx, vec!["st.shared.b32"]);
        assert_eq!(h[0].line, 3);
        assert_eq!(h[2].line, 19);
    }

    #[test]
    fn names_of_definitions() {
        assert_eq!(
            defined_name("template <> TSL_DEVICE tsl_u32 tsl_pack2<tsl_f16>(float lo) {")
                .as_deref(),
            Some("tsl_pack2")
        );
        assert_eq!(
            defined_name("template <int N> struct tsl_wgmma<tsl_f16, float, N> : tsl_w<N> {")
                .as_deref(),
            Some("tsl_wgmma")
        );
        assert_eq!(defined_name("typedef int tsl_i32;"), None);
        assert_eq!(
            defined_name("extern __shared__ unsigned char tsl_smem_raw[];"),
            None
        );
    }
}
