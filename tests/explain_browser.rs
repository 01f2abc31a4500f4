//! `tessel explain` pages in a real browser: headless Chromium (Debian's `chromium`) loads the
//! pages of v0 and v4 with a `#select=…` fragment (or `#click=…` / `#hover=…`, which play that
//! mouse event on the line), and the DOM it dumps must mark exactly the lines the page's own
//! mapping links (DSL → CUDA + SASS, SASS → DSL + CUDA, CUDA → DSL + SASS). The v4 page must be ready in under a second and weigh under 2 MB.
//!
//! Needs NVRTC + nvdisasm and Chromium. Under `CI=true` (or `TESSEL_REQUIRE_NVRTC=1` for the
//! compilers, `TESSEL_REQUIRE_BROWSER=1` for the browser) a missing tool fails the test;
//! otherwise it is skipped with a loud `SKIPPED:` line. `TESSEL_CHROMIUM` names the browser
//! executable (default: `chromium`, then `chromium-browser` on `PATH`).
//! `TESSEL_EXPLAIN_SCREENSHOTS=DIR` also writes `explain-v0.png` and `explain-v4.png` there (how
//! the screenshots in `docs/` are made).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use tessel::explain::{ExplainRequest, Page, explain, tune_identity};

fn browser_required() -> bool {
    let is = |k: &str, v: &str| std::env::var(k).is_ok_and(|x| x.eq_ignore_ascii_case(v));
    is("CI", "true") || is("TESSEL_REQUIRE_BROWSER", "1")
}

/// The Chromium executable, or a skip (a failure when required).
fn chromium(test: &str) -> Option<PathBuf> {
    let candidates: Vec<PathBuf> = match std::env::var_os("TESSEL_CHROMIUM") {
        Some(p) => vec![PathBuf::from(p)],
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            std::env::split_paths(&path)
                .flat_map(|d| [d.join("chromium"), d.join("chromium-browser")])
                .collect()
        }
    };
    if let Some(p) = candidates.into_iter().find(|p| p.is_file()) {
        return Some(p);
    }
    let why = format!(
        "{test}: no Chromium (`chromium` on PATH or $TESSEL_CHROMIUM); install Debian's \
         `chromium` (tools/test.sh does under CI=true)"
    );
    if browser_required() {
        panic!("{why} (required: CI=true or TESSEL_REQUIRE_BROWSER=1)");
    }
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
    None
}

fn tools(test: &str) -> Option<PathBuf> {
    if !common::nvrtc_and_nvdisasm_available(test) {
        return None;
    }
    chromium(test)
}

fn tmp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tessel-explain-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn make_page(kernel: &str, tune_cache: &Path) -> Page {
    let path = format!("kernels/{kernel}.co");
    let text = common::read(&path);
    let mut req = ExplainRequest::new(&text, &path);
    req.tune_cache = Some(tune_cache.to_path_buf());
    explain(&req).unwrap_or_else(|e| panic!("explain {path}: {e}"))
}

