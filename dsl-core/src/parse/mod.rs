//! Parser.
