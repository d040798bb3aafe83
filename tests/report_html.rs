//! The HTML report rendered by a real headless browser (Debian's `chromium`, installed by
//! `scripts/setup`): the DOM after rendering has each check's mark on its own source line,
//! the loop invariant beside the loop head and the counterexample's steps beside the lines
//! they run through; on a project of several directories, the page opens on the overview,
//! has one mark per check (its contexts merged), relative paths, source names of functions,
//! no source for files without findings, and filters; screenshots are taken.
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
    run_chromium_url(
        browser,
        profile,
        &format!("file://{}", page.display()),
        extra,
    )
}

/// [`run_chromium`] on an address.
fn run_chromium_url(browser: &Path, profile: &Path, url: &str, extra: &[&str]) -> String {
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
        .arg(url)
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
/// next line, run of unmarked lines or fold (they are siblings).
fn line_element<'a>(dom: &'a str, id: &str) -> &'a str {
    let key = format!("id=\"{id}\"");
    let at = dom
        .find(&key)
        .unwrap_or_else(|| panic!("no element {id} in the DOM"));
    let start = dom[..at].rfind('<').unwrap();
    let rest = &dom[at..];
    let end = [
        "\n<div class=\"line",
        "\n<div class=\"run\"",
        "\n<details class=\"gap\"",
        "\n</div>",
    ]
    .iter()
    .filter_map(|next| rest.find(next))
    .min()
    .map_or(dom.len(), |e| at + e);
    &dom[start..end]
}

/// `chromium`, or `None` after saying the test is skipped (a failure under CI).
fn chromium_or_skip() -> Option<PathBuf> {
    let browser = chromium();
    if browser.is_none() {
        common::skip_unless_ci(
            "report_html",
            "chromium is not installed (scripts/setup installs it)",
        );
    }
    browser
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
    let Some(browser) = chromium_or_skip() else {
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
    // No other line has a mark: one per check.
    assert_eq!(dom.matches("<div class=\"mk\"").count(), 3, "{dom}");
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
    // Source text is escaped, not interpreted; unmarked lines are numbered by the script.
    assert!(dom.contains("&lt;b&gt;escaped&lt;/b&gt;"), "{dom}");
    assert!(dom.contains("<pre class=\"ln\">1\n2\n3\n"), "{dom}");

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

/// Writes `text` to `dir/name`, creating its directory.
fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A project of three files in two directories, compiled from three directories through a
/// compilation database: a helper's assertion inlined twice, two `static` functions named
/// `render`, an array subscript, a violated assertion, and a file whose checks all hold.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "src/lib/util.c",
        "#include <assert.h>
static int table[8];
static int twice(int x) { assert(x != 12345); return x + x; }
int util_a(int v) { if (v < 0 || v > 100) return 0; return twice(v) + twice(v + 1); }
int util_b(int i) { if (i >= 0 && i <= 8) return table[i]; return 0; }
static int render(int x) { assert(x != 99); return x; }
int (*util_render)(int) = render;
",
    );
    write(
        root,
        "src/app/main.c",
        "#include <assert.h>
int util_a(int v);
int util_b(int i);
static int render(int y) { assert(y != 98); return y; }
int (*main_render)(int) = render;
int main(int argc, char **argv) {
  (void)argv;
  int r = util_a(argc);
  assert(r >= 0);
  assert(argc != 4);
  return r + util_b(argc);
}
",
    );
    write(
        root,
        "src/lib/clean.c",
        "#include <assert.h>
int clean_sum(void) {
  int s = 0;
  for (int i = 0; i < 10; i++) s += 1;
  assert(s == 10);
  return s;
}
",
    );
    let build = root.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let db = serde_json::json!([
        {
            "directory": build.display().to_string(),
            "command": "cc -c ../src/lib/util.c -o util.o",
            "file": "../src/lib/util.c",
        },
        {
            "directory": root.join("src/app").display().to_string(),
            "command": "cc -c main.c -o main.o",
            "file": "main.c",
        },
        {
            "directory": root.display().to_string(),
            "arguments": ["cc", "-c", root.join("src/lib/clean.c").display().to_string()],
            "file": root.join("src/lib/clean.c").display().to_string(),
        },
    ]);
    std::fs::write(build.join("compile_commands.json"), db.to_string()).unwrap();
    dir
}

