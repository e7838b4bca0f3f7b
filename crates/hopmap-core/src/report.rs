//! Experiment reports: `hopmap compare … --report DIR`. Runs every mapper
//! on every graph × topology ([`run`], through [`crate::compare::compare`],
//! so through the one mapper pipeline) and writes ([`write()`]):
//!
//! * `runs.csv`: one line per run (graph, topology, mapper, seconds, the
//!   metrics, and the ratio of its hop-bytes to the case's best and to
//!   `default`);
//! * `runs.json`: the same runs, plus the mappers left out and why;
//! * per case and metric (hop-bytes, max link load, max flows, mapper
//!   time) a bar chart as **PNG** (`caseK-hop_bytes.png`, drawn with the
//!   `image` crate, its text in the app's own font: [`crate::report_png`]) and as
//!   **SVG** (`caseK-hop_bytes.svg`, vector, for papers): horizontal bars
//!   sorted best (smallest) first, every bar named and labelled with its
//!   value;
//! * `index.html`: per case a table and the four PNG charts, each linking
//!   to its SVG.
//!
//! Every file is written whole to a temporary file and renamed
//! ([`write_file`], the project's atomic-write helper). Cost: the comparisons' own; writing is O(runs).

use crate::compare::{Comparison, Row, Selected, Skipped, compare};
use crate::error::{Error, Result};
use crate::graph::CommGraph;
use crate::routing::Routing;
use crate::topology::Topology;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// One graph × topology comparison.
#[derive(Clone, Debug)]
pub struct Case {
    /// The graph's name (its file name).
    pub graph: String,
    /// The topology's spec.
    pub topology: String,
    /// The routing of the link loads.
    pub routing: String,
    /// The comparison, or why the case could not run at all.
    pub outcome: std::result::Result<Comparison, String>,
}

/// Compare `selected` on every graph × topology. `progress(case, cases,
/// mapper_index, mappers, id)` is called before each mapper. A case that
/// cannot run (e.g. a routing the topology does not support) is recorded
/// with its reason; a cancel stops everything with [`Error::Cancelled`].
#[allow(clippy::too_many_arguments)]
pub fn run(
    graphs: &[(String, Arc<CommGraph>)],
    topologies: &[Arc<Topology>],
    selected: &[Selected],
    routing: &Routing,
    seed: u64,
    cancel: &AtomicBool,
    progress: &mut dyn FnMut(usize, usize, usize, usize, &str),
) -> Result<Vec<Case>> {
    let total = graphs.len() * topologies.len();
    let mut out = Vec::with_capacity(total);
    for (gi, (name, g)) in graphs.iter().enumerate() {
        for (ti, t) in topologies.iter().enumerate() {
            let k = gi * topologies.len() + ti;
            let res = compare(
                g.clone(),
                t.clone(),
                selected,
                routing,
                seed,
                cancel,
                &mut |i, n, id| progress(k, total, i, n, id),
            );
            let outcome = match res {
                Ok(c) => Ok(c),
                Err(Error::Cancelled) => return Err(Error::Cancelled),
                Err(e) => Err(e.to_string()),
            };
            out.push(Case {
                graph: name.clone(),
                topology: t.spec(),
                routing: routing.to_string(),
                outcome,
            });
        }
    }
    Ok(out)
}

/// The four charted metrics: key and title (on a switch fabric the load
/// and flows charts are of switch-to-switch links: [`chart_title`]).
pub const CHARTS: [(&str, &str); 4] = [
    ("hop_bytes", "hop-bytes (Σ bytes × hops)"),
    (
        "max_link_load",
        "max link load (bytes on the busiest channel)",
    ),
    (
        "max_link_flows",
        "max flows (messages on the busiest channel)",
    ),
    ("seconds", "mapper time (s)"),
];

/// Whether these runs are on a switch fabric (their metrics carry the
/// busiest switch-to-switch link).
pub fn on_fabric(rows: &[Row]) -> bool {
    rows.iter()
        .any(|r| r.metrics.max_switch_link_load.is_some())
}

/// The title of the chart of `key`: on a fabric the load and flows charts
/// name the switch-to-switch links they show ([`chart_metric`]).
pub fn chart_title(key: &str, fabric: bool) -> &'static str {
    match (key, fabric) {
        ("max_link_load", true) => {
            "max switch-to-switch link load (bytes on the busiest link between switches)"
        }
        ("max_link_flows", true) => {
            "max switch-to-switch flows (messages on the busiest link between switches)"
        }
        _ => CHARTS.iter().find(|c| c.0 == key).map_or("", |c| c.1),
    }
}

