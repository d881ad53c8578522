//! The pull-request comment as a page, for `scripts/comment-image` (which draws
//! `docs/comment.png`): reads a `report.md` on standard input and prints it as the HTML page
//! judge-ci's preview uses (comrak with GitHub's extensions, its pies drawn as SVG), so the
//! picture shows the comment as posted, folded sections folded.
//!
//! Usage: cargo run --example comment-page < judge-ci-out/report.md > comment.html

use std::io::Read;

fn main() -> std::io::Result<()> {
    let mut md = String::new();
    std::io::stdin().read_to_string(&mut md)?;
    print!(
        "{}",
        judge_ci::report::gfm::html_page(&md, "judge-ci · the pull-request comment")
    );
    Ok(())
}
