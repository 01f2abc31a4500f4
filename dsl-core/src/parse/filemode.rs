//! File mode's first step: a Croqtile program file as its users write it mixes the tile
//! language with host C++ (`#include`, `main`, helper templates) and preprocessor
//! conditionals. This pass keeps what tessel parses — `__co__` functions, tessel's own header
//! items and object-like `#define`s — and blanks everything else out. Blanking replaces each
//! character by a space and keeps newlines, so every kept token keeps its line and column and
//! diagnostics point into the file as written.
//!
//! Preprocessor conditionals are decided from the `#define`s seen so far (`#ifdef`,
//! `#ifndef`, `#if` over integers, `defined(X)`, `!`, `&&`, `||` and comparisons); a condition
//! it cannot decide keeps its first branch. The scan is hand-written: it only needs comment-
//! and string-aware brace matching, which no small crate offers for C++ mixed with the DSL.

use std::collections::HashMap;

/// Words that start a top-level C++ item in a Croqtile program file.
const HOST_WORDS: &[&str] = &[
    "template",
    "using",
    "namespace",
    "struct",
    "class",
    "typedef",
    "static",
    "extern",
    "inline",
    "constexpr",
    "enum",
    "union",
    "int",
    "unsigned",
    "long",
    "short",
    "char",
    "float",
    "double",
    "bool",
    "size_t",
    "std",
    "choreo",
    "__device__",
    "__global__",
    "__host__",
    "__cok__",
    "__co_device__",
];

/// Header items tessel parses at the top level.
const DSL_ITEMS: &[&str] = &[
    "tunable",
    "const",
    "require",
    "raster",
    "persistent",
    "pingpong",
    "streamk",
    "cluster",
    "occupancy",
    "promote",
    "__co__",
];

/// What the pass kept and skipped.
pub(crate) struct Filtered {
    pub text: String,
    /// (first line, last line) of each skipped region, 1-based.
    pub skipped: Vec<(u32, u32)>,
    /// The `__device__` function definitions among the skipped items, for `call`.
    pub device_fns: Vec<crate::ir::DeviceFn>,
}

