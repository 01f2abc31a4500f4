//! `tessel run FILE.co --shape … --input NAME=FILE.npy … --expect NAME=FILE.npy [--atol A]
//! [--rtol R]`: verification of any kernel against answers the user computed (Kernel Tuner's
//! `answer`), for kernels `tessel run`'s own references do not describe — softmax, norms,
//! reductions, epilogues, transposes.
//!
//! This file is the host side, testable without a GPU: reading `.npy` files (through `npyz`)
//! into f64 values in row-major order, matching them against the kernel's tensor parameters
//! (name, shape, element type), and comparing an output with its expected array over every
//! element: `|got - want| <= atol + rtol * |want|`, NaN matching NaN and infinities matching
//! themselves. `run.rs` allocates, launches and reads the outputs back.

use std::path::{Path, PathBuf};

use tessel_runtime::dtype::DType;

/// An `.npy` array: its shape and its values in row-major (C) order, widened to f64.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// The array's shape.
    pub shape: Vec<usize>,
    /// Every element, in row-major order.
    pub values: Vec<f64>,
    /// The file's element type as numpy writes it (`<f4`, `<i4`, …).
    pub dtype: String,
    /// True for integer and boolean element types.
    pub integer: bool,
}

/// Reads `path` (an `.npy` file of a numeric type, C or Fortran order).
pub fn read_npy(path: &Path) -> Result<Array, String> {
    let shown = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let npy = npyz::NpyFile::new(&bytes[..])
        .map_err(|e| format!("{shown} is not a NumPy .npy file: {e}"))?;
    let shape: Vec<usize> = npy
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("{shown}: dimension {d} is too large")))
        .collect::<Result<_, _>>()?;
    let fortran = npy.order() == npyz::Order::Fortran;
    let npyz::DType::Plain(ts) = npy.dtype() else {
        return Err(format!(
            "{shown} holds a structured or nested array; save a plain numeric array"
        ));
    };
    let dtype = ts.to_string();
    let bad = |e: std::io::Error| format!("{shown}: {e}");
    use npyz::TypeChar as C;
    let (values, integer): (Vec<f64>, bool) = match (ts.type_char(), ts.size_field()) {
        (C::Float, 2) => (
            npy.into_vec::<half::f16>()
                .map_err(bad)?
                .into_iter()
                .map(|x| x.to_f64())
                .collect(),
            false,
        ),
        (C::Float, 4) => (wide(npy.into_vec::<f32>().map_err(bad)?), false),
        (C::Float, 8) => (npy.into_vec::<f64>().map_err(bad)?, false),
        (C::Int, 1) => (wide(npy.into_vec::<i8>().map_err(bad)?), true),
        (C::Int, 2) => (wide(npy.into_vec::<i16>().map_err(bad)?), true),
        (C::Int, 4) => (wide(npy.into_vec::<i32>().map_err(bad)?), true),
        (C::Int, 8) => (
            npy.into_vec::<i64>()
                .map_err(bad)?
                .into_iter()
                .map(|x| x as f64)
                .collect(),
            true,
        ),
        (C::Uint, 1) => (wide(npy.into_vec::<u8>().map_err(bad)?), true),
        (C::Uint, 2) => (wide(npy.into_vec::<u16>().map_err(bad)?), true),
        (C::Uint, 4) => (wide(npy.into_vec::<u32>().map_err(bad)?), true),
        (C::Uint, 8) => (
            npy.into_vec::<u64>()
                .map_err(bad)?
                .into_iter()
                .map(|x| x as f64)
                .collect(),
            true,
        ),
        (C::Bool, 1) => (
            npy.into_vec::<bool>()
                .map_err(bad)?
                .into_iter()
                .map(|b| if b { 1.0 } else { 0.0 })
                .collect(),
            true,
        ),
        _ => {
            return Err(format!(
                "{shown} holds `{dtype}` elements; tessel reads floats (f2, f4, f8), integers and booleans"
            ));
        }
    };
    let values = if fortran {
        c_order(&shape, &values)
    } else {
        values
    };
    Ok(Array {
        shape,
        values,
        dtype,
        integer,
    })
}

