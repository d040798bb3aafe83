//! The `polyfocus` command line: parses arguments, runs, and maps the outcome to an exit code.

fn main() {
    std::process::exit(polyfocus::cli::run());
}
