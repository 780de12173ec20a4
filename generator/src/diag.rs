//! Errors with a source location. The generator never panics on bad input: it returns these.

use crate::ir::Location;
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub location: Option<Location>,
    pub message: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Error { location: None, message: message.into() }
    }
    pub fn at(location: Location, message: impl Into<String>) -> Self {
        Error { location: Some(location), message: message.into() }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(f, "{loc}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {}

/// Collects several errors so one run reports all of them.
#[derive(Debug, Default)]
pub struct Errors(pub Vec<Error>);

impl Errors {
    pub fn push(&mut self, e: Error) {
        self.0.push(e);
    }
    /// `Ok(())` when empty, else one error listing every message.
    pub fn finish(self) -> Result<()> {
        match self.0.len() {
            0 => Ok(()),
            1 => Err(self.0.into_iter().next().unwrap()),
            n => Err(Error {
                location: self.0[0].location.clone(),
                message: format!(
                    "{} (and {} more):\n{}",
                    self.0[0].message,
                    n - 1,
                    self.0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n")
                ),
            }),
        }
    }
}
