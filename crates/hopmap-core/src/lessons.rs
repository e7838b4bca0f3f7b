//! Built-in lessons: short guided scenarios for teaching, as data. Each
//! lesson is a sequence of steps; a step may change the communication graph,
//! the network, the routing and the view, and then run a mapper (to its end,
//! or a few guided steps), with a paragraph that says what to look at. The
//! GUI's lesson panel applies a step through the app's normal model paths;
//! nothing here renders.
//!
//! The scenarios follow the seed papers:
//! * `default-vs-mesh`: why the default (linear) mapping is perfect for a
//!   stencil on a torus of the same shape, and bad for an unstructured mesh
//!   (Bhatele & Kale §VII-B, Fig. 3);
//! * `balaji-tzxy`: why TZXY beats TXYZ on Blue Gene/P for a 2D stencil
//!   (Balaji et al. §3.2, quarter size: [`crate::experiments::balaji`]);
//! * `bobrik-gravity`: how the gravitational layout separates two clusters
//!   whatever their numbering (Bobrik & Popova §4–7).
//!
//! [`Lesson::state_at`] folds the steps up to one into the full state to
//! show (graph, network, routing, view, mapper), so Back and Next give the
//! same picture whichever way a step is reached. Cost: O(steps).

use crate::error::{Error, Result};
use crate::generate::{GenOptions, Neighbors, generate};
use crate::graph::CommGraph;
use std::path::Path;

/// Where a lesson's graph comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonGraph {
    /// A generator spec with its options (see [`crate::generate::GENERATORS`]).
    Generate {
        spec: &'static str,
        neighbors: Neighbors,
        shuffle: bool,
        seed: u64,
    },
    /// A file of `sample-graphs/`, embedded in the binary.
    Sample(&'static str),
}

/// The sample files lessons use, embedded: (file name, bytes).
const SAMPLES: &[(&str, &[u8])] = &[(
    "bobrik-two-clusters.txt",
    include_bytes!("../../../sample-graphs/bobrik-two-clusters.txt"),
)];

impl LessonGraph {
    /// A short name for the title bar (`stencil:8x8x8`, `bobrik-two-clusters.txt`).
    pub fn name(&self) -> String {
        match self {
            LessonGraph::Generate {
                spec,
                neighbors,
                shuffle,
                ..
            } => {
                let mut s = spec.to_string();
                if *neighbors == Neighbors::Full {
                    s.push_str(" (full)");
                }
                if *shuffle {
                    s.push_str(" (shuffled)");
                }
                s
            }
            LessonGraph::Sample(f) => f.to_string(),
        }
    }

    /// Build or parse the graph.
    pub fn load(&self) -> Result<CommGraph> {
        match *self {
            LessonGraph::Generate {
                spec,
                neighbors,
                shuffle,
                seed,
            } => generate(
                spec,
                &GenOptions {
                    neighbors,
                    shuffle,
                    seed,
                    ..GenOptions::default()
                },
            ),
            LessonGraph::Sample(file) => {
                let bytes = SAMPLES
                    .iter()
                    .find(|(f, _)| *f == file)
                    .map(|(_, b)| *b)
                    .ok_or_else(|| Error::Unsupported(format!("no embedded sample {file}")))?;
                let path = Path::new("sample-graphs").join(file);
                crate::io::parse_graph(bytes, &path, &crate::io::ReadOptions::default())
            }
        }
    }
}

/// How a step runs its mapper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunHow {
    /// Map to the end.
    ToEnd,
    /// Take this many steps with guided mode on (the log fills), then pause.
    Guided(usize),
}

/// One step of a lesson. `None` fields keep what the previous steps set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LessonStep {
    pub title: &'static str,
    /// A short paragraph: what this step shows and what to look at.
    pub text: &'static str,
    pub graph: Option<LessonGraph>,
    pub topology: Option<&'static str>,
    /// `dor` or `adaptive`.
    pub routing: Option<&'static str>,
    /// The central view's key (`split`, `graph`, `network`, …).
    pub view: Option<&'static str>,
    /// Colour processes by: `node`, `cluster` or `degree`.
    pub color: Option<&'static str>,
    /// Network links coloured by flow count (true) or by bytes (false).
    pub heat_by_flows: Option<bool>,
    /// The mapper id and its parameters (`KEY=VALUE,…`); None: no run, the
    /// `default` baseline the model shows for a new graph or network.
    pub mapper: Option<(&'static str, &'static str)>,
    pub run: RunHow,
}

