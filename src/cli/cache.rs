//! The cache of per-function results on disk (`--cache DIR`, `--no-cache`, `--cache-clear`):
//! one file per entry, `DIR/functions/ab/abcd….json` under its key (see
//! `driver::cache`), written to a temporary file in the same folder and renamed, so a
//! reader sees a whole entry or none, and runs at once (or sharing the folder over a
//! network file system) never see half an entry.
//!
//! The default folder is the user's cache directory: `$POLYFOCUS_CACHE` when set (`off`:
//! no cache), else `$XDG_CACHE_HOME/polyfocus`, else `~/.cache/polyfocus`. The build's
//! identity in every key is the executable's size and modification time, so a development
//! build never reads the results of another build with the same version number.

use crate::check::CacheUse;
use crate::driver::cache::{FunctionStore, Key};
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Where per-function results are kept between runs.
#[derive(Args, Debug, Clone)]
pub struct CacheArgs {
    /// Keep each function's results in DIR and reuse them while the function, the
    /// functions it calls and the configuration are unchanged (default: the user's cache
    /// directory, $XDG_CACHE_HOME/polyfocus or ~/.cache/polyfocus).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Analyze every function: read and write no cache.
    #[arg(long, conflicts_with = "cache")]
    no_cache: bool,
    /// Remove every entry of the cache before the run.
    #[arg(long, conflicts_with = "no_cache")]
    cache_clear: bool,
}

impl CacheArgs {
    /// The store these arguments name, emptied with `--cache-clear`; `None` with
    /// `--no-cache`, or when there is no default folder.
    pub fn open(&self) -> Result<Option<DirStore>> {
        if self.no_cache {
            return Ok(None);
        }
        let Some(dir) = self.cache.clone().or_else(default_dir) else {
            return Ok(None);
        };
        let Some(build) = build_identity() else {
            eprintln!("warning: the executable cannot be identified; results are not cached");
            return Ok(None);
        };
        let store = DirStore {
            entries: dir.join("functions"),
            build,
            write_failed: AtomicBool::new(false),
        };
        if self.cache_clear && store.entries.exists() {
            std::fs::remove_dir_all(&store.entries)
                .with_context(|| format!("clearing the cache {}", store.entries.display()))?;
        }
        Ok(Some(store))
    }
}

/// The default folder, from the environment (see the module's docs).
fn default_dir() -> Option<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("POLYFOCUS_CACHE") {
        return (dir != "off").then(|| PathBuf::from(dir));
    }
    if let Some(xdg) = var("XDG_CACHE_HOME") {
        return Some(PathBuf::from(xdg).join("polyfocus"));
    }
    var("HOME").map(|home| PathBuf::from(home).join(".cache").join("polyfocus"))
}

/// The running executable's size and modification time.
fn build_identity() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(format!(
        "{} bytes, modified {}",
        meta.len(),
        modified.as_nanos()
    ))
}

/// Entries as files in a folder.
pub struct DirStore {
    /// `DIR/functions`.
    entries: PathBuf,
    build: String,
    /// A write failed and was reported: later failures are silent.
    write_failed: AtomicBool,
}

impl DirStore {
    fn path(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.entries.join(&hex[..2]).join(format!("{hex}.json"))
    }

    fn try_write(&self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        let dir = path.parent().expect("an entry is in a folder");
        std::fs::create_dir_all(dir)?;
        let mut file = tempfile::NamedTempFile::new_in(dir)?;
        file.write_all(bytes)?;
        file.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl FunctionStore for DirStore {
    fn build(&self) -> &str {
        &self.build
    }

    fn read(&self, key: &Key) -> Option<Vec<u8>> {
        std::fs::read(self.path(key)).ok()
    }

    fn write(&self, key: &Key, bytes: &[u8]) {
        let path = self.path(key);
        if let Err(e) = self.try_write(&path, bytes) {
            if !self.write_failed.swap(true, Ordering::Relaxed) {
                eprintln!(
                    "warning: cannot write to the cache {}: {e}; results are not kept",
                    self.entries.display()
                );
            }
        }
    }

    fn refuse(&self, key: &Key, why: &str) {
        let path = self.path(key);
        eprintln!(
            "warning: ignoring the cache entry {}: {why}",
            path.display()
        );
        let _ = std::fs::remove_file(path);
    }
}

/// The progress line of a run with a cache: how many functions came from it.
pub fn report_use(used: CacheUse) {
    eprintln!(
        "polyfocus: cache: {} functions from the cache, {} analyzed ({} stored)",
        used.from_cache, used.analyzed, used.stored
    );
}