/// The value a chart (the report's or the app's Compare charts) shows of a
/// run's `metrics` for `key` (a [`CSV_HEADER`] metric column, or `seconds`).
/// On a switch fabric, max link load and max flows are those of the busiest
/// link between two switches: a host's link carries that host's own
/// traffic whatever the mapping, so the busiest link overall is often a
/// host link with the same load under every mapper, and a chart of it
/// cannot tell mappings apart (the host-link value is noted beside each
/// bar: [`chart_note`]).
pub fn chart_metric(m: &crate::metrics::Metrics, seconds: f64, key: &str) -> f64 {
    match key {
        "hop_bytes" => m.hop_bytes,
        "avg_hops_per_byte" => m.avg_hops_per_byte,
        "max_dilation" => m.max_dilation as f64,
        "max_link_load" => m.max_switch_link_load.unwrap_or(m.max_link_load),
        "max_link_flows" => m
            .max_switch_link_flows
            .map_or(m.max_link_flows as f64, |f| f as f64),
        _ => seconds,
    }
}

/// Beside a fabric's load or flows bar: the busiest link over all links,
/// host links included (`max_link_load` / `max_link_flows`), which the bar
/// leaves out. None elsewhere.
pub fn chart_note(m: &crate::metrics::Metrics, key: &str) -> Option<String> {
    m.max_switch_link_load?;
    match key {
        "max_link_load" => Some(format!(
            "all links incl. hosts' {}",
            chart_value(key, m.max_link_load)
        )),
        "max_link_flows" => Some(format!("all links incl. hosts' {}", m.max_link_flows)),
        _ => None,
    }
}

/// The columns of every comparison CSV hopmap writes (`runs.csv` of a
/// report, `compare --csv`, the app's Export CSV): one line per mapper run,
/// best first, then one per mapper left out, with its reason in `skipped`
/// and the metric columns empty.
pub const CSV_HEADER: &str = "graph,topology,routing,mapper,seconds,hop_bytes,avg_hops_per_byte,max_dilation,max_link_load,max_link_flows,mean_link_load,mean_link_flows,hop_bytes_vs_best,hop_bytes_vs_default,skipped";

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Ratio of `x` to `base` (empty when there is no base or it is 0).
fn ratio(x: f64, base: Option<f64>) -> Option<f64> {
    base.filter(|&b| b > 0.0).map(|b| x / b)
}

/// Append the [`CSV_HEADER`] lines of one comparison of `graph` on
/// `topology` with `routing`: its runs in the order given (the best first
/// when sorted by hop-bytes: `hop_bytes_vs_best` is to the lowest), then
/// the mappers left out.
pub fn csv_lines(
    out: &mut String,
    (graph, topology, routing): (&str, &str, &str),
    rows: &[Row],
    skipped: &[Skipped],
) {
    let best = rows.iter().map(|r| r.metrics.hop_bytes).reduce(f64::min);
    let default = rows
        .iter()
        .find(|r| r.mapper == "default")
        .map(|r| r.metrics.hop_bytes);
    let case = format!(
        "{},{},{}",
        csv_field(graph),
        csv_field(topology),
        csv_field(routing)
    );
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    for r in rows {
        let m = &r.metrics;
        let _ = writeln!(
            out,
            "{case},{},{},{},{},{},{},{},{},{},{},{},",
            csv_field(&r.mapper),
            r.seconds,
            m.hop_bytes,
            m.avg_hops_per_byte,
            m.max_dilation,
            m.max_link_load,
            m.max_link_flows,
            m.mean_link_load,
            m.mean_link_flows,
            opt(ratio(m.hop_bytes, best)),
            opt(ratio(m.hop_bytes, default)),
        );
    }
    for k in skipped {
        let _ = writeln!(
            out,
            "{case},{},,,,,,,,,,,{}",
            csv_field(&k.mapper),
            csv_field(&k.reason)
        );
    }
}

/// `runs.csv`: every case's lines under one header.
pub fn to_csv(cases: &[Case]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{CSV_HEADER}");
    for c in cases {
        let Ok(cmp) = &c.outcome else { continue };
        csv_lines(
            &mut s,
            (&c.graph, &c.topology, &c.routing),
            &cmp.rows,
            &cmp.skipped,
        );
    }
    s
}