/// `text` with host C++ and preprocessor lines blanked out.
pub(crate) fn filter(text: &str) -> Filtered {
    let chars: Vec<char> = text.chars().collect();
    let code = blank_comments(&chars);
    let has_co = find_word(&code, 0, "__co__").is_some();
    let mut keep = vec![true; chars.len()];
    let mut defines: HashMap<String, String> = HashMap::new();
    let mut kept_defines: HashMap<String, (usize, usize)> = HashMap::new();
    let mut fn_macros: HashMap<String, FnMacro> = HashMap::new();
    let mut device_fns: Vec<crate::ir::DeviceFn> = Vec::new();
    // Stack of (this branch taken, some branch of this conditional taken, parent active).
    let mut conds: Vec<(bool, bool, bool)> = Vec::new();
    let active = |conds: &Vec<(bool, bool, bool)>| conds.last().is_none_or(|c| c.0 && c.2);
    let mut i = 0;
    while i < chars.len() {
        let c = code[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' && at_line_start(&code, i) {
            let end = directive_end(&chars, i);
            let line: String = code[i + 1..end].iter().collect();
            let line = line.replace("\\\n", " ");
            let mut words = line.split_whitespace();
            let dir = words.next().unwrap_or("");
            let rest: String = words.collect::<Vec<_>>().join(" ");
            let mut kept = false;
            match dir {
                _ if conditional(dir, &rest, &mut conds, &defines) => {}
                "define" if active(&conds) => {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let function_like = rest[name.len()..].starts_with('(');
                    let value = rest[name.len()..].trim().to_string();
                    if !name.is_empty() {
                        defines.insert(name.clone(), value.clone());
                    }
                    if function_like && let Some(m) = FnMacro::parse(&rest[name.len()..]) {
                        fn_macros.insert(name.clone(), m);
                    } else {
                        fn_macros.remove(&name);
                    }
                    // Object-like macros with a value become constants; the rest is C++. A
                    // redefinition replaces the earlier one (constants are module-wide).
                    kept = !name.is_empty() && !function_like && !value.is_empty();
                    if let Some((from, to)) = kept_defines.remove(&name) {
                        blank(&mut keep, from, to);
                    }
                    if kept {
                        kept_defines.insert(name.clone(), (i, end));
                    }
                }
                "undef" if active(&conds) => {
                    defines.remove(rest.trim());
                    fn_macros.remove(rest.trim());
                }
                "include" | "pragma" | "line" | "warning" | "define" | "undef" => {}
                // `#error` in a branch that is compiled, and unknown directives, stay for the
                // parser to report.
                _ => kept = active(&conds),
            }
            if !kept {
                blank(&mut keep, i, end);
            }
            i = end;
            continue;
        }
        let end = item_end(&code, i);
        if !active(&conds) {
            blank(&mut keep, i, end);
        } else {
            let word = word_at(&code, i);
            let dsl = DSL_ITEMS.contains(&word.as_str())
                && (word != "const" || const_is_dsl(&code, i + word.len()));
            let host = !dsl
                && (HOST_WORDS.contains(&word.as_str())
                    || (has_co && matches!(word.as_str(), "void" | "auto")));
            if host {
                blank(&mut keep, i, end);
                if let Some(f) = device_fn(&chars, &code, i, end) {
                    device_fns.push(f);
                }
            } else if dsl {
                // Conditionals inside the item (a `__co__` body): the directive lines and the
                // branches not taken are blanked.
                let mut p = i;
                let mut from = i;
                while p < end {
                    if code[p] != '#' || !at_line_start(&code, p) {
                        p += 1;
                        continue;
                    }
                    if !active(&conds) {
                        blank(&mut keep, from, p);
                    }
                    let dend = directive_end(&chars, p).min(end);
                    let line: String = code[p + 1..dend].iter().collect();
                    let line = line.replace("\\\n", " ");
                    let mut words = line.split_whitespace();
                    let dir = words.next().unwrap_or("");
                    let rest: String = words.collect::<Vec<_>>().join(" ");
                    if conditional(dir, &rest, &mut conds, &defines) {
                        blank(&mut keep, p, dend);
                    }
                    p = dend;
                    from = dend;
                }
                if !active(&conds) {
                    blank(&mut keep, from, end);
                }
            }
        }
        i = end.max(i + 1);
    }
    let mut out = String::with_capacity(text.len());
    let mut skipped: Vec<(u32, u32)> = Vec::new();
    let mut line = 1u32;
    let mut region: Option<(u32, u32)> = None;
    for (k, &ch) in chars.iter().enumerate() {
        let visible = !ch.is_whitespace();
        if visible && !keep[k] {
            let r = region.get_or_insert((line, line));
            r.1 = line;
        } else if visible && let Some(r) = region.take() {
            skipped.push(r);
        }
        out.push(if keep[k] || ch == '\n' { ch } else { ' ' });
        if ch == '\n' {
            line += 1;
        }
    }
    if let Some(r) = region {
        skipped.push(r);
    }
    Filtered {
        text: expand(&out, &fn_macros, 0),
        skipped,
        device_fns,
    }
}

/// A function-like macro, `#define NAME(params) body`.
#[derive(Clone)]
struct FnMacro {
    params: Vec<String>,
    body: String,
}

impl FnMacro {
    /// `(params) body` after the macro's name; `None` for what tessel does not expand (a
    /// variadic macro, or `#` / `##` in the body).
    fn parse(after_name: &str) -> Option<FnMacro> {
        let close = after_name.find(')')?;
        let params: Vec<String> = after_name[1..close]
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let body = after_name[close + 1..].trim().to_string();
        if params.iter().any(|p| p.contains("...")) || body.contains('#') {
            return None;
        }
        Some(FnMacro { params, body })
    }
}

