//! Parts of the PostgreSQL bench kept out of its main file.

pub mod long_term;
