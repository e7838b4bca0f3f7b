//! Reproductions of the seeds' experiments (`hopmap reproduce`): one module
//! per paper, each printing its tables beside the paper's figures.

pub mod balaji;
pub mod bhatele;
pub mod bobrik;
pub mod moh;
pub mod wu;
