//! The one way to run a mapper. The CLI (`map`, `compare`, `reproduce`),
//! the comparison engine and the GUI all go through these functions, so a
//! mapper behaves the same wherever it is run:
//!
//! 1. [`resolve`] an id (a registry id, or a Blue Gene order string such as
//!    `TZXY`, which is `perm` with `order=TZXY`);
//! 2. [`parse_params`] / [`parse_param`]: the one `KEY=VALUE` grammar;
//! 3. [`prepare`]: check the parameters against the registry's schema and
//!    fill in its defaults, check that the graph fits, and start the run —
//!    with the coordinate-inferring layout as a first phase when
//!    `coords=infer` is asked for ([`super::phased`]);
//! 4. step it ([`crate::step::Stepper`]): to the end, in frame-budget slices,
//!    or with a cancel flag;
//! 5. [`finish`]: take the mapping and validate it.
//!
//! [`run`] and [`run_cancellable`] do 3–5 for callers that do not animate.

use super::phased::Phased;
use super::{MapperInfo, MapperInput, MapperRun, permutation};
use crate::error::{Error, Result};
use crate::layout::LayoutParams;
use crate::mapping::Mapping;
use crate::step::Stop;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// A mapper chosen by id: its registry entry, the parameters the id implies
/// (an order string implies `order=`), and the id to report.
#[derive(Debug)]
pub struct Selected {
    pub id: String,
    pub info: MapperInfo,
    pub params: Vec<(String, String)>,
}

/// Resolve a mapper id: a registry id as registered (lower case), else an
/// order string with capitals such as `TZXY` or `YXT`, which runs as `perm`
/// with `order=TZXY` (exact: it must fit the grid), else a registry id in
/// any case. So `tzxy` is the registry entry (generalised to any grid) and
/// `TZXY` the exact order.
///
/// ```
/// use hopmap_core::mappers;
///
/// let mht = mappers::resolve("mht")?;
/// assert_eq!(mht.info.paper, "Bhatele & Kale §IV, Heuristic 2 (Algorithm 1)");
/// // A Blue Gene order string is `perm` with that order.
/// let order = mappers::resolve("TZXY")?;
/// assert_eq!((order.id.as_str(), order.info.id), ("TZXY", "perm"));
/// assert_eq!(order.params, [("order".to_string(), "TZXY".to_string())]);
/// // An unknown id is an error that lists the known ones.
/// let err = mappers::resolve("nope").unwrap_err().to_string();
/// assert!(err.contains("known: default, random"), "{err}");
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn resolve(id: &str) -> Result<Selected> {
    let id = id.trim();
    let exact = super::registry().into_iter().find(|m| m.id == id);
    let order = permutation::looks_like_order(id) && id.chars().any(|c| c.is_ascii_uppercase());
    let found = match exact {
        Some(info) => Some(info),
        None if order => None,
        None => super::find(id),
    };
    if let Some(info) = found {
        return Ok(Selected {
            id: info.id.to_string(),
            info,
            params: Vec::new(),
        });
    }
    if permutation::looks_like_order(id) {
        return Ok(Selected {
            id: id.to_ascii_uppercase(),
            info: permutation::info(),
            params: vec![("order".into(), id.to_ascii_uppercase())],
        });
    }
    let known: Vec<&str> = super::registry().iter().map(|m| m.id).collect();
    Err(Error::spec(
        "mapper",
        id,
        format!(
            "unknown mapper; known: {}, or a permutation order such as TZXY",
            known.join(", ")
        ),
    ))
}

impl Selected {
    /// The id's implied parameters plus the user's. A user value for a key
    /// the id already implies must agree with it (`TZXY` with
    /// `order=XYZT` is refused, not silently ignored).
    pub fn with_params(&self, user: &[(String, String)]) -> Result<Vec<(String, String)>> {
        let mut out = self.params.clone();
        for (k, v) in user {
            if let Some((_, implied)) = out.iter().find(|(ik, _)| ik == k) {
                if !implied.eq_ignore_ascii_case(v) {
                    return Err(Error::spec(
                        "mapper parameter",
                        &format!("{k}={v}"),
                        format!("mapper id {} already sets {k}={implied}", self.id),
                    ));
                }
                continue;
            }
            out.push((k.clone(), v.clone()));
        }
        Ok(out)
    }
}