/// Runs Chromium headless on `url` with `extra` arguments and a fresh profile; its stdout.
fn chromium_run(browser: &Path, dir: &Path, url: &str, extra: &[&str]) -> String {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let profile = dir.join(format!(
        "profile-{}",
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let out_path = dir.join(format!("{}.out", profile.display()));
    let out = std::fs::File::create(&out_path).unwrap();
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", browser.display()));
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed ({status}) on {url}");
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within 120 s on {url}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // A profile is some MB; each run gets a fresh one, so drop it now.
    let _ = std::fs::remove_dir_all(&profile);
    std::fs::read_to_string(&out_path).unwrap()
}

fn file_url(p: &Path, fragment: &str) -> String {
    format!("file://{}#{fragment}", p.display())
}

/// Ids of the `<div>` lines whose class list holds `cls`.
fn marked(dom: &str, cls: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for part in dom.split("<div class=\"").skip(1) {
        let Some((classes, rest)) = part.split_once('"') else {
            continue;
        };
        if !classes.split_whitespace().any(|c| c == cls) {
            continue;
        }
        if let Some(r) = rest.strip_prefix(" id=\"")
            && let Some((id, _)) = r.split_once('"')
        {
            out.insert(id.to_string());
        }
    }
    out
}

fn body_attr(dom: &str, name: &str) -> Option<String> {
    let body = &dom[dom.find("<body")?..];
    let tag = &body[..body.find('>')?];
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    Some(tag[at..].split('"').next()?.to_string())
}

fn sass_id(p: &Page, i: usize) -> String {
    format!("s{:04x}", p.sass[i].offset)
}

/// What `#select=dsl:LINE` must mark.
fn expect_dsl(p: &Page, line: u32) -> BTreeSet<String> {
    let f = p
        .line(line)
        .unwrap_or_else(|| panic!("DSL line {line} links nothing"));
    let mut s: BTreeSet<String> = [format!("d{line}")].into();
    s.extend(f.cuda_lines.iter().map(|c| format!("c{c}")));
    s.extend(f.sass.iter().map(|&i| sass_id(p, i)));
    s
}

/// What `#select=sass:OFFSET` must mark.
fn expect_sass(p: &Page, i: usize) -> BTreeSet<String> {
    let mut s: BTreeSet<String> = [sass_id(p, i)].into();
    s.extend(p.sass[i].dsl.map(|d| format!("d{d}")));
    s.extend(p.sass[i].chain.iter().map(|c| format!("c{c}")));
    s
}

/// What `#select=cu:LINE` must mark.
fn expect_cu(p: &Page, line: u32) -> BTreeSet<String> {
    let mut s: BTreeSet<String> = [format!("c{line}")].into();
    s.extend(p.cuda_dsl[line as usize - 1].map(|d| format!("d{d}")));
    for (i, x) in p.sass.iter().enumerate() {
        if x.chain.contains(&line) {
            s.insert(sass_id(p, i));
        }
    }
    s
}

/// The 1-based DSL line holding `needle` (found in the source, not hard-coded).
fn dsl_line(p: &Page, kernel: &str, needle: &str) -> u32 {
    let text = common::read(&format!("kernels/{kernel}.co"));
    let n = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in {kernel}.co")) as u32
        + 1;
    assert!(
        p.line(n).is_some(),
        "DSL line {n} (`{needle}`) links nothing"
    );
    n
}

fn classes_of(p: &Page, ids: &BTreeSet<String>) -> BTreeSet<&'static str> {
    p.sass
        .iter()
        .enumerate()
        .filter(|(i, _)| ids.contains(&sass_id(p, *i)))
        .map(|(_, s)| tessel::explain::class_of(s.mnemonic()))
        .collect()
}

fn assert_selection(browser: &Path, dir: &Path, html: &Path, sel: &str, want: &BTreeSet<String>) {
    let dom = chromium_run(
        browser,
        dir,
        &file_url(html, &format!("select={sel}")),
        &["--dump-dom"],
    );
    assert_eq!(
        body_attr(&dom, "data-selected").as_deref(),
        Some(sel),
        "the page did not apply #select={sel}"
    );
    let got = marked(&dom, "sel");
    assert_eq!(
        &got, want,
        "#select={sel}: marked lines differ from the page's mapping"
    );
}

#[test]
fn v0_links_dsl_cuda_and_sass_in_chromium() {
    let Some(browser) = tools("v0_links_dsl_cuda_and_sass_in_chromium") else {
        return;
    };
    let dir = tmp_dir("v0");
    let p = make_page("v0_naive", &dir.join("no-tune-cache"));
    let html = dir.join("v0.html");
    std::fs::write(&html, &p.html).unwrap();

    // The FMA line: its SASS holds the scalar f16 FMAs and the global loads.
    let fma = dsl_line(&p, "v0_naive", "acc +=");
    let want = expect_dsl(&p, fma);
    let classes = classes_of(&p, &want);
    assert!(
        classes.contains("HFMA2") || classes.contains("FFMA"),
        "no FMA among DSL line {fma}'s SASS: {classes:?}"
    );
    assert!(
        classes.contains("LDG"),
        "no global load on DSL line {fma}: {classes:?}"
    );
    assert_selection(&browser, &dir, &html, &format!("dsl:{fma}"), &want);

    // The reverse: an FMA instruction selects its DSL line and its CUDA lines.
    let i = p
        .sass
        .iter()
        .position(|s| s.dsl == Some(fma) && matches!(s.mnemonic(), "HFMA2" | "FFMA"))
        .expect("an FMA instruction on the FMA line");
    let want = expect_sass(&p, i);
    assert!(want.contains(&format!("d{fma}")));
    assert_selection(
        &browser,
        &dir,
        &html,
        &format!("sass:{:04x}", p.sass[i].offset),
        &want,
    );

    // The same through the mouse handlers: hovering the FMA line marks its links as hovered,
    // clicking the FMA instruction selects its links.
    let dom = chromium_run(
        &browser,
        &dir,
        &file_url(&html, &format!("hover=dsl:{fma}")),
        &["--dump-dom"],
    );
    assert_eq!(
        marked(&dom, "hov"),
        expect_dsl(&p, fma),
        "hover on DSL line {fma}"
    );
    assert!(marked(&dom, "sel").is_empty());
    let off = format!("{:04x}", p.sass[i].offset);
    let dom = chromium_run(
        &browser,
        &dir,
        &file_url(&html, &format!("click=sass:{off}")),
        &["--dump-dom"],
    );
    assert_eq!(
        body_attr(&dom, "data-selected").as_deref(),
        Some(format!("sass:{off}").as_str())
    );
    assert_eq!(
        marked(&dom, "sel"),
        expect_sass(&p, i),
        "click on SASS {off}"
    );

    // The store line.
    let store = dsl_line(&p, "v0_naive", "output.at(");
    let want = expect_dsl(&p, store);
    assert!(
        classes_of(&p, &want).contains("STG"),
        "no STG on the store line"
    );
    assert_selection(&browser, &dir, &html, &format!("dsl:{store}"), &want);

    if let Some(d) = std::env::var_os("TESSEL_EXPLAIN_SCREENSHOTS") {
        screenshot(
            &browser,
            &dir,
            &html,
            &format!("select=dsl:{fma}"),
            &Path::new(&d).join("explain-v0.png"),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn v4_links_loads_fast_and_shows_its_tuning_in_chromium() {
    let Some(browser) = tools("v4_links_loads_fast_and_shows_its_tuning_in_chromium") else {
        return;
    };
    let dir = tmp_dir("v4");
    let cache = tune_cache_for_v4(&dir);
    let p = make_page("v4_tuned", &cache);
    let html = dir.join("v4.html");
    std::fs::write(&html, &p.html).unwrap();

    // Self-contained and small.
    assert!(p.html.len() < 2 << 20, "v4 page is {} bytes", p.html.len());
    for bad in ["<link", " src=", "@import", "url(", "<iframe"] {
        assert!(
            !p.html.contains(bad),
            "the page loads something external: `{bad}`"
        );
    }

    // The WGMMA line links tensor-core instructions; a TMA copy line links a TMA load.
    let mma = dsl_line(&p, "v4_tuned", "mma.row.row");
    let want = expect_dsl(&p, mma);
    assert!(
        classes_of(&p, &want).contains("HGMMA"),
        "no HGMMA on DSL line {mma}"
    );
    assert_selection(&browser, &dir, &html, &format!("dsl:{mma}"), &want);
    let tma = dsl_line(&p, "v4_tuned", "tma.copy.async");
    assert!(
        classes_of(&p, &expect_dsl(&p, tma)).contains("UTMALDG"),
        "no UTMALDG on DSL line {tma}"
    );

    // SASS → DSL: an HGMMA the line table puts on the mma line.
    let i = p
        .sass
        .iter()
        .position(|s| s.dsl == Some(mma) && s.mnemonic() == "HGMMA")
        .expect("an HGMMA on the mma line");
    assert_selection(
        &browser,
        &dir,
        &html,
        &format!("sass:{:04x}", p.sass[i].offset),
        &expect_sass(&p, i),
    );

    // CUDA → DSL + SASS: the `.cu` line that issues the WGMMA.
    let cu = p
        .cuda
        .lines()
        .position(|l| l.contains("tsl_wgmma<") && l.contains(&format!("// dsl:{mma}")))
        .expect("the wgmma call in the .cu") as u32
        + 1;
    let want = expect_cu(&p, cu);
    assert!(want.contains(&format!("d{mma}")) && want.iter().any(|x| x.starts_with('s')));
    assert_selection(&browser, &dir, &html, &format!("cu:{cu}"), &want);
    let dom = chromium_run(
        &browser,
        &dir,
        &file_url(&html, &format!("click=cu:{cu}")),
        &["--dump-dom"],
    );
    assert_eq!(marked(&dom, "sel"), want, "click on CUDA line {cu}");

    // Load time, measured by the page itself: performance.now() (from navigation start) once
    // it is parsed, linked and laid out. The best of up to three loads, so that a busy CI
    // machine (other tests' browsers and compilers) does not fail a page that is fast.
    let mut times = Vec::new();
    let mut dom = String::new();
    for _ in 0..3 {
        dom = chromium_run(
            &browser,
            &dir,
            &file_url(&html, &format!("select=dsl:{mma}")),
            &["--dump-dom"],
        );
        let ms: f64 = body_attr(&dom, "data-ready-ms")
            .expect("data-ready-ms")
            .parse()
            .unwrap();
        times.push(ms);
        if ms < 1000.0 {
            break;
        }
    }
    let best = times.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(best < 1000.0, "v4 page took {times:?} ms to be ready");

    // Tuning: both cached shapes, each with its chart, top configs, winner and roofline.
    assert_eq!(
        p.tune.len(),
        2,
        "tune results: {:?}",
        p.tune.iter().map(|t| &t.shape).collect::<Vec<_>>()
    );
    for t in &p.tune {
        assert!(
            !t.top.is_empty() && t.svg.starts_with("<svg"),
            "{}",
            t.shape
        );
        assert!(t.winner.contains("cuBLAS"), "{}", t.winner);
        assert!(t.roofline.is_some(), "{}: no roofline", t.shape);
        assert!(
            dom.contains(
                &t.winner
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;")
            )
        );
    }
    let tune_part = &dom[dom.find("id=\"tune\"").expect("tune section")..];
    // Per shape: the sweep chart and the roofline chart.
    assert_eq!(tune_part.matches("<svg").count(), 4);
    for t in &p.tune {
        let r = t.roofline_point.as_ref().expect("roofline numbers");
        // m = n = k: intensity 2k³ / (3k² · 2 bytes) = k / 3 (the shape is `K=… M=… N=…`).
        let k: f64 = t
            .shape
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("K="))
            .expect("a K in the problem key")
            .parse()
            .unwrap();
        assert!(
            (r.intensity - k / 3.0).abs() < 1.0,
            "{}: {}",
            t.shape,
            r.intensity
        );
        assert!(r.winner_tflops.is_some_and(|w| w <= r.peak_tflops * 1.2));
    }

    // The legend names the helpers the kernel's TMA and mbarrier lines use, with their PTX.
    for (name, ptx) in [
        ("tsl_mbar_wait_ring", "mbarrier.try_wait"),
        ("tsl_tma_load_2d", "cp.async.bulk.tensor"),
    ] {
        let h = p
            .helpers
            .iter()
            .find(|h| h.name == name)
            .unwrap_or_else(|| panic!("{name} not in the legend"));
        let all_ptx = &h.ptx_reached;
        assert!(
            all_ptx.iter().any(|x| x.starts_with(ptx)),
            "{name}: PTX {all_ptx:?} lacks {ptx}"
        );
        assert!(!h.comment.is_empty(), "{name} has no explanation");
    }

    if let Some(d) = std::env::var_os("TESSEL_EXPLAIN_SCREENSHOTS") {
        screenshot(
            &browser,
            &dir,
            &html,
            &format!("select=dsl:{mma}"),
            &Path::new(&d).join("explain-v4.png"),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tune cache committed in `docs/tune` (an H200 sweep of v4 at 4096³ and 8192³), keyed to
/// the kernel as emitted today: a cache is only shown for the exact code it measured, and the
/// emitted code may have changed since that sweep.
fn tune_cache_for_v4(dir: &Path) -> PathBuf {
    let tgz = common::root().join("docs/tune/2026-11-23-h200-run31-tunecache.tgz");
    let raw = dir.join("raw");
    std::fs::create_dir_all(&raw).unwrap();
    let st = Command::new("tar")
        .arg("xzf")
        .arg(&tgz)
        .arg("-C")
        .arg(&raw)
        .status()
        .expect("tar");
    assert!(st.success(), "tar xzf {}", tgz.display());
    let text = common::read("kernels/v4_tuned.co");
    let (name, hash) = tune_identity(&text, "kernels/v4_tuned.co").expect("v4 is tunable");
    let cache = dir.join("tune");
    std::fs::create_dir_all(&cache).unwrap();
    let mut n = 0;
    for e in std::fs::read_dir(raw.join("tc")).unwrap() {
        let f = e.unwrap().path();
        if f.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let content = std::fs::read_to_string(&f).unwrap();
        let (first, rest) = content.split_once('\n').unwrap();
        let mut header: serde_json::Value = serde_json::from_str(first).unwrap();
        if header["kernel"] != name.as_str() || header["dtypes"] != "f16 in, f16 acc, f16 out" {
            continue;
        }
        header["source_hash"] = serde_json::Value::from(hash.clone());
        // The committed cache predates the problem-key format: a GEMM shape becomes its key.
        if let Some(shape) = header.get("shape").cloned() {
            header["problem"] = serde_json::Value::from(format!(
                "K={} M={} N={}",
                shape["k"], shape["m"], shape["n"]
            ));
            header.as_object_mut().unwrap().remove("shape");
        }
        header["format"] = serde_json::Value::from(tessel::runtime::tune::store::FORMAT);
        if header.get("settings").is_none() {
            header["settings"] = serde_json::Value::from("converted from format 1");
        }
        let key: tessel::runtime::tune::store::CacheKey =
            serde_json::from_value(header.clone()).unwrap();
        std::fs::write(cache.join(key.file_name()), format!("{header}\n{rest}")).unwrap();
        n += 1;
    }
    assert_eq!(n, 2, "expected the 4096³ and 8192³ f16 caches of v4");
    // A cache of another kernel source next to them is not shown.
    std::fs::write(
        cache.join("matmul-0000000000000000.jsonl"),
        "{\"type\":\"header\",\"kernel\":\"matmul\",\"source_hash\":\"other\"}\n",
    )
    .unwrap();
    cache
}

fn screenshot(browser: &Path, dir: &Path, html: &Path, fragment: &str, out: &Path) {
    let _ = std::fs::remove_file(out);
    chromium_run(
        browser,
        dir,
        &file_url(html, fragment),
        &[
            "--hide-scrollbars",
            "--window-size=1600,1000",
            &format!("--screenshot={}", out.display()),
        ],
    );
    assert!(out.is_file(), "no screenshot at {}", out.display());
}
