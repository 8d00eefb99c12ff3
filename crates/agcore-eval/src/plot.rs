//! `--plot FILE.svg`: recall@k curves of every retriever, drawn with plotters.

use std::path::Path;

use plotters::prelude::*;

use super::metrics::CURVE_DEPTH;
use super::report::Report;
use crate::EvalError;

/// Line colours, one per retriever in report order (repeats after eight).
const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Draws recall@k (k = 1 … 50) of the headline group of every retriever in
/// `report` into an SVG file at `path`.
///
/// # Errors
/// [`EvalError::Io`] when the file cannot be written.
pub fn recall_curves(path: &Path, report: &Report) -> Result<(), EvalError> {
    draw(path, report).map_err(|e| {
        EvalError::Io(std::io::Error::other(format!(
            "cannot draw {}: {e}",
            path.display()
        )))
    })
}

fn draw(path: &Path, report: &Report) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE)?;
    let group = report
        .results
        .first()
        .map_or_else(String::new, |r| r.overall.label.clone());
    let caption = format!(
        "recall@k · {} ({} {}) · {}",
        report.dataset,
        if report.dataset == "locomo" {
            "categories"
        } else {
            "queries"
        },
        group,
        report.embedder.as_deref().unwrap_or("no embedder")
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(1u32..u32::try_from(CURVE_DEPTH)?, 0f64..1f64)?;
    chart
        .configure_mesh()
        .x_desc("k")
        .y_desc("recall@k")
        .draw()?;
    for (i, r) in report.results.iter().enumerate() {
        let colour = COLOURS.get(i % COLOURS.len()).copied().unwrap_or(BLACK);
        let points: Vec<(u32, f64)> = r
            .overall
            .recall_curve
            .iter()
            .enumerate()
            .filter_map(|(k, v)| u32::try_from(k + 1).ok().map(|k| (k, *v)))
            .collect();
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))?
            .label(r.retriever)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