/// `text` with every call of a function-like macro replaced by its body, the arguments (first
/// expanded themselves) put in for the parameters, the result expanded again without that macro
/// (as the C preprocessor does). A call spread over several lines leaves its newlines after
/// the expansion, so later lines keep their numbers; string literals are left alone.
fn expand(text: &str, macros: &HashMap<String, FnMacro>, depth: u32) -> String {
    if macros.is_empty() || depth > 32 {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let j = (j + 1).min(chars.len());
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        if !(c.is_alphabetic() || c == '_') || (i > 0 && ident(chars[i - 1])) {
            out.push(c);
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && ident(chars[j]) {
            j += 1;
        }
        let name: String = chars[i..j].iter().collect();
        let mut k = j;
        while k < chars.len() && chars[k].is_whitespace() && chars[k] != '\n' {
            k += 1;
        }
        let Some(m) = macros.get(&name).filter(|_| chars.get(k) == Some(&'(')) else {
            out.push_str(&name);
            i = j;
            continue;
        };
        // The arguments: top-level commas up to the matching `)`.
        let mut args = vec![String::new()];
        let mut level = 0;
        let mut end = None;
        for (p, &ch) in chars.iter().enumerate().skip(k + 1) {
            match ch {
                '(' | '[' | '{' => level += 1,
                ')' if level == 0 => {
                    end = Some(p);
                    break;
                }
                ')' | ']' | '}' => level -= 1,
                ',' if level == 0 => {
                    args.push(String::new());
                    continue;
                }
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(ch);
            }
        }
        let Some(end) = end else {
            out.push_str(&name);
            i = j;
            continue;
        };
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                expand(&a.replace('\n', " "), macros, depth + 1)
                    .trim()
                    .to_string()
            })
            .collect();
        if args.len() != m.params.len() && !(m.params.is_empty() && args == [""]) {
            out.push_str(&name);
            i = j;
            continue;
        }
        let mut body = String::new();
        let bc: Vec<char> = m.body.chars().collect();
        let mut b = 0;
        while b < bc.len() {
            if ident(bc[b]) && (b == 0 || !ident(bc[b - 1])) {
                let mut e = b;
                while e < bc.len() && ident(bc[e]) {
                    e += 1;
                }
                let word: String = bc[b..e].iter().collect();
                match m.params.iter().position(|p| *p == word) {
                    Some(q) => body.push_str(&args[q]),
                    None => body.push_str(&word),
                }
                b = e;
            } else {
                body.push(bc[b]);
                b += 1;
            }
        }
        // Not expanded again inside its own expansion.
        let others: HashMap<String, FnMacro> = macros
            .iter()
            .filter(|(k, _)| **k != name)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        out.push_str(&expand(&body, &others, depth + 1));
        let newlines = chars[i..=end].iter().filter(|c| **c == '\n').count();
        out.extend(std::iter::repeat_n('\n', newlines));
        i = end + 1;
    }
    out
}

/// Applies a conditional directive (`#if`, `#ifdef`, `#ifndef`, `#elif`, `#else`, `#endif`)
/// to the stack of (branch taken, some branch taken, parent active); false for other
/// directives.
fn conditional(
    dir: &str,
    rest: &str,
    conds: &mut Vec<(bool, bool, bool)>,
    defines: &HashMap<String, String>,
) -> bool {
    let active = conds.last().is_none_or(|c| c.0 && c.2);
    match dir {
        "if" | "ifdef" | "ifndef" => {
            let v = match dir {
                "ifdef" => Some(defines.contains_key(rest.trim())),
                "ifndef" => Some(!defines.contains_key(rest.trim())),
                _ => eval_cond(rest, defines),
            };
            let taken = v.unwrap_or(true);
            conds.push((taken, taken, active));
        }
        "elif" => {
            if let Some(top) = conds.last_mut() {
                let v = !top.1 && eval_cond(rest, defines).unwrap_or(false);
                top.0 = v;
                top.1 |= v;
            }
        }
        "else" => {
            if let Some(top) = conds.last_mut() {
                top.0 = !top.1;
                top.1 = true;
            }
        }
        "endif" => {
            conds.pop();
        }
        _ => return false,
    }
    true
}