impl LessonStep {
    const fn new(title: &'static str, text: &'static str) -> Self {
        LessonStep {
            title,
            text,
            graph: None,
            topology: None,
            routing: None,
            view: None,
            color: None,
            heat_by_flows: None,
            mapper: None,
            run: RunHow::ToEnd,
        }
    }
}

/// A lesson: a title, an introduction and its steps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// The seed paper and section the lesson follows.
    pub seed: &'static str,
    pub steps: &'static [LessonStep],
}

/// The full state a lesson step shows: every field resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonState {
    pub graph: LessonGraph,
    pub topology: &'static str,
    pub routing: &'static str,
    pub view: &'static str,
    pub color: &'static str,
    pub heat_by_flows: bool,
    /// This step's own mapper run (not inherited: a step without a mapper
    /// shows the `default` baseline).
    pub mapper: Option<(&'static str, &'static str)>,
    pub run: RunHow,
}

impl Lesson {
    /// The state of step `i` (clamped to the last step): the graph, network,
    /// routing and view set by the latest step up to `i`, and step `i`'s run.
    pub fn state_at(&self, i: usize) -> LessonState {
        let i = i.min(self.steps.len().saturating_sub(1));
        let mut st = LessonState {
            graph: LessonGraph::Sample("bobrik-two-clusters.txt"),
            topology: "torus:8x8x8",
            routing: "dor",
            view: "split",
            color: "node",
            heat_by_flows: false,
            mapper: None,
            run: RunHow::ToEnd,
        };
        for s in &self.steps[..=i] {
            if let Some(g) = s.graph {
                st.graph = g;
            }
            if let Some(t) = s.topology {
                st.topology = t;
            }
            if let Some(r) = s.routing {
                st.routing = r;
            }
            if let Some(v) = s.view {
                st.view = v;
            }
            if let Some(c) = s.color {
                st.color = c;
            }
            if let Some(f) = s.heat_by_flows {
                st.heat_by_flows = f;
            }
        }
        st.mapper = self.steps[i].mapper;
        st.run = self.steps[i].run;
        st
    }
}

/// Orders the Balaji lesson's CDL step scores in guided mode (of 24).
pub const CDL_GUIDED_STEPS: usize = 12;

const STENCIL_8: LessonGraph = LessonGraph::Generate {
    spec: "stencil:8x8x8",
    neighbors: Neighbors::Faces,
    shuffle: false,
    seed: 0,
};

const UNSTRUCTURED: LessonGraph = LessonGraph::Generate {
    spec: "unstructured:512:3d",
    neighbors: Neighbors::Faces,
    shuffle: false,
    seed: 1,
};

const BALAJI: LessonGraph = LessonGraph::Generate {
    spec: "stencil:32x32",
    neighbors: Neighbors::Full,
    shuffle: false,
    seed: 0,
};