fn wide<T: Into<f64>>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(Into::into).collect()
}

/// The values of a column-major (Fortran-order) array in row-major order.
fn c_order(shape: &[usize], values: &[f64]) -> Vec<f64> {
    (0..values.len())
        .map(|i| {
            // Row-major element `i`: its coordinates, then their column-major offset.
            let (mut offset, mut stride) = (0, 1);
            for (d, c) in unravel(shape, i).into_iter().enumerate() {
                offset += c * stride;
                stride *= shape[d];
            }
            values[offset]
        })
        .collect()
}

/// The coordinates of row-major element `i` of an array of `shape`.
pub fn unravel(shape: &[usize], mut i: usize) -> Vec<usize> {
    let mut out = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        let n = shape[d].max(1);
        out[d] = i % n;
        i /= n;
    }
    out
}

/// `NAME=FILE` of `--input` / `--expect`.
pub fn parse_named_file(s: &str) -> Result<(String, PathBuf), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=FILE.npy"))?;
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() || v.is_empty() {
        return Err(format!("`{s}` is not NAME=FILE.npy"));
    }
    Ok((k.to_string(), PathBuf::from(v)))
}

/// A non-negative finite tolerance.
pub fn parse_tolerance(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("a tolerance is a finite number ≥ 0, not `{s}`"));
    }
    Ok(v)
}

/// The absolute and relative tolerance of a comparison.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute.
    pub atol: f64,
    /// Relative (to the expected value).
    pub rtol: f64,
}

impl Tolerance {
    /// The default for an output of `dtype` (PyTorch's `assert_close` defaults for its type:
    /// f32 1e-5 / 1.3e-6, f16 1e-5 / 1e-3, bf16 1e-5 / 1.6e-2; fp8 a quarter of its unit
    /// roundoff; integers exact), each replaced by `--atol` / `--rtol` when given.
    pub fn for_output(dtype: DType, atol: Option<f64>, rtol: Option<f64>) -> Tolerance {
        let (a, r) = match dtype {
            DType::F32 => (1e-5, 1.3e-6),
            DType::F16 => (1e-5, 1e-3),
            DType::BF16 => (1e-5, 1.6e-2),
            DType::F8E4M3 => (1e-3, 0.125),
            DType::F8E5M2 => (1e-3, 0.25),
            DType::S8 | DType::U8 | DType::S16 | DType::U16 | DType::U32 | DType::S32 => (0.0, 0.0),
        };
        Tolerance {
            atol: atol.unwrap_or(a),
            rtol: rtol.unwrap_or(r),
        }
    }

    /// Whether `got` passes for `want`.
    pub fn accepts(&self, got: f64, want: f64) -> bool {
        if want.is_nan() || got.is_nan() {
            return want.is_nan() && got.is_nan();
        }
        if want.is_infinite() || got.is_infinite() {
            return got == want;
        }
        (got - want).abs() <= self.atol + self.rtol * want.abs()
    }
}

/// One element that differs.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Its coordinates.
    pub index: Vec<usize>,
    /// The kernel's value.
    pub got: f64,
    /// The expected value.
    pub want: f64,
}

/// An output compared with its expected array over every element.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub elements: usize,
    /// Elements that differ.
    pub mismatches: usize,
    /// The first differing elements (at most [`SHOWN`]), in row-major order.
    pub first: Vec<Mismatch>,
    /// The largest `|got - want|` over the finite pairs.
    pub max_abs_error: f64,
    /// Elements the kernel left NaN where a number was expected.
    pub nan_where_number: usize,
}

/// Mismatches listed in a report.
pub const SHOWN: usize = 10;

