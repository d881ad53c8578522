//! Reports: the stored JSON model and the surfaces rendered from it.

pub mod budget;
pub mod check_run;
pub mod escape;
pub mod findings;
pub mod icons;
pub mod junit;
pub mod location;
pub mod markdown;
mod model;
pub mod notices;
pub mod read;
pub mod sarif;

pub use model::*;

/// Every surface a report is rendered to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    /// The PR comment (cut to 65,536 bytes).
    Markdown,
    /// The job summary (cut to 1 MiB).
    Summary,
    /// A self-contained HTML preview.
    Html,
    /// The check-run request bodies.
    CheckRun,
    /// JUnit XML.
    Junit,
    /// SARIF 2.1.0.
    Sarif,
    /// The report JSON itself.
    Json,
}

impl Surface {
    /// Every surface, in the order files are written.
    pub const ALL: [Surface; 7] = [
        Surface::Json,
        Surface::Summary,
        Surface::Markdown,
        Surface::Html,
        Surface::CheckRun,
        Surface::Junit,
        Surface::Sarif,
    ];

    /// The file name in an out folder.
    pub fn file_name(self) -> &'static str {
        match self {
            Surface::Markdown => "report.md",
            Surface::Summary => "summary.md",
            Surface::Html => "report.html",
            Surface::CheckRun => "check-run.json",
            Surface::Junit => "junit.xml",
            Surface::Sarif => "report.sarif",
            Surface::Json => "report.json",
        }
    }
}

/// Renders one surface. `template` overrides the markdown template; `annotations` caps the
/// check run's annotations.
pub fn render(
    r: &Report,
    surface: Surface,
    template: Option<&str>,
    annotations: usize,
) -> Result<String, markdown::TemplateError> {
    let md = || markdown::render_with(r, template);
    Ok(match surface {
        Surface::Markdown => budget::truncate(
            &md()?,
            budget::COMMENT_BUDGET,
            "the job summary and the report artifact",
        ),
        Surface::Summary => budget::truncate(
            &md()?,
            budget::JOB_SUMMARY_BUDGET,
            "the report artifact (report.json)",
        ),
        Surface::Html => budget::html_page(&md()?, &format!("judge-ci · {}", r.config.name)),
        Surface::CheckRun => {
            serde_json::to_string_pretty(&check_run::payload(r, annotations)).unwrap_or_default()
        }
        Surface::Junit => junit::junit(r),
        Surface::Sarif => serde_json::to_string_pretty(&sarif::sarif(r)).unwrap_or_default(),
        Surface::Json => serde_json::to_string_pretty(r).unwrap_or_default(),
    })
}
