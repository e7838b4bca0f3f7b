//! Guided mode for the greedy placements of Bhatele & Kale (§II's
//! select-an-object loop; BFT, MHT, AFFN, COCE, COCE+MHT) and the
//! gravitational placements of Bobrik & Popova §7: why the policy chose the
//! process ([`Choice`], its paper's terms) and where findNearest put it.
//! O(D) per sentence.

use hopmap_core::mappers::StepEvent;
use hopmap_core::mappers::greedy::{Choice, GreedyView};
use hopmap_core::topology::Grid;

/// The sentence on the last placement (None before the first step).
pub fn explain(r: GreedyView<'_>) -> Option<String> {
    let Some(StepEvent::Placed {
        process,
        desired,
        slot,
    }) = r.last_event()
    else {
        return None;
    };
    let tail = explain_placement(r.placer().grid(), desired, *slot);
    let first = r.placer().num_placed() == 1;
    Some(match r.choice().and_then(|c| head(&c, *process, first)) {
        Some((head, cite)) => format!("{head}; {tail} ({cite})"),
        None => format!(
            "The greedy placement took process {process}: {tail} (Bhatele & Kale §II: select \
         an object, find a desirable processor, else the nearest free one)"
        ),
    })
}

/// The first half of the sentence on the placement of `p` (why the policy
/// chose it) and its citation; `first` when `p` is the first placed.
fn head(c: &Choice, p: usize, first: bool) -> Option<(String, &'static str)> {
    Some(match c {
        Choice::Bft { parent } => {
            let head = match parent {
                Some(u) => format!(
                    "BFT placed process {p}, an unmapped partner of process {u} (the front of the \
                     queue), near {u}'s node"
                ),
                None if first => format!("BFT starts the traversal with process {p} on node 0"),
                None => format!(
                    "BFT's queue ran dry: process {p}, the smallest unmapped id, starts a new \
                     traversal near the last node used"
                ),
            };
            (head, "Bhatele & Kale §IV, Heuristic 1")
        }
        Choice::Mht {
            from_heap,
            placed,
            partners,
        } => {
            let head = if *from_heap {
                format!(
                    "MHT took process {p} from the top of the heap: {placed} of its {partners} \
                     partners are placed, and it goes near the centroid of their nodes"
                )
            } else {
                format!(
                    "MHT started with process {p}, the unplaced process with the most partners \
                     ({partners}), at the centre of the machine"
                )
            };
            (head, "Bhatele & Kale §IV, Heuristic 2, Algorithm 1")
        }
        Choice::Affn { coords } => (
            format!(
                "AFFN took process {p} (the next id) at coordinates {}, stretched by the affine \
                 map of the coordinates' bounding box onto the machine",
                fmt_point(coords)
            ),
            "Bhatele & Kale §VI, Heuristic 3, Algorithm 2",
        ),
        Choice::CoceCorner {
            name,
            corner,
            corners,
        } => (
            format!(
                "{name} pinned process {p}, the graph's corner {} of {corners} (the process most \
                 extreme in that diagonal direction), to the machine's corner",
                corner + 1
            ),
            "Bhatele & Kale §VI, Heuristic 4",
        ),
        Choice::CoceInward { name, inner } => {
            let (head, cite) = head(inner, p, first)?;
            (
                format!("{name} fills inward from the corners: {head}"),
                cite,
            )
        }
        Choice::Gravity { position } => (
            format!(
                "gravity placed process {p} (the next id) at its layout position {}, stretched \
                 onto the machine like AFFN",
                fmt_point(position)
            ),
            "Bobrik & Popova §7; Bhatele & Kale §VI, Heuristic 3",
        ),
        Choice::GravityGreedy { followed } => {
            let head = match followed {
                Some((q, d)) => format!(
                    "gravity-greedy took process {p}, the unplaced process nearest in the layout \
                     to a placed one ({q}, at distance {d:.2}): it asks for {q}'s node shifted by \
                     their offset in the layout"
                ),
                None => format!(
                    "gravity-greedy started a region with process {p}, the unplaced process \
                     nearest to the layout's centre, at its stretched position (on a switch \
                     fabric, which has no grid to stretch onto: the fabric's centre)"
                ),
            };
            (
                head,
                "Bobrik & Popova §7 (Euclidean proximity in greedy algorithms)",
            )
        }
    })
}

/// `(3, 4, 1)`.
fn fmt_coord(grid: &Grid, node: usize) -> String {
    let c = grid.coord(node);
    let v: Vec<String> = (0..grid.ndims()).map(|d| c[d].to_string()).collect();
    format!("({})", v.join(", "))
}

/// The second half of a greedy placement's sentence: where the process
/// wanted to go (the desired position rounded to a node) and what
/// findNearest chose, with the search radius (the hop distance from the
/// wanted node to the chosen one: the shell in which the spiral search
/// found a free core; the k-d tree finds the same node).
fn explain_placement(grid: &Grid, desired: &[f64], slot: usize) -> String {
    let cores = grid.cores() as usize;
    let (node, core) = (slot / cores, slot % cores);
    let want = grid.node(&hopmap_core::find_nearest::round_to_coord(grid, desired)[..grid.ndims()]);
    let integral = desired.iter().all(|x| x.fract() == 0.0);
    let wanted = if integral {
        format!("it wants node {}", fmt_coord(grid, want))
    } else {
        let v: Vec<String> = desired.iter().map(|x| format!("{x:.2}")).collect();
        format!(
            "it wants ({}), node {}",
            v.join(", "),
            fmt_coord(grid, want)
        )
    };
    let r = grid.distance(want, node);
    let core = if cores > 1 {
        format!(", core {core}")
    } else {
        String::new()
    };
    if r == 0 {
        format!("{wanted}, which had a free core: findNearest chose it{core}")
    } else {
        format!(
            "{wanted}; it is full, so findNearest searched radius {r} and chose {}{core}",
            fmt_coord(grid, node)
        )
    }
}

/// `(1.5, 2, 0.25)`: a coordinate for a sentence (at most 2 decimals).
fn fmt_point(x: &[f64]) -> String {
    let v: Vec<String> = x
        .iter()
        .map(|c| {
            let s = format!("{c:.2}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        })
        .collect();
    format!("({})", v.join(", "))
}
