//! The quantile plot, as a hand-written SVG.
//!
//! For each series, the times of its correct results are sorted; the i-th point is at
//! x = i (the number of correct results obtainable within that time per task) and y = the i-th
//! smallest time, on a log scale. A line further right solves more; a lower line is faster.
//! Times below 10 ms are drawn at 10 ms. Reference (peer) series are dashed.

use super::table::Series;
use std::fmt::Write;

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 520.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;
/// The smallest time on the plot's logarithmic axis, in seconds.
const MIN_TIME: f64 = 0.01;
const COLORS: [&str; 10] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// Draws the quantile plot of `series` with `title` on top.
pub fn quantile_svg(title: &str, series: &[Series]) -> String {
    let curves: Vec<(&Series, Vec<f64>)> = series
        .iter()
        .map(|s| {
            let mut times: Vec<f64> = s
                .entries
                .values()
                .filter(|e| e.class.is_correct())
                .map(|e| e.cpu_s.max(MIN_TIME))
                .collect();
            times.sort_by(f64::total_cmp);
            (s, times)
        })
        .collect();
    let n_max = curves.iter().map(|c| c.1.len()).max().unwrap_or(0).max(1);
    let t_max = curves
        .iter()
        .flat_map(|c| c.1.iter().copied())
        .fold(MIN_TIME, f64::max);
    let t_min = curves
        .iter()
        .flat_map(|c| c.1.iter().copied())
        .fold(t_max, f64::min);
    let lo_exp = t_min.log10().floor() as i32;
    let hi_exp = (t_max.log10().ceil() as i32).max(lo_exp + 1);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x_of = |i: f64| LEFT + plot_w * i / n_max as f64;
    let y_of = |t: f64| {
        let frac = (t.log10() - lo_exp as f64) / (hi_exp - lo_exp) as f64;
        TOP + plot_h * (1.0 - frac)
    };

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        LEFT + plot_w / 2.0,
        escape(title)
    );
    // Grid and y ticks at powers of ten.
    for exp in lo_exp..=hi_exp {
        let y = y_of(10f64.powi(exp));
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
            LEFT + plot_w
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            y + 4.0,
            format_seconds(exp)
        );
    }
    // X ticks.
    let step = nice_step(n_max);
    let mut tick = 0;
    while tick <= n_max {
        let x = x_of(tick as f64);
        let _ = writeln!(
            svg,
            r##"<line x1="{x:.1}" y1="{TOP}" x2="{x:.1}" y2="{:.1}" stroke="#eee"/>"##,
            TOP + plot_h
        );
        let _ = writeln!(
            svg,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{tick}</text>"#,
            TOP + plot_h + 16.0
        );
        tick += step;
    }
    let _ = writeln!(
        svg,
        r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">number of correct results</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 15.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">time per task (s, log scale)</text>"#,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0
    );
    // Curves and legend.
    for (idx, (s, times)) in curves.iter().enumerate() {
        let color = COLORS[idx % COLORS.len()];
        let dash = if s.reference {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        if !times.is_empty() {
            let points: Vec<String> = times
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{:.1},{:.1}", x_of((i + 1) as f64), y_of(*t)))
                .collect();
            let _ = writeln!(
                svg,
                r#"<polyline fill="none" stroke="{color}" stroke-width="2"{dash} points="{}"/>"#,
                points.join(" ")
            );
            for p in points.iter().filter(|_| times.len() <= 60) {
                let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
                let _ = writeln!(svg, r#"<circle cx="{x}" cy="{y}" r="2.5" fill="{color}"/>"#);
            }
        }
        let ly = TOP + 10.0 + 20.0 * idx as f64;
        let lx = WIDTH - RIGHT + 15.0;
        let _ = writeln!(
            svg,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/>"#,
            lx + 25.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{}">{} ({})</text>"#,
            lx + 32.0,
            ly + 4.0,
            escape(&s.label),
            times.len()
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn nice_step(n: usize) -> usize {
    for step in [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000] {
        if n / step <= 10 {
            return step;
        }
    }
    n / 10
}

fn format_seconds(exp: i32) -> String {
    if exp >= 0 {
        format!("{}", 10u64.pow(exp as u32))
    } else {
        format!("{}", 10f64.powi(exp))
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::classify::Class;
    use crate::bench::table::Entry;

    #[test]
    fn draws_one_polyline_per_nonempty_series() {
        let entry = |class, cpu_s| Entry {
            class,
            reason: None,
            cpu_s,
            max_rss_kb: None,
        };
        let a = Series {
            label: "a<b".into(),
            reference: false,
            entries: [
                ("x".into(), entry(Class::CorrectTrue, 0.5)),
                ("y".into(), entry(Class::CorrectTrue, 3.0)),
            ]
            .into(),
        };
        let b = Series {
            label: "peer".into(),
            reference: true,
            entries: [("x".into(), entry(Class::Unknown, 0.5))].into(),
        };
        let svg = quantile_svg("t", &[a, b]);
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert!(svg.contains("a&lt;b (2)"));
        assert!(svg.contains("peer (0)"));
    }
}
