//! [`HarnessError`]: what stops a campaign.

use agcore::memory::MemoryError;
use thiserror::Error;

/// Why a campaign could not run, or what invariant it found broken.
#[derive(Debug, Error)]
pub enum HarnessError {
    /// The storage under test failed where the campaign does not expect it.
    #[error("storage: {0}")]
    Memory(#[from] MemoryError),
    /// A child process could not be started or waited for.
    #[error("process: {0}")]
    Process(#[from] std::io::Error),
    /// A child process exited with a failure.
    #[error("child process failed: {0}")]
    Child(String),
    /// An invariant of the campaign does not hold: data lost, doubled,
    /// torn, or a database that fails its integrity check.
    #[error("invariant broken: {0}")]
    Invariant(String),
    /// The arguments do not make a campaign.
    #[error("bad arguments: {0}")]
    Usage(String),
}

impl HarnessError {
    /// Whether running the campaign again may pass: a storage or process
    /// failure may be transient; a broken invariant or bad arguments are not.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Memory(err) => err.is_recoverable(),
            Self::Process(_) | Self::Child(_) => true,
            Self::Invariant(_) | Self::Usage(_) => false,
        }
    }
}

/// Fails with [`HarnessError::Invariant`] carrying `message` unless `holds`.
pub fn ensure(holds: bool, message: impl FnOnce() -> String) -> Result<(), HarnessError> {
    if holds {
        Ok(())
    } else {
        Err(HarnessError::Invariant(message()))
    }
}
