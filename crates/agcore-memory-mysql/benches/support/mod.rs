//! Parts of the MySQL bench kept out of its main file.

pub mod database;
pub mod long_term;