/// `runs.json`: `{"runs": [...], "skipped": [...], "failed_cases": [...]}`;
/// each run has `graph`, `topology`, `mapper`, `seconds` and the `eval
/// --json` keys.
pub fn to_json(cases: &[Case]) -> Result<String> {
    let mut runs = Vec::new();
    let mut skipped = Vec::new();
    let mut failed = Vec::new();
    for c in cases {
        match &c.outcome {
            Ok(cmp) => {
                for r in &cmp.rows {
                    let mut v = serde_json::to_value(r)
                        .map_err(|e| Error::Unsupported(format!("report: {e}")))?;
                    if let Some(o) = v.as_object_mut() {
                        o.insert("graph".into(), c.graph.clone().into());
                    }
                    runs.push(v);
                }
                for s in &cmp.skipped {
                    skipped.push(serde_json::json!({
                        "graph": c.graph, "topology": c.topology,
                        "mapper": s.mapper, "reason": s.reason,
                    }));
                }
            }
            Err(e) => failed.push(serde_json::json!({
                "graph": c.graph, "topology": c.topology, "reason": e,
            })),
        }
    }
    serde_json::to_string_pretty(&serde_json::json!({
        "runs": runs, "skipped": skipped, "failed_cases": failed,
    }))
    .map_err(|e| Error::Unsupported(format!("report: {e}")))
}

/// A chart's value label in its metric's unit: link loads in bytes with a
/// binary unit (`9.43 MiB`), hop-bytes and flows as grouped whole numbers
/// (`827 400 304`), seconds with four significant digits.
pub fn chart_value(key: &str, v: f64) -> String {
    match key {
        "max_link_load" => crate::units::fmt_bytes(v),
        "hop_bytes" | "max_link_flows" => crate::units::fmt_count(v),
        _ => fmt_value(v),
    }
}

