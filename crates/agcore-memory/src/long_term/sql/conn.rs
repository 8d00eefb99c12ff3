//! [`SqlConn`]: the two calls the shared statements of
//! [`statements`](super::statements) need from a driver's connection —
//! run a statement, read rows — with parameters and columns in a few
//! portable types ([`SqlParam`], [`SqlType`], [`SqlValue`]) that each
//! driver maps to its own.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use crate::MemoryError;

/// A statement parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SqlParam<'a> {
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Float(f64),
    /// A flag.
    Bool(bool),
    /// Text.
    Text(&'a str),
    /// A point in time (as the driver stores times).
    Time(DateTime<Utc>),
}

/// The type a result column is read as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlType {
    /// [`SqlValue::Int`].
    Int,
    /// [`SqlValue::Float`].
    Float,
    /// [`SqlValue::Bool`].
    Bool,
    /// [`SqlValue::Text`].
    Text,
    /// [`SqlValue::Time`].
    Time,
    /// [`SqlValue::Time`], or [`SqlValue::Null`] for SQL `NULL`.
    TimeOrNull,
}

/// A result column's value, read as its [`SqlType`].
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// A 64-bit integer.
    Int(i64),
    /// A double.
    Float(f64),
    /// A flag.
    Bool(bool),
    /// Text.
    Text(String),
    /// A point in time.
    Time(DateTime<Utc>),
    /// SQL `NULL`.
    Null,
}

/// A driver's connection or transaction, for statements that are the same
/// text in every dialect but for the placeholders: written with `?`
/// (numbered by a driver that numbers them), parameters in order.
#[async_trait]
pub trait SqlConn: Send {
    /// The driver's error: a [`MemoryError`] converts into it (the flows'
    /// own errors) and it converts into one at the API boundary.
    type Error: From<MemoryError> + Into<MemoryError> + Send;

    /// Runs `sql` with `params`; returns how many rows it changed.
    ///
    /// # Errors
    /// The driver's error.
    async fn execute(&mut self, sql: &str, params: &[SqlParam<'_>]) -> Result<usize, Self::Error>;

    /// The rows `sql` selects with `params`, each column read as the type
    /// of `columns` at its position.
    ///
    /// # Errors
    /// The driver's error; a storage error for a column of another type.
    async fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam<'_>],
        columns: &[SqlType],
    ) -> Result<Vec<Vec<SqlValue>>, Self::Error>;
}

/// The values of one row, taken in column order.
pub(crate) struct Columns(std::vec::IntoIter<SqlValue>);

impl Columns {
    pub(crate) fn new(row: Vec<SqlValue>) -> Self {
        Self(row.into_iter())
    }

    fn next(&mut self) -> Result<SqlValue, MemoryError> {
        self.0
            .next()
            .ok_or_else(|| MemoryError::Storage("long-term: a result column is missing".into()))
    }

    pub(crate) fn int(&mut self) -> Result<i64, MemoryError> {
        match self.next()? {
            SqlValue::Int(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn float(&mut self) -> Result<f64, MemoryError> {
        match self.next()? {
            SqlValue::Float(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn time_or_null(&mut self) -> Result<Option<DateTime<Utc>>, MemoryError> {
        match self.next()? {
            SqlValue::Time(v) => Ok(Some(v)),
            SqlValue::Null => Ok(None),
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn flag(&mut self) -> Result<bool, MemoryError> {
        match self.next()? {
            SqlValue::Bool(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn text(&mut self) -> Result<String, MemoryError> {
        match self.next()? {
            SqlValue::Text(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }

    pub(crate) fn time(&mut self) -> Result<DateTime<Utc>, MemoryError> {
        match self.next()? {
            SqlValue::Time(v) => Ok(v),
            other => Err(unexpected(&other)),
        }
    }
}

fn unexpected(value: &SqlValue) -> MemoryError {
    MemoryError::Storage(format!(
        "long-term: a result column has another type: {value:?}"
    ))
}
