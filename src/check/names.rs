//! Function names as the source spells them.
//!
//! LLVM's names carry suffixes the source does not have: linking two modules that each
//! define a `static` function `html_render` renames one `html_render.2684`, and LLVM's
//! passes name clones `f.constprop.0` or `f.llvm.123`. A C identifier has no `.`, so the
//! source name is what comes before the first one. Two functions of the report that share
//! a source name are told apart by the file that defines them (`html_render (render.c)`),
//! and by their LLVM name when that is not enough.

use std::collections::BTreeMap;
use std::path::Path;

/// The source name of an LLVM function name: `html_render.2684` → `html_render`.
pub fn source_name(llvm: &str) -> &str {
    match llvm.find('.') {
        Some(at) if at > 0 => &llvm[..at],
        _ => llvm,
    }
}

/// The readable name of each function of a program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionNames {
    /// LLVM name → readable name, for the functions whose source name is shared.
    shared: BTreeMap<String, String>,
}

impl FunctionNames {
    /// The names of `functions`, each an LLVM name with the file that defines it (when the
    /// debug info says).
    pub fn new<'a>(functions: impl IntoIterator<Item = (&'a str, Option<&'a str>)>) -> Self {
        let mut by_source: BTreeMap<&str, BTreeMap<&str, Option<&str>>> = BTreeMap::new();
        for (llvm, file) in functions {
            let slot = by_source
                .entry(source_name(llvm))
                .or_default()
                .entry(llvm)
                .or_insert(None);
            if slot.is_none() {
                *slot = file;
            }
        }
        let mut shared = BTreeMap::new();
        for (source, defs) in by_source.into_iter().filter(|(_, d)| d.len() > 1) {
            // A file name tells them apart when each has a file of its own: the base name,
            // or the whole path when base names repeat too.
            let base = |f: &str| {
                Path::new(f)
                    .file_name()
                    .map_or_else(|| f.to_string(), |b| b.to_string_lossy().into_owned())
            };
            let distinct = |name: &dyn Fn(&str) -> String| {
                let mut seen = std::collections::BTreeSet::new();
                defs.values()
                    .all(|f| f.is_some_and(|f| seen.insert(name(f))))
            };
            let by_file: Option<&dyn Fn(&str) -> String> = if distinct(&base) {
                Some(&base)
            } else if distinct(&|f: &str| f.to_string()) {
                Some(&|f: &str| f.to_string())
            } else {
                None
            };
            for (llvm, file) in &defs {
                let readable = match (by_file, file) {
                    (Some(name), Some(f)) => format!("{source} ({})", name(f)),
                    _ => llvm.to_string(),
                };
                shared.insert(llvm.to_string(), readable);
            }
        }
        FunctionNames { shared }
    }

    /// The names of a module's functions: those it analyzes, with the file of their
    /// definition, and those its checks and warnings name.
    pub fn of_module(module: &crate::ir::Module) -> Self {
        fn file(f: &crate::ir::Function) -> Option<&str> {
            f.loc.as_ref().map(|l| l.file.as_str())
        }
        FunctionNames::new(
            module
                .functions
                .iter()
                .map(|f| (f.name.as_str(), file(f)))
                .chain(module.checks.iter().map(|c| (c.function.as_str(), None)))
                .chain(module.warnings.iter().map(|w| (w.function.as_str(), None))),
        )
    }

    /// The readable name of the function LLVM calls `llvm`.
    pub fn readable<'a>(&'a self, llvm: &'a str) -> &'a str {
        self.shared
            .get(llvm)
            .map_or_else(|| source_name(llvm), String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_of_llvm_are_dropped() {
        assert_eq!(source_name("html_render.2684"), "html_render");
        assert_eq!(source_name("f.constprop.0"), "f");
        assert_eq!(source_name("main"), "main");
        assert_eq!(source_name(".hidden"), ".hidden");
        let names = FunctionNames::new([("html_render.2684", Some("src/html.c"))]);
        assert_eq!(names.readable("html_render.2684"), "html_render");
        assert_eq!(names.readable("not_listed.3"), "not_listed");
    }

    #[test]
    fn statics_that_share_a_name_are_told_apart_by_their_file() {
        let names = FunctionNames::new([
            ("S_render", Some("src/html.c")),
            ("S_render.12", Some("src/latex.c")),
            ("main", Some("src/main.c")),
        ]);
        assert_eq!(names.readable("S_render"), "S_render (html.c)");
        assert_eq!(names.readable("S_render.12"), "S_render (latex.c)");
        assert_eq!(names.readable("main"), "main");
        // Same base name in two directories: the path; no file at all: the LLVM name.
        let names = FunctionNames::new([
            ("init", Some("a/util.c")),
            ("init.1", Some("b/util.c")),
            ("step", None),
            ("step.7", Some("b/util.c")),
        ]);
        assert_eq!(names.readable("init"), "init (a/util.c)");
        assert_eq!(names.readable("init.1"), "init (b/util.c)");
        assert_eq!(names.readable("step"), "step");
        assert_eq!(names.readable("step.7"), "step.7");
    }
}