impl Comparison {
    /// No element differs.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `got` with `want` (both row-major over `shape`).
pub fn compare(shape: &[usize], got: &[f64], want: &[f64], tol: Tolerance) -> Comparison {
    let mut c = Comparison {
        elements: want.len(),
        mismatches: 0,
        first: Vec::new(),
        max_abs_error: 0.0,
        nan_where_number: 0,
    };
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if g.is_finite() && w.is_finite() {
            c.max_abs_error = c.max_abs_error.max((g - w).abs());
        }
        if tol.accepts(g, w) {
            continue;
        }
        c.mismatches += 1;
        if g.is_nan() && !w.is_nan() {
            c.nan_where_number += 1;
        }
        if c.first.len() < SHOWN {
            c.first.push(Mismatch {
                index: unravel(shape, i),
                got: g,
                want: w,
            });
        }
    }
    c
}

/// The report lines of one output's comparison.
pub fn report(name: &str, c: &Comparison, tol: Tolerance, poisoned: bool) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let verdict = if c.passed() { "ok" } else { "FAIL" };
    let _ = writeln!(
        out,
        "expect   {name}: {} of {} elements differ (atol {}, rtol {}; max |error| {:.3e}) {verdict}",
        c.mismatches, c.elements, tol.atol, tol.rtol, c.max_abs_error
    );
    for m in &c.first {
        let idx: Vec<String> = m.index.iter().map(|i| i.to_string()).collect();
        let _ = writeln!(
            out,
            "         {name}[{}] = {}, expected {} (|error| {:.3e}, allowed {:.3e})",
            idx.join(", "),
            m.got,
            m.want,
            (m.got - m.want).abs(),
            tol.atol + tol.rtol * m.want.abs()
        );
    }
    if c.mismatches > c.first.len() {
        let _ = writeln!(out, "         … and {} more", c.mismatches - c.first.len());
    }
    if poisoned && c.nan_where_number > 0 {
        let _ = writeln!(
            out,
            "         {} element(s) are NaN: `{name}` was filled with NaN before the launch, so these are elements the kernel never wrote",
            c.nan_where_number
        );
    }
    out
}