/// The elements of the DOM that start with `<div class="mk"` inside the line `id`.
fn marks_of(dom: &str, id: &str) -> usize {
    line_element(dom, id).matches("<div class=\"mk\"").count()
}

#[test]
fn html_report_of_a_project_opens_on_the_overview_with_one_mark_per_check() {
    let Some(browser) = chromium_or_skip() else {
        return;
    };
    let dir = project();
    let root = dir.path();
    let page = root.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_polyfocus"))
        .current_dir(root)
        .args(["check", "-p", "build", "--checks", "assert,bounds"])
        .args(["--timeout", "10", "--format", "html", "-o"])
        .arg(&page)
        .output()
        .expect("polyfocus runs");
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.len() < 100_000, "{} bytes", html.len());
    // Paths relative to the source root whatever directory compiled them, in every kind.
    let root_text = root.display().to_string();
    assert!(!html.contains(&root_text), "an absolute path: {html}");
    assert!(
        !html.contains("../"),
        "a path relative to a build directory: {html}"
    );
    for file in ["src/lib/util.c", "src/app/main.c", "src/lib/clean.c"] {
        assert!(
            html.contains(&format!("data-file=\"{file}\"")),
            "{file}: {html}"
        );
    }
    // Source names of the functions, two statics told apart by their file.
    assert!(
        html.contains("render (util.c)") && html.contains("render (main.c)"),
        "{html}"
    );
    assert!(!html.contains("render."), "an LLVM suffix: {html}");
    // The file whose checks all hold is listed without its source.
    assert!(
        !html.contains("for (int i = 0; i &lt; 10; i++) s += 1;"),
        "{html}"
    );

    let dom = run_chromium(&browser, root, &page, &["--dump-dom"]);
    // The overview comes first: totals by kind, then the files, then the findings.
    let overview = dom.find("id=\"overview\"").expect("an overview");
    let first_file = dom.find("<details class=\"file\"").expect("file sections");
    assert!(overview < first_file);
    for part in [
        "id=\"totals\"",
        "<th>assertion</th>",
        "<th>bounds</th>",
        "id=\"files\"",
        "id=\"violations\"",
        "id=\"unknowns\"",
    ] {
        assert!(dom[overview..first_file].contains(part), "{part}: {dom}");
    }
    assert!(
        !dom[..first_file].contains("assertions:") && dom.contains(" checks ("),
        "the header counts checks of each kind: {dom}"
    );
    // util.c: ids by path order (main.c, clean.c, util.c). The helper's assertion, inlined
    // twice, is one mark with its contexts; the subscript's bounds check is there too.
    let util = "p0-f2";
    assert!(dom.contains(&format!("id=\"{util}\" data-file=\"src/lib/util.c\"")));
    assert_eq!(marks_of(&dom, &format!("{util}-L3")), 1, "{dom}");
    assert!(
        line_element(&dom, &format!("{util}-L3")).contains("contexts"),
        "{dom}"
    );
    assert!(
        line_element(&dom, &format!("{util}-L5")).contains("data-kind=\"bounds\""),
        "{dom}"
    );
    let clean = line_element(&dom, "p0-f1-L5");
    assert!(class_of(clean).contains("line-proved"), "{clean}");

    // Filters from the address: proved marks hidden, a line with only those muted.
    let filtered = format!("file://{}?hide=proved", page.display());
    let dom = run_chromium_url(&browser, root, &filtered, &["--dump-dom"]);
    let body = &dom[dom.find("<body").unwrap()..];
    assert!(
        body[..body.find('>').unwrap()].contains("hide-v-proved"),
        "{body}"
    );
    assert!(
        class_of(line_element(&dom, "p0-f1-L5")).contains("muted"),
        "{dom}"
    );

    let png = root.join("overview.png");
    run_chromium(
        &browser,
        root,
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            "--window-size=1400,1000",
        ],
    );
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000);
    if let Some(keep) = std::env::var_os("POLYFOCUS_PROJECT_SCREENSHOT") {
        std::fs::copy(&png, keep).unwrap();
    }
}
