//! tessel facade
