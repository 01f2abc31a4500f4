//! "Did you mean …?" for declared names: the crate's bounded search ([`crate::suggest`]).

pub(crate) use crate::suggest::nearest;
