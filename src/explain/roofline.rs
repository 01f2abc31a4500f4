//! A small log-log roofline chart for the page: the memory slope (measured copy bandwidth),
//! the compute ceiling (cuBLAS on the same problem) and the tuned winner at the problem's
//! arithmetic intensity.

use std::fmt::Write as _;

use super::html::esc;

/// Where a problem and its winner sit.
#[derive(Clone, Debug, PartialEq)]
pub struct Roofline {
    /// FLOP per byte of the problem (each input and the output moved once).
    pub intensity: f64,
    /// Compute ceiling, TFLOP/s (cuBLAS measured on the same problem).
    pub peak_tflops: f64,
    /// Memory bandwidth, GB/s (a device copy).
    pub bandwidth_gbs: f64,
    /// The winner's TFLOP/s, if one verified.
    pub winner_tflops: Option<f64>,
}

impl Roofline {
    /// Attainable TFLOP/s at intensity `x`.
    pub fn ceiling(&self, x: f64) -> f64 {
        (self.bandwidth_gbs * x / 1000.0).min(self.peak_tflops)
    }

    /// The intensity where the slope meets the ceiling.
    pub fn ridge(&self) -> f64 {
        self.peak_tflops * 1000.0 / self.bandwidth_gbs
    }
}

/// The chart as SVG text (`None` for values a log scale cannot show).
pub fn svg(r: &Roofline) -> Option<String> {
    let ok = |v: f64| v.is_finite() && v > 0.0;
    if !(ok(r.intensity) && ok(r.peak_tflops) && ok(r.bandwidth_gbs)) {
        return None;
    }
    let (w, h, l, b, t, rt) = (460.0, 280.0, 56.0, 40.0, 14.0, 16.0);
    let decade = |v: f64| v.log10();
    let x0 = decade(r.intensity.min(r.ridge()) / 10.0).floor();
    let x1 = decade(r.intensity.max(r.ridge()) * 10.0).ceil();
    let y1 = decade(r.peak_tflops * 2.0).ceil();
    let y0 = (y1 - 4.0).min(decade(r.ceiling(10f64.powf(x0))).floor());
    let px = |x: f64| l + (decade(x) - x0) / (x1 - x0) * (w - l - rt);
    let py = |y: f64| h - b - (decade(y) - y0) / (y1 - y0) * (h - b - t);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"11\"><rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>"
    );
    for d in (x0 as i32)..=(x1 as i32) {
        let x = px(10f64.powi(d));
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" y1=\"{t}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#eee\"/>\
             <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            h - b,
            h - b + 14.0,
            esc(&pow10(d))
        );
    }
    for d in (y0 as i32)..=(y1 as i32) {
        let y = py(10f64.powi(d));
        let _ = write!(
            s,
            "<line x1=\"{l}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            w - rt,
            l - 4.0,
            y + 4.0,
            esc(&pow10(d))
        );
    }
    let (xa, xr, xb) = (10f64.powf(x0), r.ridge(), 10f64.powf(x1));
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}\"/>",
        px(xa),
        py(r.ceiling(xa)),
        px(xr),
        py(r.ceiling(xr)),
        px(xb),
        py(r.ceiling(xb))
    );
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#1f77b4\">{:.0} GB/s</text>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#1f77b4\" text-anchor=\"end\">cuBLAS {:.0} TFLOP/s</text>",
        px(xa) + 4.0,
        py(r.ceiling(xa)) - 6.0,
        r.bandwidth_gbs,
        w - rt - 2.0,
        py(r.peak_tflops) - 6.0,
        r.peak_tflops
    );
    let x = px(r.intensity);
    let _ = write!(
        s,
        "<line x1=\"{x:.1}\" y1=\"{t}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\" stroke-dasharray=\"3,3\"/>",
        h - b
    );
    if let Some(tf) = r.winner_tflops.filter(|v| ok(*v)) {
        let _ = write!(
            s,
            "<circle cx=\"{x:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"#d62728\"><title>winner {tf:.1} TFLOP/s at {:.0} FLOP/B</title></circle>\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d62728\" text-anchor=\"end\">winner {tf:.0}</text>",
            py(tf),
            r.intensity,
            x - 8.0,
            py(tf) + 14.0
        );
    }
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">arithmetic intensity, FLOP/byte (this problem: {:.0})</text>\
         <text x=\"12\" y=\"{:.1}\" transform=\"rotate(-90 12 {:.1})\" text-anchor=\"middle\">TFLOP/s</text></svg>",
        (l + w - rt) / 2.0,
        h - 6.0,
        r.intensity,
        (t + h - b) / 2.0,
        (t + h - b) / 2.0
    );
    Some(s)
}

fn pow10(d: i32) -> String {
    match d {
        0 => "1".into(),
        1 => "10".into(),
        2 => "100".into(),
        3 => "1000".into(),
        _ => format!("1e{d}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ridge_ceiling_and_chart() {
        let r = Roofline {
            intensity: 2731.0,
            peak_tflops: 784.6,
            bandwidth_gbs: 3983.0,
            winner_tflops: Some(697.6),
        };
        assert!((r.ridge() - 197.0).abs() < 1.0);
        assert_eq!(r.ceiling(1e6), 784.6);
        assert!((r.ceiling(10.0) - 39.83).abs() < 1e-9);
        let s = svg(&r).unwrap();
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert!(s.contains("winner 698") && s.contains("3983 GB/s"));
        assert!(
            svg(&Roofline {
                bandwidth_gbs: 0.0,
                ..r
            })
            .is_none()
        );
    }
}
