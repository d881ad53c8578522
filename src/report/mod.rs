//! Reports: the stored JSON model and the surfaces rendered from it.

pub mod check_run;
pub mod escape;
pub mod findings;
pub mod gfm;
pub mod icons;
pub mod junit;
pub mod location;
pub mod markdown;
mod model;
pub mod notices;
pub mod read;
pub mod reveal;
pub mod sarif;

pub use model::*;
pub use reveal::Revealed;

/// Every surface a report is rendered to (also `render --format`'s values: the report JSON
/// is written, never rendered, so it is not one of them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Surface {
    /// The PR comment (65,536-byte budget).
    Markdown,
    /// The job summary (1 MiB budget).
    Summary,
    /// A self-contained HTML page.
    Html,
    /// The check-run request bodies.
    CheckRun,
    /// JUnit XML.
    Junit,
    /// SARIF 2.1.0.
    Sarif,
    /// The report JSON itself.
    #[value(skip)]
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

/// Why a surface could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// The markdown template did not render.
    #[error(transparent)]
    Template(#[from] markdown::TemplateError),
    /// A JSON surface could not be serialised (never an empty file in its place).
    #[error("cannot write {file}: {source}")]
    Json {
        /// The surface's file name.
        file: &'static str,
        /// What serde_json refused.
        #[source]
        source: serde_json::Error,
    },
}

/// A JSON surface, pretty-printed.
fn json(surface: Surface, value: &impl serde::Serialize) -> Result<String, RenderError> {
    serde_json::to_string_pretty(value).map_err(|source| RenderError::Json {
        file: surface.file_name(),
        source,
    })
}

/// Renders one surface of a [`Revealed`] report (what `reveal:` lets the pull request's
/// author read, decided in [`reveal`] and nowhere else). `template` overrides the markdown
/// template; `annotations` caps the check run's annotations.
pub fn render(
    r: &Revealed,
    surface: Surface,
    template: Option<&str>,
    annotations: usize,
) -> Result<String, RenderError> {
    let md = |audience| markdown::render_for(r, template, audience);
    Ok(match surface {
        Surface::Markdown => gfm::truncate(
            &md(markdown::Audience::Comment)?,
            gfm::COMMENT_BUDGET,
            "the job summary and the report artifact",
        ),
        Surface::Summary => gfm::truncate(
            &md(markdown::Audience::Summary)?,
            gfm::JOB_SUMMARY_BUDGET,
            "the report artifact (report.json)",
        ),
        Surface::Html => gfm::html_page(
            &md(markdown::Audience::Html)?,
            &format!("judge-ci · {}", r.config.name),
        ),
        Surface::CheckRun => json(surface, &check_run::payload(r, annotations))?,
        Surface::Junit => junit::junit(r),
        Surface::Sarif => json(surface, &sarif::sarif(r))?,
        Surface::Json => json(surface, &**r)?,
    })
}
