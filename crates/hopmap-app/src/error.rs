//! Errors of the app, typed so that callers match on them rather than on
//! their text: a cancelled job is [`AppError::Cancelled`], a window that
//! cannot open (no display) [`AppError::NoWindow`]; everything else carries
//! its readable message.

/// An error of the app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    /// The user cancelled a background job.
    #[error("cancelled")]
    Cancelled,
    /// No window could be opened (no display, or the graphics backend failed).
    #[error("cannot open a window: {0}")]
    NoWindow(String),
    /// Anything else: a bad file, a mapper that failed, a PNG not written.
    #[error("{0}")]
    Failed(String),
}

impl From<hopmap_core::Error> for AppError {
    fn from(e: hopmap_core::Error) -> Self {
        match e {
            hopmap_core::Error::Cancelled => AppError::Cancelled,
            e => AppError::Failed(e.to_string()),
        }
    }
}

impl From<String> for AppError {
    fn from(s: String) -> Self {
        AppError::Failed(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_library_run_is_a_cancel_and_text_is_kept() {
        assert_eq!(
            AppError::from(hopmap_core::Error::Cancelled),
            AppError::Cancelled
        );
        let e = AppError::from(hopmap_core::Error::Unsupported("no coordinates".into()));
        assert_eq!(e, AppError::Failed("no coordinates".into()));
        assert_eq!(e.to_string(), "no coordinates");
        assert_eq!(
            AppError::NoWindow("no display".into()).to_string(),
            "cannot open a window: no display"
        );
    }
}
