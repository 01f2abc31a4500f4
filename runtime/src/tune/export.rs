//! A sweep's exports: its trials as CSV and JSON, and the SVG chart, in one folder.

use std::path::{Path, PathBuf};

use super::outcome::TuneOutcome;

impl TuneOutcome {
    /// Writes `<stem>.csv`, `<stem>.json` and `<stem>.svg` (coloured by `color_by`) to `dir`.
    pub fn write_exports(
        &self,
        dir: &Path,
        stem: &str,
        color_by: &str,
    ) -> std::io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut out = Vec::new();
        for (ext, text) in [
            ("csv", self.to_csv()),
            ("json", self.to_json()),
            ("svg", super::svg::chart(self, color_by)),
        ] {
            let p = dir.join(format!("{stem}.{ext}"));
            crate::cache::write_atomic(&p, text.as_bytes())?;
            out.push(p);
        }
        Ok(out)
    }
}