/// Every built-in lesson; the first is the one the app opens on.
pub const LESSONS: &[Lesson] = &[
    Lesson {
        id: "default-vs-mesh",
        title: "When is the default mapping good enough?",
        seed: "Bhatele & Kale §VII-B, Fig. 3",
        steps: &[
            LessonStep {
                graph: Some(STENCIL_8),
                topology: Some("torus:8x8x8"),
                routing: Some("dor"),
                view: Some("split"),
                color: Some("node"),
                heat_by_flows: Some(false),
                mapper: Some(("default", "")),
                ..LessonStep::new(
                    "A stencil on a torus of its own shape",
                    "An 8×8×8 stencil: each of 512 processes talks to its 6 face neighbours. \
                     The network is an 8×8×8 torus. The default mapping puts rank i on node i, \
                     X fastest — exactly how the stencil numbers its processes. So every \
                     partner is a network neighbour: each byte travels one hop, and hop-bytes \
                     equal the lower bound (Metrics: \"× bound\" is 1.00). Nothing can beat it.",
                )
            },
            LessonStep {
                graph: Some(UNSTRUCTURED),
                mapper: Some(("default", "")),
                ..LessonStep::new(
                    "An unstructured mesh on the same torus",
                    "Now an unstructured mesh cut into 512 parts (Bhatele & Kale's Fig. 3 kind of \
                     application). Part ids follow no geometry the torus knows: rank i on node \
                     i scatters partners across the machine. Hop-bytes are several times the \
                     bound, and the network view shows long, hot links.",
                )
            },
            LessonStep {
                mapper: Some(("mht", "")),
                ..LessonStep::new(
                    "Max Heap Traversal",
                    "MHT (§IV, Heuristic 2) places next the process with the most placed \
                     partners, near the centroid of their nodes; findNearest takes the closest \
                     free node. Compare hop-bytes with default's in the Metrics panel.",
                )
            },
            LessonStep {
                mapper: Some(("pairs", "")),
                ..LessonStep::new(
                    "Pairwise exchange",
                    "PAIRS (§VII-B) starts from MHT and swaps pairs of processes while hop-bytes \
                     fall. The curve in the Metrics panel shows each batch of swaps; the gap \
                     to the bound that remains is the price of the mesh's irregularity.",
                )
            },
        ],
    },
    Lesson {
        id: "balaji-tzxy",
        title: "Why TZXY beats TXYZ on Blue Gene/P",
        seed: "Balaji et al. §2.2, §3.2",
        steps: &[
            LessonStep {
                graph: Some(BALAJI),
                topology: Some("torus:4x8x8:cores=4"),
                routing: Some("adaptive"),
                view: Some("network"),
                color: Some("node"),
                heat_by_flows: Some(true),
                mapper: Some(("TXYZ", "")),
                ..LessonStep::new(
                    "TXYZ: the system default",
                    "A 32×32 process grid where each process talks to its 8 surrounding \
                     neighbours, on a 4×8×8 torus with 4 cores per node (Balaji's example at a \
                     quarter size). TXYZ fills a node's 4 cores, then walks X, Y, Z: a row of \
                     32 processes fills 8 nodes, two X lines of 4, and the row above starts 8 \
                     nodes further on, two Y steps away. Every vertical and diagonal message \
                     crosses Y links, and the Y links carry the messages of many rows at once. \
                     Links are coloured by flows (messages per channel, adaptive routing): see \
                     the hot Y lines and Metrics' max flows.",
                )
            },
            LessonStep {
                mapper: Some(("TZXY", "")),
                ..LessonStep::new(
                    "TZXY: cores, then Z",
                    "TZXY fills a node's cores, then walks Z first: a row of 32 processes \
                     fills exactly one Z line of 8 nodes, and the row above the neighbouring Z \
                     line (X + 1). Vertical partners are now one hop apart and the traffic \
                     spreads over X and Z links: fewer flows share the busiest channel (§3.2 \
                     counts 6 for TZXY against 24 for TXYZ). Compare max flows and max link \
                     load with the previous step.",
                )
            },
            LessonStep {
                mapper: Some(("cdl", "")),
                run: RunHow::Guided(CDL_GUIDED_STEPS),
                ..LessonStep::new(
                    "CDL: try every order",
                    "Balaji's CDL scores every permutation order by contention and keeps the \
                     least contended. Each Step scores one order; the guided log says how it \
                     compares with the best so far. This step scores the first 12 of the 24 \
                     orders: press Step or Map in the Mapper panel to score the rest.",
                )
            },
        ],
    },
    Lesson {
        id: "bobrik-gravity",
        title: "The gravitational method separates clusters",
        seed: "Bobrik & Popova §4–7",
        steps: &[
            LessonStep {
                graph: Some(LessonGraph::Sample("bobrik-two-clusters.txt")),
                topology: Some("mesh:5x4"),
                routing: Some("dor"),
                view: Some("split"),
                color: Some("cluster"),
                heat_by_flows: Some(false),
                mapper: Some(("default", "")),
                ..LessonStep::new(
                    "Two clusters, numbered in order",
                    "Bobrik & Popova's example: two groups of 10 processes, each talking only \
                     within its group. Numbered 0–9 and 10–19, the default mapping happens to \
                     keep each group together on the 5×4 mesh (processes coloured by cluster).",
                )
            },
            LessonStep {
                graph: Some(LessonGraph::Generate {
                    spec: "clusters:2x10",
                    neighbors: Neighbors::Faces,
                    shuffle: true,
                    seed: 3,
                }),
                mapper: Some(("default", "")),
                ..LessonStep::new(
                    "The same clusters, renumbered",
                    "The same two cliques with the process ids shuffled. The default mapping \
                     follows the ids, so the two colours now mix on the mesh and most messages \
                     cross it: hop-bytes grow.",
                )
            },
            LessonStep {
                mapper: Some(("gravity-greedy", "")),
                run: RunHow::Guided(12),
                ..LessonStep::new(
                    "Let the processes find their geometry",
                    "The gravitational layout (§4–5): communicating processes attract, all \
                     repel. Each step is one iteration; the log gives the total force Σ|F|. It \
                     does not fall at every iteration (the step length adapts, §5, and the \
                     layout overshoots before it settles), but in the graph view the two \
                     cliques pull apart: after these 12 iterations every process is nearer \
                     the centre of its own clique than the other's. Step on, or press Map: the \
                     greedy placement (§7) then maps processes close in the layout to close \
                     nodes.",
                )
            },
            LessonStep {
                mapper: Some(("gravity-greedy", "")),
                ..LessonStep::new(
                    "The result",
                    "Mapped to the end: the processes of a clique sit closer together than \
                     under the shuffled default — compare hop-bytes with the previous step's \
                     in the Metrics panel (lower, whatever the numbering) — though the two \
                     colours need not fill two clean halves of the mesh: the greedy placement \
                     fills nodes in layout order, and the last processes of a clique take the \
                     free nodes that remain.",
                )
            },
        ],
    },
];

