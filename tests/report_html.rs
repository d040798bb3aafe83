//! The HTML report rendered by a real headless browser (Debian's `chromium`,
//! installed by `scripts/setup`): the DOM after rendering has each assertion's mark on its
//! own source line, the loop invariant beside the loop head and the counterexample's steps
//! beside the lines they run through, and a screenshot is taken.
//!
//! Without chromium the test fails under CI (`CI` set) and says SKIPPED otherwise.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `chromium` on the PATH, if any.
fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("chromium"))
        .find(|p| p.is_file())
}

/// Runs headless chromium on `page` with `extra` arguments; its standard output. A browser
/// that hangs is killed after a minute (the test then fails).
fn run_chromium(browser: &Path, profile: &Path, page: &Path, extra: &[&str]) -> String {
    let out_file = profile.join("stdout.txt");
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.join("profile").display()
        ))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium did not finish within a minute");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "chromium exited with {status}");
    std::fs::read_to_string(&out_file).unwrap()
}

/// The serialized element of the source line with id `id`: from its opening tag to the
/// next line (lines are siblings).
fn line_element<'a>(dom: &'a str, id: &str) -> &'a str {
    let key = format!("id=\"{id}\"");
    let at = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no element {id} in the DOM"));
    let start = dom[..at].rfind('<').unwrap();
    let rest = &dom[at..];
    let end = rest.find("<div class=\"line").map_or(dom.len(), |e| at + e);
    &dom[start..end]
}

fn class_of(element: &str) -> &str {
    let tag_end = element.find('>').unwrap();
    let tag = &element[..tag_end];
    let c = tag.find("class=\"").expect("a class") + 7;
    let len = tag[c..].find('"').unwrap();
    &tag[c..c + len]
}

#[test]
fn html_report_renders_with_marks_on_the_right_lines() {
    let Some(browser) = chromium() else {
        common::skip_unless_ci(
            "report_html",
            "chromium is not installed (scripts/setup installs it)",
        );
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = common::program("report_mixed.c");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .args(["check", "--format", "html", "-o"])
        .arg(&page)
        .arg("-I")
        .arg(root.join("runtime"))
        .arg(&program)
        .output()
        .expect("polyfocus runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "a violated assertion exits 1: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    // Self-contained: nothing is fetched.
    for outside in ["http://", "https://", "<link", " src="] {
        assert!(!html.contains(outside), "the page refers to {outside}");
    }

    let dom = run_chromium(&browser, dir.path(), &page, &["--dump-dom"]);
    // The inline script ran over the rendered page: three marked lines.
    assert!(
        dom.contains("data-marked-lines=\"3\""),
        "the script did not count 3 marked lines:\n{dom}"
    );
    for (line, verdict) in [(13, "proved"), (14, "unknown"), (15, "violated")] {
        let element = line_element(&dom, &format!("p0-f0-L{line}"));
        assert!(
            class_of(element)
                .split(' ')
                .any(|c| c == format!("line-{verdict}")),
            "line {line} is not marked {verdict}: {element}"
        );
        assert!(
            element.contains(&format!("data-verdict=\"{verdict}\"")),
            "line {line} has no {verdict} mark: {element}"
        );
    }
    // The unknown assertion carries its reason.
    let unknown = line_element(&dom, "p0-f0-L14");
    assert!(unknown.contains("class=\"reason\""), "{unknown}");
    // No other line has a mark.
    for line in (1..=17).filter(|l| ![13, 14, 15].contains(l)) {
        let element = line_element(&dom, &format!("p0-f0-L{line}"));
        assert!(
            !element.contains("data-verdict"),
            "line {line} has a mark: {element}"
        );
    }
    // The loop invariant sits beside the loop head, named by its line.
    let head = line_element(&dom, "p0-f0-L9");
    assert!(class_of(head).contains("line-loop"), "{head}");
    assert!(head.contains("loop at line 9"), "{head}");
    assert!(
        !dom.contains("while.cond"),
        "an LLVM block name leaks into the page"
    );
    // The counterexample's steps sit beside the loop head with their values, and the last
    // step beside the violated assertion.
    assert!(
        head.contains("i=3 n=3"),
        "no step i=3 n=3 beside the loop head: {head}"
    );
    let violated = line_element(&dom, "p0-f0-L15");
    assert!(violated.contains("i=3"), "{violated}");
    // Source text is escaped, not interpreted.
    let comment = line_element(&dom, "p0-f0-L3");
    assert!(comment.contains("&lt;b&gt;escaped&lt;/b&gt;"), "{comment}");

    let png = dir.path().join("report.png");
    run_chromium(
        &browser,
        dir.path(),
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1200,900",
        ],
    );
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "not a screenshot of a rendered page ({} bytes)",
        bytes.len()
    );
    // Kept for people to look at, when asked.
    if let Some(keep) = std::env::var_os("POLYFOCUS_REPORT_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}
