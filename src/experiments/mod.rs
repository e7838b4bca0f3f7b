//! Reproductions of the seeds' experiments (`hopmap reproduce`): under construction.