/// The item `chars[i..end]` as a function definition the device may call: `__device__` among
/// the words before its parameter list, or a plain function (made `__device__`), and a body.
/// Its name is the word before the `(`.
fn device_fn(chars: &[char], code: &[char], i: usize, end: usize) -> Option<crate::ir::DeviceFn> {
    let item = &code[i..end];
    let paren = item.iter().position(|c| *c == '(')?;
    let head: String = item[..paren].iter().collect();
    let words: Vec<&str> = head
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if !item.contains(&'{') || item.last() != Some(&'}') {
        return None;
    }
    let name = words.last()?.to_string();
    let text: String = chars[i..end].iter().collect();
    // A plain function (`void bar(float* a, int n) { … }`) is compiled for the device when a
    // `call` names it: the `.cu` holds device code only. Other items stay host C++.
    const HOST_ONLY: &[&str] = &[
        "__global__",
        "__host__",
        "__co_device__",
        "__cok__",
        "template",
        "struct",
        "class",
        "namespace",
        "union",
        "enum",
        "typedef",
        "using",
        "extern",
        "operator",
    ];
    let text = if words.contains(&"__device__") {
        text
    } else if name != "main" && !words.iter().any(|w| HOST_ONLY.contains(w)) {
        format!("__device__ {text}")
    } else {
        return None;
    };
    let line = code[..i].iter().filter(|c| **c == '\n').count() as u32 + 1;
    Some(crate::ir::DeviceFn { name, text, line })
}

/// Name and char range of every `__co__` function in filtered text.
pub(crate) fn kernels(text: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let chars: Vec<char> = text.chars().collect();
    let code = blank_comments(&chars);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = find_word(&code, from, "__co__") {
        let end = item_end(&code, i);
        let paren = code[i..end].iter().position(|c| *c == '(');
        let name = paren
            .map(|p| {
                let head: String = code[i + 6..i + p].iter().collect();
                head.split_whitespace().last().unwrap_or("").to_string()
            })
            .unwrap_or_default();
        out.push((name, i..end));
        from = end.max(i + 1);
    }
    out
}

/// `text` with every function of `all` but `one` blanked out.
pub(crate) fn keep_only(
    text: &str,
    one: &std::ops::Range<usize>,
    all: &[(String, std::ops::Range<usize>)],
) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for (_, r) in all {
        if r != one {
            for c in chars.iter_mut().take(r.end).skip(r.start) {
                if *c != '\n' {
                    *c = ' ';
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn blank(keep: &mut [bool], from: usize, to: usize) {
    for k in keep.iter_mut().take(to).skip(from) {
        *k = false;
    }
}

/// `const NAME = …` (tessel) rather than `const int x = …` (C++).
fn const_is_dsl(code: &[char], mut i: usize) -> bool {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    let name = word_at(code, i);
    i += name.len();
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    !name.is_empty() && code.get(i) == Some(&'=')
}

fn word_at(code: &[char], i: usize) -> String {
    code[i..]
        .iter()
        .take_while(|c| c.is_alphanumeric() || **c == '_')
        .collect()
}

fn at_line_start(code: &[char], i: usize) -> bool {
    code[..i]
        .iter()
        .rev()
        .take_while(|c| **c != '\n')
        .all(|c| c.is_whitespace())
}

/// End of a preprocessor line (past its `\` continuations), at its newline.
fn directive_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() && chars[i] != '\n' {
        if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 2;
            continue;
        }
        i += 1;
    }
    i
}

/// End of the top-level item starting at `i`: past its `;` or past the `}` closing its first
/// top-level brace group (then past a following `;`), whichever comes first; a preprocessor
/// line ends it early.
fn item_end(code: &[char], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < code.len() {
        match code[i] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' => depth -= 1,
            '}' => {
                depth -= 1;
                if depth <= 0 {
                    let mut j = i + 1;
                    while j < code.len() && code[j].is_whitespace() && code[j] != '\n' {
                        j += 1;
                    }
                    if code.get(j) == Some(&';') {
                        return j + 1;
                    }
                    return i + 1;
                }
            }
            ';' if depth <= 0 => return i + 1,
            '#' if depth <= 0 && at_line_start(code, i) => return i,
            _ => {}
        }
        i += 1;
    }
    i
}

fn find_word(code: &[char], from: usize, w: &str) -> Option<usize> {
    let wc: Vec<char> = w.chars().collect();
    let ident = |c: Option<&char>| c.is_some_and(|c| c.is_alphanumeric() || *c == '_');
    (from..code.len().saturating_sub(wc.len() - 1)).find(|&i| {
        code[i..i + wc.len()] == wc[..]
            && !ident(i.checked_sub(1).and_then(|p| code.get(p)))
            && !ident(code.get(i + wc.len()))
    })
}

/// Comments and the inside of string and character literals as spaces (offsets kept).
fn blank_comments(chars: &[char]) -> Vec<char> {
    let mut out = chars.to_vec();
    let n = chars.len();
    let mut i = 0;
    while i < n {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
            while i < n && chars[i] != '\n' {
                out[i] = ' ';
                i += 1;
            }
        } else if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
            let start = i;
            i += 2;
            while i < n && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i = (i + 2).min(n);
            for c in out.iter_mut().take(i).skip(start) {
                if *c != '\n' {
                    *c = ' ';
                }
            }
        } else if chars[i] == '"' || (chars[i] == '\'' && !digit_separator(chars, i)) {
            let q = chars[i];
            i += 1;
            while i < n && chars[i] != q && chars[i] != '\n' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                for c in out.iter_mut().skip(i).take(step) {
                    *c = ' ';
                }
                i += step;
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    out
}

/// C++14 digit separators (`1'000`) are not character literals.
fn digit_separator(chars: &[char], i: usize) -> bool {
    i > 0
        && chars[i - 1].is_ascii_alphanumeric()
        && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphanumeric())
}

