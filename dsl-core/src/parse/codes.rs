//! The parser's diagnostic codes (`E00xx`). Codes are stable: tests and the README refer to
//! them; add new ones at the end.
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0001 | the text cannot be lexed (stray character, unterminated literal or comment) |
//! | E0002 | unbalanced or mismatched delimiter |
//! | E0003 | unexpected token: something else was expected here |
//! | E0004 | missing `;` |
//! | E0005 | unknown statement keyword |
//! | E0006 | unknown `parallel` level (`group-3`, `warp`, …) |
//! | E0007 | unknown view method (`.chunk_at(…)`) |
//! | E0008 | unknown field (`.foo` without parentheses) |
//! | E0009 | unknown built-in function or wrong argument count |
//! | E0010 | malformed tunable domain |
//! | E0011 | tunable default is not an integer literal |
//! | E0012 | malformed literal (overflow, unsupported suffix, string) |
//! | E0013 | unknown element type |
//! | E0014 | missing or misplaced memory space |
//! | E0015 | malformed copy (`dma.copy`/`tma.copy` without `=>`, bad destination, async rules) |
//! | E0016 | malformed `mma` statement |
//! | E0017 | invalid assignment target |
//! | E0018 | malformed or missing `__co__` kernel, or tokens after it |
//! | E0019 | malformed header item |
//! | E0020 | count mismatch (variables vs extents, indices) |
//! | E0021 | nesting too deep |
//! | E0022 | unknown or repeated modifier (`.swiz`, `.async`) |
//! | E0090 | input too large (bytes of a `.co` file, tokens) |
//! | E0030 | note: file mode skipped host C++ and preprocessor lines |
//! | E0032 | malformed `assert`, or a built-in called as a statement with the wrong arguments |
//! | E0033 | malformed loop (`while`, `with … in`, ranged `foreach`) |
//! | E0040 | `#x` of a name that is not a parallel or loop variable in scope |
//! | E0045 | a named shape (`sp : [7, 8];`) of an unsupported form or the wrong rank |
//! | E0047 | a malformed loop range `foreach k(lo:hi)` or bounded value `k(n)` (an integer literal) |
//! | E0048 | `++`/`--` inside an expression where its order is not defined: of something other than a name, in the head of a statement with a body, or of a name the statement also reads |
//! | E1680 | a parallel variable given several bounds (`parallel p by [A, B]`; name them: `p = {x, y}`) |
//! | E1681 | an i-tuple name used as one value, or `t(d)` past its elements |
//! | E1688 | not supported yet: a `: device(…)` level |
//! | E1687 | not supported yet: an index of fewer dimensions than its array (`s[1]` of `s[4][2]`) |
//! | E1684 | not supported yet: the element count `|x|` of a shape the parser does not know |

pub const LEX: &str = "E0001";
pub const DELIM: &str = "E0002";
pub const EXPECTED: &str = "E0003";
pub const MISSING_SEMI: &str = "E0004";
pub const UNKNOWN_STMT: &str = "E0005";
pub const BAD_LEVEL: &str = "E0006";
pub const UNKNOWN_METHOD: &str = "E0007";
pub const UNKNOWN_FIELD: &str = "E0008";
pub const UNKNOWN_FUNC: &str = "E0009";
pub const BAD_DOMAIN: &str = "E0010";
pub const BAD_DEFAULT: &str = "E0011";
pub const BAD_LITERAL: &str = "E0012";
pub const UNKNOWN_DTYPE: &str = "E0013";
pub const BAD_SPACE: &str = "E0014";
pub const BAD_COPY: &str = "E0015";
pub const BAD_MMA: &str = "E0016";
pub const BAD_TARGET: &str = "E0017";
pub const BAD_KERNEL: &str = "E0018";
pub const BAD_HEADER: &str = "E0019";
pub const COUNT: &str = "E0020";
pub const TOO_DEEP: &str = "E0021";
pub const BAD_MODIFIER: &str = "E0022";
/// Input limits (numbered apart from the syntax codes above).
pub const TOO_LARGE: &str = "E0090";
pub const HOST_SKIPPED: &str = "E0030";
pub const BAD_CALL: &str = "E0032";
pub const BAD_LOOP: &str = "E0033";
pub const BOUND_OF: &str = "E0040";
pub const SHAPE_VALUE: &str = "E0045";
pub const LOOP_RANGE: &str = "E0047";
pub const STEP_IN_EXPR: &str = "E0048";
pub const PARALLEL_TUPLE: &str = "E1680";
pub const ITUPLE_VALUE: &str = "E1681";
pub const ELEMENT_COUNT: &str = "E1684";
pub const PARTIAL_ARRAY_INDEX: &str = "E1687";
pub const DEVICE_LEVEL: &str = "E1688";