/// Parse one `KEY=VALUE` (spaces around either side are dropped).
pub fn parse_param(s: &str) -> Result<(String, String)> {
    let Some((k, v)) = s.split_once('=') else {
        return Err(Error::spec("mapper parameter", s, "expected KEY=VALUE"));
    };
    let (k, v) = (k.trim(), v.trim());
    if k.is_empty() {
        return Err(Error::spec(
            "mapper parameter",
            s,
            "expected KEY=VALUE with a key",
        ));
    }
    Ok((k.to_string(), v.to_string()))
}

/// Parse a list `KEY=VALUE, KEY=VALUE` (commas, semicolons or whitespace
/// between pairs), the form the GUI's parameter line and settings use.
pub fn parse_params(s: &str) -> Result<Vec<(String, String)>> {
    // Drop the spaces around each '=' so that `a = 1 b=2` splits into pairs.
    let mut norm = String::with_capacity(s.len());
    for part in s.split('=') {
        if !norm.is_empty() {
            norm.truncate(norm.trim_end().len());
            norm.push('=');
            norm.push_str(part.trim_start());
        } else {
            norm.push_str(part);
        }
    }
    norm.split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(parse_param)
        .collect()
}

/// The parameters to run `info` with: the given ones, checked against the
/// schema, then every declared parameter not given at its schema default.
pub fn with_defaults(
    info: &MapperInfo,
    params: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    info.check_params(params)?;
    let mut out: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    for p in info.params {
        if !out.iter().any(|(k, _)| k == p.key) {
            out.push((p.key.to_string(), p.default.to_string()));
        }
    }
    Ok(out)
}

/// Check everything that can be checked before any work and start a run.
/// Cheap: heavy work happens in the run's steps.
///
/// Step the run yourself to watch it, then [`finish`] it:
///
/// ```
/// use hopmap_core::generate::{GenOptions, generate};
/// use hopmap_core::mappers::{self, MapperInput};
/// use hopmap_core::{Stepper, Stop, Topology};
/// use std::sync::Arc;
///
/// let graph = Arc::new(generate("stencil:4x4", &GenOptions::default())?);
/// let topo = Arc::new(Topology::parse("torus:4x4")?);
/// let sel = mappers::resolve("pairs")?;
/// let mut input = MapperInput::new(graph, topo, 7);
/// input.params = sel.with_params(&[mappers::parse_param("sweeps=2")?])?;
/// let mut run = mappers::prepare(&sel.info, &input)?;
/// // A run that has not stopped has no mapping yet.
/// assert!(mappers::finish(&sel.info, run.as_ref(), &input).is_err());
/// let mut steps = 0;
/// while run.step().is_running() {
///     steps += 1; // a front end would draw `run.placement()` here
/// }
/// assert!(steps > 0);
/// let why = run.state().stop();
/// assert!(matches!(why, Some(Stop::LocalOptimum | Stop::IterationLimit)), "{why:?}");
/// let mapping = mappers::finish(&sel.info, run.as_ref(), &input)?;
/// assert_eq!(mapping.len(), 16);
///
/// // Bad parameters fail here, before any work.
/// input.params = vec![("sweeps".into(), "-1".into())];
/// assert!(mappers::prepare(&sel.info, &input).is_err());
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn prepare(info: &MapperInfo, input: &MapperInput) -> Result<Box<dyn MapperRun>> {
    let mut input = input.clone();
    input.params = with_defaults(info, &input.params)?;
    input.check_fits()?;
    // A network too large for the mapper's per-node state: refused up front.
    crate::mapping::check_mapper_network(info.id, info.per_node_state, &input.topo)?;
    let infer = input.param("coords") == Some("infer");
    if info.needs_coords && !infer && input.graph.coords().is_none() {
        return Err(Error::Unsupported(format!(
            "mapper {} needs per-process coordinates; the graph has none (give a coordinates \
             file, or infer them from the gravitational layout: coords=infer / --infer-coords)",
            info.id
        )));
    }
    if !infer {
        return (info.start)(&input);
    }
    // `coords=infer`: the layout, in the topology's dimension, is the first
    // phase; the mapper starts on the graph with the layout's coordinates.
    // Check the mapper can start at all before laying out.
    let params = LayoutParams::for_network(&input.topo, input.seed);
    let start = info.start;
    let graph = input.graph.clone();
    Ok(Box::new(Phased::layout_then(
        graph,
        params,
        Box::new(move |coords| {
            let g = (*input.graph).clone().with_coords(Some(coords))?;
            let mut input = input;
            input.graph = Arc::new(g);
            // The coordinates are there now: the mapper must not infer again.
            input.params.retain(|(k, _)| k != "coords");
            start(&input)
        }),
    )))
}

