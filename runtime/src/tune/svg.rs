//! The sweep as an SVG chart: one dot per config (x: configs in tunable order, y: TFLOP/s),
//! coloured by one tunable's value; failed configs as grey crosses on the axis; cuBLAS as a
//! dashed line; the winner ringed. Hovering a mark shows its config (`<title>`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::outcome::TuneOutcome;

const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#7f7f7f",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" axis step (1, 2 or 5 × 10^k) giving about `ticks` ticks up to `max`.
pub fn nice_step(max: f64, ticks: usize) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let raw = max / ticks.max(1) as f64;
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let nice = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// The chart (see the module doc); `color_by` names a tunable (unknown names colour by none).
pub fn chart(o: &TuneOutcome, color_by: &str) -> String {
    let (w, h) = (960.0, 480.0);
    let (left, right, top, bottom) = (70.0, 190.0, 50.0, 60.0);
    let (pw, ph) = (w - left - right, h - top - bottom);
    let mut trials = o.latest();
    let key = |t: &&super::record::TrialRecord| -> Vec<i64> {
        o.tunables
            .iter()
            .map(|n| t.config.get(n).copied().unwrap_or(0))
            .collect()
    };
    trials.sort_by_key(key);
    let cublas = o.cublas_tflops();
    let ymax_data = trials
        .iter()
        .filter_map(|t| t.median_ms().and(t.tflops()))
        .chain(cublas)
        .fold(0.0f64, f64::max);
    let step = nice_step(ymax_data * 1.05, 6);
    let ymax = (ymax_data * 1.05 / step).ceil().max(1.0) * step;
    let values: BTreeSet<i64> = trials
        .iter()
        .filter_map(|t| t.config.get(color_by).copied())
        .collect();
    let color = |v: Option<i64>| {
        v.and_then(|v| values.iter().position(|&x| x == v))
            .map(|i| PALETTE[i % PALETTE.len()])
            .unwrap_or(PALETTE[0])
    };
    let n = trials.len().max(1) as f64;
    let x = |i: usize| left + (i as f64 + 0.5) * pw / n;
    let y = |v: f64| top + ph - (v / ymax).clamp(0.0, 1.0) * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let title = format!(
        "{} {} ({}): TFLOP/s per config, coloured by {}",
        o.kernel,
        o.shape.text(),
        o.dtypes,
        color_by
    );
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="24" font-size="15">{}</text>"#,
        esc(&title)
    );
    // Axes and grid.
    let mut t = 0.0;
    while t <= ymax + 1e-9 {
        let yy = y(t);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e5e5e5"/><text x="{:.1}" y="{:.1}" text-anchor="end">{t:.0}</text>"##,
            left + pw,
            left - 6.0,
            yy + 4.0
        );
        t += step;
    }
    let _ = writeln!(
        s,
        r#"<line x1="{left}" y1="{top}" x2="{left}" y2="{:.1}" stroke="black"/><line x1="{left}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/>"#,
        top + ph,
        top + ph,
        left + pw,
        top + ph
    );
    let _ = writeln!(
        s,
        r#"<text x="18" y="{:.1}" transform="rotate(-90 18 {:.1})" text-anchor="middle">TFLOP/s</text>"#,
        top + ph / 2.0,
        top + ph / 2.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{} configs, ordered by {}</text>"#,
        left + pw / 2.0,
        h - 20.0,
        trials.len(),
        esc(&o.tunables.join(", "))
    );
    if let Some(c) = cublas {
        let yy = y(c);
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#444" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}">cuBLAS {c:.1}</text>"##,
            left + pw,
            left + pw + 6.0,
            yy + 4.0
        );
    }
    let win = o.winner.as_ref().map(|w| &w.config);
    for (i, t) in trials.iter().enumerate() {
        let xx = x(i);
        let tip = esc(&o.label(&t.config));
        match (t.median_ms(), t.tflops()) {
            (Some(ms), Some(tf)) => {
                let yy = y(tf);
                let _ = writeln!(
                    s,
                    r#"<circle cx="{xx:.1}" cy="{yy:.1}" r="4" fill="{}"><title>{tip}: {tf:.1} TFLOP/s, {ms:.4} ms</title></circle>"#,
                    color(t.config.get(color_by).copied())
                );
                if win == Some(&t.config) {
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{xx:.1}" cy="{yy:.1}" r="9" fill="none" stroke="black" stroke-width="2"><title>winner {tip}</title></circle>"#
                    );
                }
            }
            _ => {
                let yy = top + ph - 6.0;
                let kind = t.failure.map(|k| k.name()).unwrap_or("not timed");
                let _ = writeln!(
                    s,
                    r##"<path d="M{:.1} {:.1} l6 6 m0 -6 l-6 6" stroke="#999" stroke-width="1.5"><title>{tip}: {kind}</title></path>"##,
                    xx - 3.0,
                    yy - 3.0
                );
            }
        }
    }
    // Legend.
    let lx = left + pw + 20.0;
    let _ = writeln!(
        s,
        r#"<text x="{lx:.1}" y="{:.1}">{}</text>"#,
        top + 10.0,
        esc(color_by)
    );
    for (i, v) in values.iter().enumerate() {
        let ly = top + 30.0 + 20.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="5" fill="{}"/><text x="{:.1}" y="{:.1}">{v}</text>"#,
            lx + 5.0,
            ly - 4.0,
            color(Some(*v)),
            lx + 16.0,
            ly
        );
    }
    let ly = top + 40.0 + 20.0 * values.len() as f64;
    let _ = writeln!(
        s,
        r##"<path d="M{:.1} {:.1} l6 6 m0 -6 l-6 6" stroke="#999" stroke-width="1.5"/><text x="{:.1}" y="{ly:.1}">failed</text>"##,
        lx + 2.0,
        ly - 8.0,
        lx + 16.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(600.0, 6), 100.0);
        assert_eq!(nice_step(0.9, 6), 0.2);
        assert_eq!(nice_step(0.0, 6), 1.0);
        assert_eq!(esc("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
