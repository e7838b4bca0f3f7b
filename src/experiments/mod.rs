//! Reproductions of the seeds' experiments (`hopmap reproduce`): under construction.

pub mod balaji;
pub mod bhatele;
pub mod bobrik;
pub mod moh;
