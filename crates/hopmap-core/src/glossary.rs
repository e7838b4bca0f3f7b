//! The glossary of mapping terms, as data: each term with a one-line
//! definition and the seed paper (and section) it comes from. The GUI's
//! glossary panel and guided mode read it from here; nothing here renders.

/// One glossary entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Term {
    pub term: &'static str,
    /// One line, in plain words.
    pub definition: &'static str,
    /// The seed paper and section that defines or uses it.
    pub seed: &'static str,
}

/// Every term, in teaching order.
pub const GLOSSARY: &[Term] = &[
    Term {
        term: "hop-bytes",
        definition: "Σ over messages of bytes × hops travelled: the total load a mapping puts on \
                     the network's links (inside a node counts 0 hops; on a switch fabric a hop is a \
                     switch-to-switch link, so hosts on one switch are 0 hops apart).",
        seed: "Bhatele & Kale §I; Wu et al. §2.2",
    },
    Term {
        term: "hops per byte",
        definition: "hop-bytes ÷ total bytes: how far the average byte travels; 1 means every \
                     partner is a neighbour.",
        seed: "Bhatele & Kale §I (average hops per byte)",
    },
    Term {
        term: "dilation",
        definition: "The hop distance between the nodes of two communicating processes; the \
                     maximum over all pairs is the mapping's dilation.",
        seed: "Wu et al. §2.3 (metrics of mapping: average hops, dilation, congestion)",
    },
    Term {
        term: "link load",
        definition: "Bytes that cross one directed channel under the routing; the busiest \
                     channel's load bounds the communication time.",
        seed: "Balaji et al. §3 (contention model)",
    },
    Term {
        term: "contention (flows on a channel)",
        definition: "The number of messages whose routes share one channel; Balaji's model \
                     counts these flows on the busiest link.",
        seed: "Balaji et al. §3",
    },
    Term {
        term: "weighted cardinality",
        definition: "Σ over the application's edges of its weight × the cost of the path between \
                     the processors it was mapped to in the routing topology: Moh's hop-bytes \
                     for switch fabrics.",
        seed: "Moh et al. §2 (the mapping problem)",
    },
    Term {
        term: "up*/down*",
        definition: "Deadlock-free routing on an irregular switch fabric: a legal route goes zero \
                     or more links up a BFS spanning tree, then zero or more links down, never \
                     up again.",
        seed: "Moh et al. §3 (routing topology)",
    },
    Term {
        term: "almost-legal",
        definition: "A placement from the continuous optimisation in which nodes may still be \
                     slightly over-full; legalization then migrates processes to make it a \
                     valid mapping.",
        seed: "Wu et al. §3.3 (global mapping), §3.4 (legalization)",
    },
];

/// Look a term up (case-insensitive; `up/down`, `updown` find `up*/down*`).
pub fn lookup(term: &str) -> Option<&'static Term> {
    let key = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = key(term);
    GLOSSARY
        .iter()
        .find(|t| key(t.term) == k || key(t.term.split(" (").next().unwrap_or("")) == k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_issue_term_is_there_once_with_a_seed() {
        for t in [
            "hop-bytes",
            "hops per byte",
            "dilation",
            "link load",
            "contention",
            "weighted cardinality",
            "up*/down*",
            "almost-legal",
        ] {
            let e = lookup(t).unwrap_or_else(|| panic!("{t}"));
            assert!(
                !e.definition.contains('\n') && e.definition.len() > 20,
                "{t}"
            );
            assert!(e.seed.contains('§'), "{t}: {}", e.seed);
        }
        assert_eq!(GLOSSARY.len(), 8);
        assert_eq!(lookup("updown").unwrap().term, "up*/down*");
        assert_eq!(lookup("Hop Bytes").unwrap().term, "hop-bytes");
        assert!(lookup("bandwidth").is_none());
    }
}
