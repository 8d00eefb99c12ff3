//! Parts of the MySQL bench kept out of its main file.

pub mod long_term;
