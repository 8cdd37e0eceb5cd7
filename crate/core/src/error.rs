//! One error type for the whole engine. Messages follow PyTorch's wording
//! wherever PyTorch has one, because learners paste them into search engines.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Maps to PyTorch's `RuntimeError`.
    Runtime(String),
    /// Maps to PyTorch's `TypeError` / `ValueError`: bad arguments.
    Type(String),
    /// Maps to PyTorch's `IndexError` (dimension out of range).
    Index(String),
}

impl Error {
    pub fn runtime(msg: impl Into<String>) -> Self {
        Error::Runtime(msg.into())
    }
    pub fn type_error(msg: impl Into<String>) -> Self {
        Error::Type(msg.into())
    }
    pub fn message(&self) -> &str {
        match self {
            Error::Runtime(m) | Error::Type(m) | Error::Index(m) => m,
        }
    }
    /// Python exception class name, so the JS side can set `error.name`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Runtime(_) => "RuntimeError",
            Error::Type(_) => "TypeError",
            Error::Index(_) => "IndexError",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