/// The validated mapping of a stopped run.
pub fn finish(info: &MapperInfo, run: &dyn MapperRun, input: &MapperInput) -> Result<Mapping> {
    match run.state().stop() {
        None => {
            return Err(Error::Unsupported(format!(
                "mapper {} has not finished",
                info.id
            )));
        }
        Some(Stop::Cancelled) => return Err(Error::Cancelled),
        Some(Stop::Failed) => {
            return Err(match run.error() {
                Some(e) => Error::Unsupported(format!("mapper {}: {e}", info.id)),
                None => {
                    Error::Unsupported(format!("mapper {} could not place every process", info.id))
                }
            });
        }
        Some(_) => {}
    }
    let m = run.result().ok_or_else(|| {
        Error::Unsupported(format!("mapper {} finished without a mapping", info.id))
    })?;
    m.validate(input.graph.n(), &input.topo)?;
    Ok(m)
}

/// Run a mapper to the end and return its validated mapping
/// ([`prepare`], step to the end, [`finish`]).
///
/// ```
/// use hopmap_core::generate::{GenOptions, generate};
/// use hopmap_core::mappers::{self, MapperInput};
/// use hopmap_core::{Routing, Topology, evaluate};
/// use std::sync::Arc;
///
/// let graph = Arc::new(generate("stencil:8x8", &GenOptions::default())?);
/// let topo = Arc::new(Topology::parse("mesh:8x8")?);
/// let input = MapperInput::new(graph.clone(), topo.clone(), 1);
/// let mht = mappers::run(&mappers::resolve("mht")?.info, &input)?;
/// let random = mappers::run(&mappers::resolve("random")?.info, &input)?;
/// let hop_bytes =
///     |m: &hopmap_core::Mapping| evaluate(&graph, &topo, m, &Routing::Dor).metrics.hop_bytes;
/// // Every pair is at least one hop apart on one core per node; MHT keeps
/// // partners near, a random placement does not.
/// assert!(hop_bytes(&mht) >= graph.total_bytes());
/// assert!(hop_bytes(&mht) < hop_bytes(&random));
/// # Ok::<(), hopmap_core::Error>(())
/// ```
pub fn run(info: &MapperInfo, input: &MapperInput) -> Result<Mapping> {
    let mut r = prepare(info, input)?;
    r.run_to_end();
    finish(info, r.as_ref(), input)
}

/// [`run`] with a cancel flag checked between steps; a cancel is
/// [`Error::Cancelled`].
pub fn run_cancellable(
    info: &MapperInfo,
    input: &MapperInput,
    cancel: &AtomicBool,
) -> Result<Mapping> {
    let mut r = prepare(info, input)?;
    if r.run_cancellable(cancel) == Stop::Cancelled {
        return Err(Error::Cancelled);
    }
    finish(info, r.as_ref(), input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_grammar_for_single_and_listed_params() {
        assert_eq!(parse_param(" a = 1 ").unwrap(), ("a".into(), "1".into()));
        assert!(parse_param("a").is_err());
        assert!(parse_param("=1").is_err());
        let v = parse_params("sweeps=3, from=affn;find=spiral").unwrap();
        assert_eq!(v.len(), 3);
        assert_eq!(v[1], ("from".into(), "affn".into()));
        let v = parse_params("sweeps = 3 radius=2").unwrap();
        assert_eq!(
            v,
            vec![("sweeps".into(), "3".into()), ("radius".into(), "2".into())]
        );
        assert!(parse_params("").unwrap().is_empty());
        assert!(parse_params("sweeps").is_err());
    }

    #[test]
    fn defaults_come_from_the_schema() {
        let info = super::super::find("pairs").unwrap();
        let p = with_defaults(&info, &[("sweeps".into(), "7".into())]).unwrap();
        let get = |k: &str| p.iter().find(|(kk, _)| kk == k).map(|(_, v)| v.as_str());
        assert_eq!(get("sweeps"), Some("7"));
        assert_eq!(get("from"), Some("mht"));
        assert_eq!(p.len(), info.params.len());
    }

    #[test]
    fn an_order_string_id_refuses_a_conflicting_order() {
        let s = resolve("TZXY").unwrap();
        assert!(s.with_params(&[("order".into(), "XYZT".into())]).is_err());
        assert_eq!(
            s.with_params(&[("order".into(), "tzxy".into())])
                .unwrap()
                .len(),
            1
        );
    }
}