/// A number for a label: integers as integers, large values with 4
/// significant digits in e-notation, others with 4 significant digits.
pub fn fmt_value(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if a >= 1e6 {
        format!("{v:.3e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!(
            "{:.*}",
            3usize.saturating_sub(a.log10().floor() as usize),
            v
        )
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{v:.3e}")
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One bar of a chart: the mapper, its value and the value's label.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub name: String,
    pub value: f64,
    pub label: String,
}

/// A horizontal bar chart as SVG: one `<rect class="bar">` and two labels
/// (name, value) per bar, in the given order, on a white background.
pub fn bar_chart_svg(title: &str, bars: &[Bar]) -> String {
    const ROW: f64 = 24.0;
    const LEFT: f64 = 150.0;
    const PLOT: f64 = 460.0;
    const TOP: f64 = 40.0;
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let width = LEFT + PLOT + 30.0 + 8.0 * longest as f64;
    let height = TOP + ROW * bars.len() as f64 + 16.0;
    let max = bars
        .iter()
        .map(|b| b.value)
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="13">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="10" y="24" font-size="15" font-weight="bold">{}</text>"#,
        xml_escape(title)
    );
    for (
        i,
        Bar {
            name,
            value: v,
            label,
        },
    ) in bars.iter().enumerate()
    {
        let y = TOP + ROW * i as f64;
        let w = if max > 0.0 && v.is_finite() {
            (v / max * PLOT).max(1.0)
        } else {
            1.0
        };
        let fill = if i == 0 { "#2b7a3d" } else { "#4a78b0" };
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y + 15.0,
            xml_escape(name)
        );
        let _ = writeln!(
            s,
            r#"<rect class="bar" x="{LEFT}" y="{}" width="{w:.1}" height="{}" fill="{fill}"/>"#,
            y + 3.0,
            ROW - 6.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}">{}</text>"#,
            LEFT + w + 6.0,
            y + 15.0,
            xml_escape(label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The bars of one chart: every row's [`chart_metric`], smallest first
/// (ties by name), labelled in the metric's unit with the [`chart_note`].
pub fn chart_bars(cmp: &Comparison, key: &str) -> Vec<Bar> {
    let mut bars: Vec<Bar> = cmp
        .rows
        .iter()
        .map(|r| {
            let value = chart_metric(&r.metrics, r.seconds, key);
            let mut label = chart_value(key, value);
            if let Some(n) = chart_note(&r.metrics, key) {
                label = format!("{label} ({n})");
            }
            Bar {
                name: r.mapper.clone(),
                value,
                label,
            }
        })
        .collect();
    bars.sort_by(|a, b| {
        a.value
            .total_cmp(&b.value)
            .then_with(|| a.name.cmp(&b.name))
    });
    bars
}

/// The chart titles in the PNG font's characters.
fn chart_file(case: usize, key: &str) -> String {
    format!("case{}-{key}.svg", case + 1)
}

/// `index.html`: per case a table and its charts.
pub fn to_html(cases: &[Case]) -> String {
    let mut s = String::new();
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hopmap report</title>\n\
         <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
         td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child{text-align:left}\
         img{margin:4px;border:1px solid #eee}</style></head><body>\n<h1>hopmap report</h1>\n\
         <p>Rows sorted by hop-bytes, best first; ratios are hop-bytes over the best and over \
         <code>default</code>. Data: <a href=\"runs.csv\">runs.csv</a>, <a href=\"runs.json\">runs.json</a>.</p>\n",
    );
    for (k, c) in cases.iter().enumerate() {
        let _ = writeln!(
            s,
            "<h2>{}. {} on {} (routing {})</h2>",
            k + 1,
            xml_escape(&c.graph),
            xml_escape(&c.topology),
            xml_escape(&c.routing)
        );
        let cmp = match &c.outcome {
            Ok(cmp) => cmp,
            Err(e) => {
                let _ = writeln!(s, "<p>Not run: {}</p>", xml_escape(e));
                continue;
            }
        };
        let best = cmp.rows.first().map(|r| r.metrics.hop_bytes);
        let default = cmp
            .rows
            .iter()
            .find(|r| r.mapper == "default")
            .map(|r| r.metrics.hop_bytes);
        s.push_str("<table><tr><th>mapper</th><th>hop-bytes</th><th>× best</th><th>× default</th><th>hops/byte</th><th>max dilation</th><th>max link load</th><th>max flows</th><th>seconds</th></tr>\n");
        for r in &cmp.rows {
            let m = &r.metrics;
            let opt = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{v:.3}"));
            let _ = writeln!(
                s,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td></tr>",
                xml_escape(&r.mapper),
                chart_value("hop_bytes", m.hop_bytes),
                opt(ratio(m.hop_bytes, best)),
                opt(ratio(m.hop_bytes, default)),
                m.avg_hops_per_byte,
                m.max_dilation,
                chart_value("max_link_load", m.max_link_load),
                m.max_link_flows,
                r.seconds
            );
        }
        s.push_str("</table>\n");
        for sk in &cmp.skipped {
            let _ = writeln!(
                s,
                "<p>{} left out: {}</p>",
                xml_escape(&sk.mapper),
                xml_escape(&sk.reason)
            );
        }
        if !cmp.rows.is_empty() {
            s.push_str("<div>\n");
            for (key, _) in CHARTS {
                let title = chart_title(key, on_fabric(&cmp.rows));
                let svg = chart_file(k, key);
                let _ = writeln!(
                    s,
                    "<a href=\"{svg}\"><img src=\"{}\" alt=\"{}\"></a>",
                    svg.replace(".svg", ".png"),
                    xml_escape(title)
                );
            }
            s.push_str("</div>\n");
        }
    }
    s.push_str("</body></html>\n");
    s
}

/// Write `bytes` to `path` atomically (a temporary file beside it, then a
/// rename: [`crate::io::atomic::write_bytes_atomic`]), so that a reader
/// never sees a half-written file.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::io::atomic::write_bytes_atomic(path, bytes)
}

/// Write the whole report into `dir` (created if missing); returns the
/// files written, `index.html` last.
pub fn write(dir: &Path, cases: &[Case]) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        source: e,
    })?;
    let mut files = Vec::new();
    let mut put = |name: &str, bytes: &[u8]| -> Result<()> {
        let p = dir.join(name);
        write_file(&p, bytes)?;
        files.push(p);
        Ok(())
    };
    put("runs.csv", to_csv(cases).as_bytes())?;
    put("runs.json", to_json(cases)?.as_bytes())?;
    for (k, c) in cases.iter().enumerate() {
        let Ok(cmp) = &c.outcome else { continue };
        if cmp.rows.is_empty() {
            continue;
        }
        let fabric = on_fabric(&cmp.rows);
        for (key, _) in CHARTS {
            let bars = chart_bars(cmp, key);
            let t = format!(
                "{}: {} on {}",
                chart_title(key, fabric),
                c.graph,
                c.topology
            );
            put(&chart_file(k, key), bar_chart_svg(&t, &bars).as_bytes())?;
            let png = crate::report_png::bar_chart_png(&t, &bars)?;
            put(&chart_file(k, key).replace(".svg", ".png"), &png)?;
        }
    }
    put("index.html", to_html(cases).as_bytes())?;
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::GraphBuilder;
    use crate::units::{fmt_bytes, fmt_count};

    fn ring(n: usize) -> Arc<CommGraph> {
        let mut b = GraphBuilder::new(n, false);
        for i in 0..n {
            b.add(i, (i + 1) % n, 2.0);
        }
        Arc::new(b.build().unwrap())
    }

    fn cases() -> Vec<Case> {
        let graphs = vec![
            ("ring16".to_string(), ring(16)),
            ("ring8".to_string(), ring(8)),
        ];
        let topos = vec![
            Arc::new(Topology::parse("torus:4x4").unwrap()),
            Arc::new(Topology::parse("mesh:2x2").unwrap()),
        ];
        let sel = crate::compare::parse_list("default,random,mht").unwrap();
        let cancel = AtomicBool::new(false);
        let mut calls = 0;
        let c = run(
            &graphs,
            &topos,
            &sel,
            &Routing::Dor,
            1,
            &cancel,
            &mut |_, n, _, m, _| {
                assert_eq!((n, m), (4, 3));
                calls += 1;
            },
        )
        .unwrap();
        assert_eq!(calls, 12);
        c
    }

    #[test]
    fn every_run_is_in_the_csv_and_json_with_its_ratios() {
        let c = cases();
        assert_eq!(c.len(), 4);
        let csv = to_csv(&c);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], CSV_HEADER);
        // ring16/torus:4x4 and ring8/torus:4x4: 3 runs each; the 2x2 mesh
        // has 4 slots, so every mapper is left out for both rings: a line
        // each, with the reason in the last column and no metrics.
        assert_eq!(lines.len(), 1 + 6 + 6);
        let left_out: Vec<&str> = lines
            .iter()
            .filter(|l| l.contains(",mesh:2x2,"))
            .copied()
            .collect();
        assert_eq!(left_out.len(), 6);
        for l in left_out {
            let f: Vec<&str> = l.split(',').collect();
            assert!(f[4..14].iter().all(|v| v.is_empty()), "{l}");
            assert!(!f[14].is_empty(), "{l}");
        }
        // default on the 4x4 torus: hop-bytes 40 (see compare's test).
        let d = lines
            .iter()
            .find(|l| l.starts_with("ring16,torus:4x4,dor,default,"))
            .unwrap();
        let f: Vec<&str> = d.split(',').collect();
        assert_eq!(f[5], "40");
        let best: f64 = lines[1].split(',').nth(5).unwrap().parse().unwrap();
        assert_eq!(f[12].parse::<f64>().unwrap(), 40.0 / best);
        assert_eq!(f[13], "1");
        let j: serde_json::Value = serde_json::from_str(&to_json(&c).unwrap()).unwrap();
        assert_eq!(j["runs"].as_array().unwrap().len(), 6);
        assert_eq!(j["skipped"].as_array().unwrap().len(), 6);
        assert_eq!(j["runs"][0]["graph"], "ring16");
        assert!(j["runs"][0]["hop_bytes"].is_number());
    }

    #[test]
    fn charts_name_every_bar_best_first() {
        let c = cases();
        let cmp = c[0].outcome.as_ref().unwrap();
        let bars = chart_bars(cmp, "hop_bytes");
        assert_eq!(bars.len(), 3);
        assert!(bars.windows(2).all(|w| w[0].value <= w[1].value));
        let svg = bar_chart_svg("hop-bytes", &bars);
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 3);
        for b in &bars {
            assert!(svg.contains(&format!(">{}</text>", b.name)), "{}", b.name);
            assert_eq!(b.label, fmt_count(b.value));
            assert!(svg.contains(&format!(">{}</text>", b.label)), "{}", b.value);
        }
        // Bars appear in order: the best's name first.
        let first = svg.find(&format!(">{}<", bars[0].name)).unwrap();
        let last = svg.find(&format!(">{}<", bars[2].name)).unwrap();
        assert!(first < last);
        assert_eq!(svg.matches("<svg").count(), 1);
        assert!(svg.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn on_a_fabric_the_load_charts_show_the_busiest_switch_link() {
        // Two processes talking 5 bytes each way, on a 2-level fat tree
        // with one host per leaf: default puts them on two leaves, so their
        // bytes cross switch links; on torus there are no host links.
        let mut b = GraphBuilder::new(4, false);
        b.add(0, 1, 5.0);
        b.add(0, 2, 3.0);
        let g = Arc::new(b.build().unwrap());
        let sel = crate::compare::parse_list("default,random").unwrap();
        let cancel = AtomicBool::new(false);
        let fat = Arc::new(Topology::parse("fattree:4:2").unwrap());
        let cases = run(
            &[("g".into(), g.clone())],
            &[fat, Arc::new(Topology::parse("torus:4").unwrap())],
            &sel,
            &Routing::Dor,
            1,
            &cancel,
            &mut |_, _, _, _, _| {},
        )
        .unwrap();
        let fabric = cases[0].outcome.as_ref().unwrap();
        assert!(on_fabric(&fabric.rows));
        let bars = chart_bars(fabric, "max_link_load");
        for r in &fabric.rows {
            let sw = r.metrics.max_switch_link_load.expect("a fabric's runs");
            let bar = bars.iter().find(|b| b.name == r.mapper).unwrap();
            assert_eq!(bar.value, sw);
            // The busiest link overall (a host's) is noted beside it.
            assert_eq!(
                bar.label,
                format!(
                    "{} (all links incl. hosts' {})",
                    fmt_bytes(sw),
                    fmt_bytes(r.metrics.max_link_load)
                )
            );
            let fl = chart_bars(fabric, "max_link_flows");
            let f = fl.iter().find(|b| b.name == r.mapper).unwrap();
            assert_eq!(Some(f.value as u32), r.metrics.max_switch_link_flows);
        }
        assert!(chart_title("max_link_load", true).contains("switch-to-switch"));
        // A host link carries 8 bytes (process 0's), more than any switch link here.
        assert!(
            fabric
                .rows
                .iter()
                .any(|r| r.metrics.max_link_load > r.metrics.max_switch_link_load.unwrap())
        );
        // Elsewhere the charts are of the metric itself, without a note.
        let torus = cases[1].outcome.as_ref().unwrap();
        assert!(!on_fabric(&torus.rows));
        for b in chart_bars(torus, "max_link_load") {
            let r = torus.rows.iter().find(|r| r.mapper == b.name).unwrap();
            assert_eq!(b.value, r.metrics.max_link_load);
            assert_eq!(b.label, fmt_bytes(b.value));
        }
        assert!(!chart_title("max_link_load", false).contains("switch"));
    }

    #[test]
    fn chart_values_carry_their_metrics_units() {
        assert_eq!(chart_value("max_link_load", 9890416.0), "9.43 MiB");
        assert_eq!(chart_value("hop_bytes", 827400304.0), "827 400 304");
        assert_eq!(chart_value("max_link_flows", 32.0), "32");
        assert_eq!(chart_value("seconds", 0.000123), "1.230e-4");
    }

    #[test]
    fn values_are_labelled_legibly() {
        assert_eq!(fmt_value(40.0), "40");
        assert_eq!(fmt_value(4577280.0), "4.577e6");
        assert_eq!(fmt_value(1.66291), "1.663");
        assert_eq!(fmt_value(12.5), "12.50");
        assert_eq!(fmt_value(0.000123), "1.230e-4");
        assert_eq!(fmt_value(0.0), "0");
    }

    #[test]
    fn the_report_directory_has_every_file_and_the_index_links_them() {
        let c = cases();
        let dir = std::env::temp_dir().join(format!("hopmap-report-test-{}", std::process::id()));
        let files = write(&dir, &c).unwrap();
        // csv, json, 2 cases with rows × 4 charts × (SVG, PNG), index.
        assert_eq!(files.len(), 2 + 16 + 1);
        let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
        for f in &files {
            assert!(f.exists(), "{}", f.display());
            let name = f.file_name().unwrap().to_str().unwrap();
            if name.ends_with(".png") {
                assert!(html.contains(&format!("src=\"{name}\"")), "{name}");
                let img = image::open(f).unwrap();
                assert!(img.width() > 400 && img.height() > 60, "{name}");
            }
            if name.ends_with(".svg") {
                assert!(html.contains(&format!("href=\"{name}\"")), "{name}");
            }
        }
        assert!(html.contains("left out"));
        // No temporary file is left behind.
        let stray = std::fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("hopmap-tmp")
            })
            .count();
        assert_eq!(stray, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