/// Whether an array's values can be placed in a tensor of `dtype`: integers need integer
/// values within the type's range; floating types take any number.
pub fn fits(a: &Array, dtype: DType) -> Result<(), String> {
    let range = match dtype {
        DType::S8 => Some((-128.0, 127.0)),
        DType::U8 => Some((0.0, 255.0)),
        DType::S16 => Some((i16::MIN as f64, i16::MAX as f64)),
        DType::U16 => Some((0.0, u16::MAX as f64)),
        DType::U32 => Some((0.0, u32::MAX as f64)),
        DType::S32 => Some((i32::MIN as f64, i32::MAX as f64)),
        _ => None,
    };
    let Some((lo, hi)) = range else {
        return Ok(());
    };
    if !a.integer {
        return Err(format!(
            "holds `{}` floats, but the parameter is {} (save an integer array)",
            a.dtype,
            dtype.name()
        ));
    }
    if let Some((i, v)) = a
        .values
        .iter()
        .enumerate()
        .find(|(_, v)| **v < lo || **v > hi)
    {
        let idx: Vec<String> = unravel(&a.shape, i).iter().map(|x| x.to_string()).collect();
        return Err(format!(
            "element [{}] = {v} is outside {} ({lo} to {hi})",
            idx.join(", "),
            dtype.name()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use npyz::WriterBuilder;

    fn save<T: npyz::AutoSerialize + Clone>(
        dir: &Path,
        name: &str,
        shape: &[u64],
        order: npyz::Order,
        data: &[T],
    ) -> PathBuf {
        let path = dir.join(name);
        let mut f = std::fs::File::create(&path).unwrap();
        let mut w = npyz::WriteOptions::new()
            .default_dtype()
            .shape(shape)
            .order(order)
            .writer(&mut f)
            .begin_nd()
            .unwrap();
        w.extend(data.iter().cloned()).unwrap();
        w.finish().unwrap();
        path
    }

    fn tmp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tessel-answer-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn reads_every_numeric_type_in_row_major_order() {
        let d = tmp("types");
        let c = npyz::Order::C;
        let a = read_npy(&save(
            &d,
            "f4.npy",
            &[2, 3],
            c,
            &[1f32, 2., 3., 4., 5., 6.5],
        ))
        .unwrap();
        assert_eq!(a.shape, vec![2, 3]);
        assert_eq!(a.values, vec![1., 2., 3., 4., 5., 6.5]);
        assert!(!a.integer && a.dtype == "<f4", "{a:?}");
        let h: Vec<half::f16> = [0.5f32, -2.0]
            .iter()
            .map(|x| half::f16::from_f32(*x))
            .collect();
        assert_eq!(
            read_npy(&save(&d, "f2.npy", &[2], c, &h)).unwrap().values,
            vec![0.5, -2.0]
        );
        assert_eq!(
            read_npy(&save(&d, "f8.npy", &[1], c, &[0.1f64]))
                .unwrap()
                .values,
            vec![0.1]
        );
        let i = read_npy(&save(&d, "i4.npy", &[3], c, &[-7i32, 0, 9])).unwrap();
        assert!(i.integer);
        assert_eq!(i.values, vec![-7., 0., 9.]);
        assert_eq!(
            read_npy(&save(&d, "u1.npy", &[2], c, &[255u8, 1]))
                .unwrap()
                .values,
            vec![255., 1.]
        );
        assert_eq!(
            read_npy(&save(&d, "i8.npy", &[1], c, &[-3i64]))
                .unwrap()
                .values,
            vec![-3.]
        );
        assert_eq!(
            read_npy(&save(&d, "b1.npy", &[2], c, &[true, false]))
                .unwrap()
                .values,
            vec![1., 0.]
        );
        // A transposed array saved by NumPy is column-major: read back in row-major order.
        // Column-major [2, 3] data 1..6 is the matrix [[1, 3, 5], [2, 4, 6]].
        let f = save(
            &d,
            "fortran.npy",
            &[2, 3],
            npyz::Order::Fortran,
            &[1f32, 2., 3., 4., 5., 6.],
        );
        assert_eq!(read_npy(&f).unwrap().values, vec![1., 3., 5., 2., 4., 6.]);
        let f3 = save(
            &d,
            "f3.npy",
            &[2, 2, 2],
            npyz::Order::Fortran,
            &[0f32, 1., 2., 3., 4., 5., 6., 7.],
        );
        // Element [i, j, k] sits at i + 2j + 4k.
        assert_eq!(
            read_npy(&f3).unwrap().values,
            vec![0., 4., 2., 6., 1., 5., 3., 7.]
        );
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn unreadable_and_foreign_files_are_errors_that_name_the_file() {
        let d = tmp("bad");
        let e = read_npy(&d.join("missing.npy")).unwrap_err();
        assert!(
            e.contains("cannot read") && e.contains("missing.npy"),
            "{e}"
        );
        let text = d.join("text.npy");
        std::fs::write(&text, "x,y\n1,2\n").unwrap();
        let e = read_npy(&text).unwrap_err();
        assert!(e.contains("is not a NumPy .npy file"), "{e}");
        let empty = d.join("empty.npy");
        std::fs::write(&empty, "").unwrap();
        assert!(
            read_npy(&empty)
                .unwrap_err()
                .contains("is not a NumPy .npy file")
        );
        // A complex array (`<c8`): a valid header of a type tessel does not read.
        let header = "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }";
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let pad = 64 - (10 + header.len() + 1) % 64;
        let full = format!("{header}{}\n", " ".repeat(pad));
        bytes.extend_from_slice(&(full.len() as u16).to_le_bytes());
        bytes.extend_from_slice(full.as_bytes());
        bytes.extend_from_slice(&[0u8; 8]);
        let complex = d.join("complex.npy");
        std::fs::write(&complex, &bytes).unwrap();
        let e = read_npy(&complex).unwrap_err();
        assert!(
            e.contains("<c8") && e.contains("tessel reads floats"),
            "{e}"
        );
        // A file cut short: fewer bytes than the header's shape promises.
        let short = save(&d, "short.npy", &[4], npyz::Order::C, &[1f32, 2., 3., 4.]);
        let b = std::fs::read(&short).unwrap();
        std::fs::write(&short, &b[..b.len() - 4]).unwrap();
        assert!(read_npy(&short).unwrap_err().contains("short.npy"));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn comparison_covers_every_element_and_reports_indices() {
        let tol = Tolerance {
            atol: 1e-3,
            rtol: 1e-2,
        };
        let want = [1.0, 100.0, f64::NAN, f64::INFINITY, 0.0, 5.0];
        let got = [1.0009, 100.9, f64::NAN, f64::INFINITY, f64::NAN, 5.2];
        let c = compare(&[2, 3], &got, &want, tol);
        assert_eq!((c.elements, c.mismatches, c.nan_where_number), (6, 2, 1));
        assert_eq!(c.first[0].index, vec![1, 1]);
        assert_eq!(c.first[1].index, vec![1, 2]);
        assert!((c.max_abs_error - 0.9).abs() < 1e-9, "{}", c.max_abs_error);
        let r = report("y", &c, tol, true);
        assert!(
            r.contains("2 of 6 elements differ") && r.contains("FAIL"),
            "{r}"
        );
        assert!(
            r.contains("y[1, 1] = NaN, expected 0") && r.contains("y[1, 2] = 5.2, expected 5"),
            "{r}"
        );
        assert!(r.contains("never wrote"), "{r}");
        assert!(!tol.accepts(f64::NEG_INFINITY, f64::INFINITY));
        assert!(!tol.accepts(1.0, f64::NAN));
        let many: Vec<f64> = (0..50).map(|i| i as f64).collect();
        let c = compare(&[50], &vec![-1.0; 50], &many, tol);
        assert_eq!((c.mismatches, c.first.len()), (50, SHOWN));
        assert!(report("z", &c, tol, false).contains("… and 40 more"));
        let ok = compare(&[2], &[1.0, 2.0], &[1.0, 2.0], tol);
        assert!(ok.passed() && report("w", &ok, tol, false).contains("0 of 2 elements differ"));
    }

    #[test]
    fn tolerances_default_by_type_and_integers_must_fit() {
        let t = Tolerance::for_output(DType::F16, None, Some(0.5));
        assert_eq!((t.atol, t.rtol), (1e-5, 0.5));
        assert_eq!(Tolerance::for_output(DType::S32, None, None).atol, 0.0);
        let ints = Array {
            shape: vec![3],
            values: vec![0.0, 127.0, 128.0],
            dtype: "<i4".into(),
            integer: true,
        };
        assert!(fits(&ints, DType::S32).is_ok() && fits(&ints, DType::F16).is_ok());
        let e = fits(&ints, DType::S8).unwrap_err();
        assert!(e.contains("[2] = 128") && e.contains("s8"), "{e}");
        let floats = Array {
            integer: false,
            dtype: "<f4".into(),
            ..ints
        };
        assert!(
            fits(&floats, DType::S32)
                .unwrap_err()
                .contains("save an integer array")
        );
        assert!(parse_tolerance("-1").is_err() && parse_tolerance("nan").is_err());
        assert_eq!(parse_tolerance("1e-3"), Ok(1e-3));
        assert!(parse_named_file("y").is_err() && parse_named_file("=a.npy").is_err());
        assert_eq!(
            parse_named_file("y=out/y.npy"),
            Ok(("y".into(), PathBuf::from("out/y.npy")))
        );
        assert_eq!(unravel(&[2, 3, 4], 23), vec![1, 2, 3]);
    }
}