/// Value of a `#if` condition, `None` when it names something this pass cannot evaluate.
fn eval_cond(text: &str, defines: &HashMap<String, String>) -> Option<bool> {
    let toks = cond_tokens(text);
    let mut p = CondParser {
        toks,
        pos: 0,
        defines,
        depth: 0,
    };
    let v = p.or()?;
    (p.pos == p.toks.len()).then_some(v != 0)
}

fn cond_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let s: String = chars[i..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .collect();
            i += s.chars().count();
            out.push(s);
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if ["&&", "||", "==", "!=", "<=", ">="].contains(&two.as_str()) {
                out.push(two);
                i += 2;
            } else {
                out.push(c.to_string());
                i += 1;
            }
        }
    }
    out
}

struct CondParser<'a> {
    toks: Vec<String>,
    pos: usize,
    defines: &'a HashMap<String, String>,
    depth: u32,
}

impl CondParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }
    fn eat(&mut self, t: &str) -> bool {
        let hit = self.peek() == Some(t);
        self.pos += hit as usize;
        hit
    }
    fn or(&mut self) -> Option<i64> {
        let mut v = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            v = (v != 0 || r != 0) as i64;
        }
        Some(v)
    }
    fn and(&mut self) -> Option<i64> {
        let mut v = self.cmp()?;
        while self.eat("&&") {
            let r = self.cmp()?;
            v = (v != 0 && r != 0) as i64;
        }
        Some(v)
    }
    fn cmp(&mut self) -> Option<i64> {
        let a = self.unary()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                let b = self.unary()?;
                return Some(match op {
                    "==" => a == b,
                    "!=" => a != b,
                    "<=" => a <= b,
                    ">=" => a >= b,
                    "<" => a < b,
                    _ => a > b,
                } as i64);
            }
        }
        Some(a)
    }
    fn unary(&mut self) -> Option<i64> {
        self.depth += 1;
        if self.depth > 64 {
            return None;
        }
        let r = if self.eat("!") {
            self.unary().map(|v| (v == 0) as i64)
        } else if self.eat("(") {
            let v = self.or()?;
            self.eat(")").then_some(v)
        } else if self.eat("defined") {
            let paren = self.eat("(");
            let name = self.peek()?.to_string();
            self.pos += 1;
            if paren && !self.eat(")") {
                return None;
            }
            Some(self.defines.contains_key(&name) as i64)
        } else {
            let t = self.peek()?.to_string();
            self.pos += 1;
            if let Ok(v) = t.trim_end_matches(['u', 'U', 'l', 'L']).parse::<i64>() {
                Some(v)
            } else {
                let value = self.defines.get(&t)?;
                value.trim().parse::<i64>().ok()
            }
        };
        self.depth -= 1;
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_kernel_and_defines_blanks_host_code() {
        let src = "#include <x>\n#define T 4\nint main() { return 0; }\n__co__ void k() { }\n";
        let f = filter(src);
        assert_eq!(f.text.lines().count(), 4);
        assert!(f.text.contains("#define T 4"));
        assert!(!f.text.contains("main"));
        assert!(!f.text.contains("include"));
        assert!(f.text.contains("__co__ void k() { }"));
        assert_eq!(f.skipped, vec![(1, 1), (3, 3)]);
    }

    #[test]
    fn conditionals_follow_defines() {
        let src = "#define A 1\n#if A == 1\n#define B 2\n#else\n#define B 3\n#endif\n#ifdef Z\nzz\n#endif\n";
        let f = filter(src);
        assert!(f.text.contains("#define B 2"));
        assert!(!f.text.contains("#define B 3"));
        assert!(!f.text.contains("zz"));
    }

    /// Conditionals inside a `__co__` body: the branch taken stays where it was written, the
    /// directives and the other branches are blanked (lines and columns unchanged).
    #[test]
    fn conditionals_inside_a_kernel_body_keep_the_branch_taken() {
        let src = "#define A 1\n__co__ void k() {\n#if A\n  taken;\n#else\n  dropped;\n#endif\n#ifdef B\n  gone;\n#endif\n  after;\n}\n";
        let f = filter(src);
        let lines: Vec<&str> = f.text.lines().collect();
        assert_eq!(lines.len(), src.lines().count());
        assert_eq!(lines[3], "  taken;");
        assert!(
            lines[2].trim().is_empty() && lines[4].trim().is_empty(),
            "{}",
            f.text
        );
        assert!(
            !f.text.contains("dropped") && !f.text.contains("gone"),
            "{}",
            f.text
        );
        assert_eq!(lines[10], "  after;");
    }

    /// Function-like macros expand in the kept text as the C preprocessor does: arguments
    /// first, nested calls, no expansion of a macro inside its own body; a call over several
    /// lines keeps the lines after it in place.
    #[test]
    fn function_like_macros_expand_in_kernels() {
        let src = "#define ADD(a, b) (a + b)\n#define TWICE(x) ADD(x, x)\n#define SELF(x) SELF(x + 1)\n__co__ void k() {\n  y = TWICE(ADD(p, 1));\n  z = ADD(q,\n          2);\n  w = SELF(r);\n  s = \"ADD(1, 2)\";\n  after;\n}\n";
        let f = filter(src);
        let lines: Vec<&str> = f.text.lines().collect();
        assert_eq!(lines.len(), src.lines().count(), "{}", f.text);
        assert_eq!(lines[4].trim(), "y = ((p + 1) + (p + 1));");
        // What followed the call stays on the call's last line.
        assert_eq!((lines[5].trim(), lines[6].trim()), ("z = (q + 2)", ";"));
        assert_eq!(lines[7].trim(), "w = SELF(r + 1);");
        assert_eq!(lines[8].trim(), "s = \"ADD(1, 2)\";");
        assert_eq!(lines[9].trim(), "after;");
        // `#` in a body (stringizing, or tessel's composition) is left alone.
        let f = filter("#define AT(a, b) x.at(a # b)\n__co__ void k() {\n  AT(i, j);\n}\n");
        assert!(f.text.contains("AT(i, j)"), "{}", f.text);
    }

    /// Functions a `call` may name: `__device__` ones as written, plain ones made `__device__`;
    /// `main`, templates, `__global__` / `__host__` functions and Croqtile's `__co_device__`
    /// helpers are not.
    #[test]
    fn plain_functions_are_device_functions_for_call() {
        let src = "__device__ int f(int x) { return x; }\nvoid g(float* p) { p[0] = 1.0f; }\nint main() { return 0; }\ntemplate <int N> void h() { }\n__host__ void k() { }\n__co_device__ void d(f32 [4] t) { }\n__co__ void co() { }\n";
        let f = filter(src);
        let fns: Vec<(&str, &str)> = f
            .device_fns
            .iter()
            .map(|d| (d.name.as_str(), d.text.as_str()))
            .collect();
        assert_eq!(
            fns,
            [
                ("f", "__device__ int f(int x) { return x; }"),
                ("g", "__device__ void g(float* p) { p[0] = 1.0f; }"),
            ]
        );
    }

    #[test]
    fn void_functions_are_host_code_only_beside_a_kernel() {
        let f = filter("void f() { }\n");
        assert!(f.text.contains("void f"));
        let f = filter("void f() { }\n__co__ void k() { }\n");
        assert!(!f.text.contains("void f"));
    }
}
