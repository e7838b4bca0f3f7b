//! The small example of Moh et al. Fig. 2 (§3.1), built in as
//! `fabric:moh-fig2`: nine 8-port switches S0…S8, 26 processors, 12
//! inter-switch links, 16 member processors (the job: m0…m15; the ten others
//! are x0…x9).
//!
//! The figure is a drawing that the paper's text does not spell out, so the
//! wiring here is a reconstruction that keeps every fact the text states:
//! nine 8-port switches, 26 processors, 12 links, 16 members; switch size
//! |S0| = 4, S7 the second largest switch (3 members), S5 without members
//! (the BM partition of Fig. 5 lists every other switch). The text's other
//! example — "switches 4 and 7 are immediate neighbors in G_p, but they are
//! three links away in G'_p" — cannot hold under the rule it states (a
//! single link is always a legal route); here S4 and S7 are two links apart
//! through S8 (a valley: S4→S8 goes down, S8→S7 up) and three apart under
//! up*/down* (S4→S1→S3→S7).
//!
//! Links: S0–S1, S0–S2, S0–S3, S1–S4, S2–S5, S2–S6, S3–S7, S4–S8, S7–S8,
//! S1–S3, S5–S6, S6–S8. The minimum-height BFS tree is rooted at S0
//! (eccentricity 3, first in order); levels S0: 0; S1–S3: 1; S4–S7: 2; S8: 3.

use super::fabric::{FabricKind, Host, Switch};
use super::fabric_spec::RawFabric;

/// Inter-switch links of the reconstruction.
pub const LINKS: [(u32, u32); 12] = [
    (0, 1),
    (0, 2),
    (0, 3),
    (1, 4),
    (2, 5),
    (2, 6),
    (3, 7),
    (4, 8),
    (7, 8),
    (1, 3),
    (5, 6),
    (6, 8),
];
/// (member, other) processors per switch.
pub const PROCESSORS: [(u32, u32); 9] = [
    (4, 1),
    (2, 1),
    (2, 1),
    (1, 2),
    (2, 1),
    (0, 2),
    (1, 1),
    (3, 1),
    (1, 0),
];

/// The fabric, with the 16 members as the default job.
pub fn generate() -> RawFabric {
    let switches = (0..9)
        .map(|i| Switch {
            name: format!("S{i}"),
            guid: None,
            desc: None,
            ports: 8,
        })
        .collect();
    let mut hosts = Vec::new();
    let mut job = Vec::new();
    let (mut m, mut x) = (0, 0);
    for (s, &(mem, other)) in PROCESSORS.iter().enumerate() {
        for _ in 0..mem {
            job.push(hosts.len());
            hosts.push(Host {
                name: format!("m{m}"),
                switch: s as u32,
            });
            m += 1;
        }
        for _ in 0..other {
            hosts.push(Host {
                name: format!("x{x}"),
                switch: s as u32,
            });
            x += 1;
        }
    }
    RawFabric {
        switches,
        links: LINKS.to_vec(),
        hosts,
        kind: FabricKind::Irregular,
        default_job: Some(job),
        ca_ports: Vec::new(),
    }
}
