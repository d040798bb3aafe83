//! The `polyfocus` command line: parses arguments, runs, and maps the outcome to an exit code.

fn main() {
    polyfocus::interrupt::install();
    std::process::exit(polyfocus::cli::run());
}