/// A lesson by id.
pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::Topology;

    #[test]
    fn every_step_resolves_to_a_graph_that_fits_its_network() {
        for l in LESSONS {
            assert!(l.seed.contains('§'), "{}", l.id);
            for i in 0..l.steps.len() {
                let st = l.state_at(i);
                let g = st.graph.load().unwrap();
                let t = Topology::parse(st.topology).unwrap();
                assert!(g.n() <= t.num_slots(), "{} step {i}", l.id);
                crate::routing::Routing::parse(st.routing).unwrap();
                if let Some((m, _)) = st.mapper {
                    crate::mappers::resolve(m).unwrap();
                }
            }
        }
    }

    #[test]
    fn later_steps_inherit_the_graph_and_network_but_not_the_run() {
        let l = find("default-vs-mesh").unwrap();
        let s2 = l.state_at(2);
        assert_eq!(s2.graph, UNSTRUCTURED);
        assert_eq!(s2.topology, "torus:8x8x8");
        assert_eq!(s2.mapper, Some(("mht", "")));
        assert_eq!(l.state_at(0).graph, STENCIL_8);
        assert_eq!(l.state_at(99), l.state_at(l.steps.len() - 1));
        let b = find("balaji-tzxy").unwrap();
        assert_eq!(b.state_at(1).routing, "adaptive");
        assert!(b.state_at(1).heat_by_flows);
    }

    #[test]
    fn the_first_lessons_claims_hold() {
        // Default on the matching torus: every byte one hop.
        let g = STENCIL_8.load().unwrap();
        let t = Topology::parse("torus:8x8x8").unwrap();
        let m = crate::mappers::run(
            &crate::mappers::find("default").unwrap(),
            &crate::mappers::MapperInput::new(
                std::sync::Arc::new(g.clone()),
                std::sync::Arc::new(t.clone()),
                0,
            ),
        )
        .unwrap();
        let hb = crate::metrics::hop_bytes(&g, &t, &m);
        assert_eq!(hb, g.total_bytes());
        // TZXY has fewer flows on its busiest channel than TXYZ (Balaji).
        let g = BALAJI.load().unwrap();
        let t = Topology::parse("torus:4x8x8:cores=4").unwrap();
        let flows = |order: &str| {
            let sel = crate::mappers::resolve(order).unwrap();
            let mut input = crate::mappers::MapperInput::new(
                std::sync::Arc::new(g.clone()),
                std::sync::Arc::new(t.clone()),
                0,
            );
            input.params = sel.with_params(&[]).unwrap();
            let m = crate::mappers::run(&sel.info, &input).unwrap();
            crate::metrics::evaluate(
                &g,
                &t,
                &m,
                &crate::routing::Routing::parse("adaptive").unwrap(),
            )
            .metrics
            .max_link_flows
        };
        assert!(flows("TZXY") < flows("TXYZ"));
        // Shuffled clusters: the gravity mapper beats default (Bobrik).
        let l = find("bobrik-gravity").unwrap();
        let g = std::sync::Arc::new(l.state_at(1).graph.load().unwrap());
        let t = std::sync::Arc::new(Topology::parse(l.state_at(1).topology).unwrap());
        let hb = |id: &str| {
            let input = crate::mappers::MapperInput::new(g.clone(), t.clone(), 0);
            let m = crate::mappers::run(&crate::mappers::find(id).unwrap(), &input).unwrap();
            crate::metrics::hop_bytes(&g, &t, &m)
        };
        assert!(hb("gravity-greedy") < hb("default"));
    }

    /// The Balaji CDL step: after its guided steps, orders remain (so
    /// "press Step or Map to score the rest" is true), of 24 in all.
    #[test]
    fn the_cdl_step_leaves_orders_to_score() {
        let l = find("balaji-tzxy").unwrap();
        let st = l.state_at(2);
        assert_eq!(st.run, RunHow::Guided(CDL_GUIDED_STEPS));
        let g = std::sync::Arc::new(st.graph.load().unwrap());
        let t = std::sync::Arc::new(Topology::parse(st.topology).unwrap());
        let input = crate::mappers::MapperInput::new(g, t, 0);
        let info = crate::mappers::find("cdl").unwrap();
        let mut run = crate::mappers::prepare(&info, &input).unwrap();
        for _ in 0..CDL_GUIDED_STEPS {
            assert!(run.step().is_running());
        }
        assert_eq!(run.progress().done, CDL_GUIDED_STEPS);
        assert_eq!(run.progress().total, Some(24));
        assert!(run.state().is_running());
    }

    /// The gravitational lesson, step 3: after the 12 guided iterations
    /// every process is nearer its own clique's centre than the other's.
    #[test]
    fn the_gravity_step_separates_the_cliques() {
        let l = find("bobrik-gravity").unwrap();
        let st = l.state_at(2);
        let RunHow::Guided(k) = st.run else {
            panic!("step 3 is guided")
        };
        let g = std::sync::Arc::new(st.graph.load().unwrap());
        let t = std::sync::Arc::new(Topology::parse(st.topology).unwrap());
        let input = crate::mappers::MapperInput::new(g.clone(), t, 0);
        let info = crate::mappers::find(st.mapper.unwrap().0).unwrap();
        let mut run = crate::mappers::prepare(&info, &input).unwrap();
        for _ in 0..k {
            run.step();
        }
        let pos = run
            .inspect()
            .layout()
            .expect("still laying out")
            .positions()
            .into_owned();
        let (comp, two) = g.components();
        assert_eq!(two, 2);
        let centre = |c: u32| {
            let v: Vec<&[f32; 3]> = (0..g.n())
                .filter(|&p| comp[p] == c)
                .map(|p| &pos[p])
                .collect();
            let n = v.len() as f32;
            [0, 1, 2].map(|d| v.iter().map(|q| q[d]).sum::<f32>() / n)
        };
        let cs = [centre(0), centre(1)];
        let d = |a: &[f32; 3], b: &[f32; 3]| (0..3).map(|i| (a[i] - b[i]).powi(2)).sum::<f32>();
        for p in 0..g.n() {
            let own = comp[p] as usize;
            assert!(
                d(&pos[p], &cs[own]) < d(&pos[p], &cs[1 - own]),
                "process {p}"
            );
        }
    }

    /// The gravitational lesson, step 4: mapped to the end, hop-bytes are
    /// below the shuffled default's (step 2).
    #[test]
    fn the_gravity_result_beats_the_shuffled_default() {
        let l = find("bobrik-gravity").unwrap();
        let st = l.state_at(3);
        let g = std::sync::Arc::new(st.graph.load().unwrap());
        let t = std::sync::Arc::new(Topology::parse(st.topology).unwrap());
        let hb = |id: &str| {
            let input = crate::mappers::MapperInput::new(g.clone(), t.clone(), 0);
            let m = crate::mappers::run(&crate::mappers::find(id).unwrap(), &input).unwrap();
            crate::metrics::hop_bytes(&g, &t, &m)
        };
        assert!(hb(st.mapper.unwrap().0) < hb("default"));
    }
}
