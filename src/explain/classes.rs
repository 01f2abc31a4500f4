//! SASS instruction classes: the handful of opcode families a reader of a GEMM kernel looks
//! for (tensor-core MMAs, scalar FMAs, each kind of memory traffic, barriers), each with a
//! one-line meaning for the page. Everything else counts as `other`.

/// (class, mnemonics in it, what it is). Order is display order.
pub const CLASSES: &[(&str, &[&str], &str)] = &[
    (
        "HGMMA",
        &["HGMMA"],
        "warpgroup MMA on tensor cores (wgmma, sm_90a): the main loop's math",
    ),
    (
        "HMMA",
        &["HMMA"],
        "warp MMA on tensor cores (mma.sync, ldmatrix-fed)",
    ),
    ("FFMA", &["FFMA"], "f32 fused multiply-add on CUDA cores"),
    (
        "HFMA2",
        &["HFMA2"],
        "f16 / f16x2 fused multiply-add on CUDA cores",
    ),
    (
        "UTMALDG",
        &["UTMALDG"],
        "TMA tile load global → shared (cp.async.bulk.tensor)",
    ),
    ("UTMASTG", &["UTMASTG"], "TMA tile store shared → global"),
    (
        "LDGSTS",
        &["LDGSTS"],
        "cp.async global → shared, bypassing registers (sm_80+)",
    ),
    ("LDG", &["LDG"], "global load into registers"),
    ("STG", &["STG"], "global store from registers"),
    (
        "LDS",
        &["LDS", "LDSM"],
        "shared-memory load (LDSM: ldmatrix)",
    ),
    (
        "STS",
        &["STS", "STSM"],
        "shared-memory store (STSM: stmatrix)",
    ),
    (
        "BAR",
        &["BAR", "BSYNC", "WARPSYNC"],
        "barrier: __syncthreads, named barriers, warp sync",
    ),
    (
        "SYNCS",
        &["SYNCS"],
        "mbarrier operations (init, arrive, expect-tx, try-wait)",
    ),
    (
        "WARPGROUP",
        &["WARPGROUP"],
        "wgmma fence / commit / wait (WARPGROUP.ARRIVE, .DEPBAR)",
    ),
    (
        "LOCAL",
        &["LDL", "STL"],
        "local memory: register spills or a stack array",
    ),
    ("BRA", &["BRA", "BRX", "JMP"], "branch"),
];

/// The class of a mnemonic (`HGMMA`), or `other`.
pub fn class_of(mnemonic: &str) -> &'static str {
    CLASSES
        .iter()
        .find(|(_, ms, _)| ms.contains(&mnemonic))
        .map(|(c, _, _)| *c)
        .unwrap_or("other")
}

/// Nonzero counts per class, in [`CLASSES`] order, `other` last.
pub fn count<'a>(mnemonics: impl Iterator<Item = &'a str>) -> Vec<(&'static str, usize)> {
    let mut n = vec![0usize; CLASSES.len() + 1];
    for m in mnemonics {
        let c = class_of(m);
        let i = CLASSES
            .iter()
            .position(|(name, _, _)| *name == c)
            .unwrap_or(CLASSES.len());
        n[i] += 1;
    }
    CLASSES
        .iter()
        .map(|(c, _, _)| *c)
        .chain(["other"])
        .zip(n)
        .filter(|(_, k)| *k > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_and_counts() {
        assert_eq!(class_of("HGMMA"), "HGMMA");
        assert_eq!(class_of("LDSM"), "LDS");
        assert_eq!(class_of("IMAD"), "other");
        let c = count(["FFMA", "IMAD", "FFMA", "UTMALDG", "LDL"].into_iter());
        assert_eq!(
            c,
            vec![("FFMA", 2), ("UTMALDG", 1), ("LOCAL", 1), ("other", 1)]
        );
        assert!(count(std::iter::empty()).is_empty());
    }
}
