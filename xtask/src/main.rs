//! `cargo xtask`: the project's tasks. All I/O around the generator lives here: fetching
//! NVIDIA's headers, provisioning libclang, writing or checking `generated/`, running the tests.

mod diff;
mod fuzz;
mod install;
mod python13;
mod regen;
mod sweep;
mod test_cmd;
mod wheel;

pub use cudagen_cli::{fetch, libclang, run, versions, HeaderSource};

use anyhow::Result;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "cudagen project tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Render every surface into generated/ (or --out), or compare with it (--check).
    Regen {
        #[command(flatten)]
        source: HeaderSource,
        /// Write here instead of generated/.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// Compare with the committed output; fail with a diff when stale.
        #[arg(long)]
        check: bool,
    },
    /// Print the IR as JSON.
    DumpIr {
        #[command(flatten)]
        source: HeaderSource,
        /// Only this library (`driver` or `nvrtc`).
        #[arg(long)]
        library: Option<String>,
        /// Stop after this pass (`docs`, `handles`, ... `python`, `naming`), to see a decision form.
        #[arg(long)]
        after: Option<String>,
    },
    /// Download the headers of a CUDA version and print where they are.
    Fetch {
        #[command(flatten)]
        source: HeaderSource,
    },
    /// Recompute the sha256 of every header in headers/versions.toml.
    Versions {
        #[arg(long)]
        update: bool,
    },
    /// Build the C shim (release) and install it as a C library under --prefix: lib/, include/cudagen/,
    /// lib/pkgconfig/cudagen.pc, lib/cmake/cudagen/.
    Install {
        #[arg(long, value_name = "DIR")]
        prefix: PathBuf,
        /// A folder `cudagen regen --out` wrote (its c/ crate) instead of generated/c (CUDA 12.9).
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
    },
    /// Show libclang, Python and cache state; provisions libclang when missing.
    Doctor,
    /// Markdown report of what changed between two releases (functions, ABI versions,
    /// parameters, enums, record layouts, typedefs, macros).
    Diff {
        /// The older release (`12.9`).
        old: String,
        /// The newer release (`13.0`).
        new: String,
        /// Write the report here instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Regenerate every release of headers/versions.toml into target/sweep, check coverage and
    /// `cargo check` each Rust crate.
    Sweep {
        /// Only these releases (`12.0 13.5`); every release when none is given.
        releases: Vec<String>,
    },
    /// The test command CI runs: freshness check, Rust, Python and C tests, release sweep.
    Test,
    /// The step of `test` that checks the newest 13.x release's Python surface against NVIDIA's
    /// cuda-bindings 13.x (regen into target/v13, debug build, oracle tests in .venv13).
    Python13,
    /// Boundary fuzz of every Python function (builds the wheel into .venv first).
    Fuzz {
        /// Random calls per function after the one-parameter sweep.
        #[arg(long, default_value_t = 200)]
        calls: u32,
        #[arg(long, default_value_t = 20261123)]
        seed: u64,
    },
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the repository").to_path_buf()
}

fn main() {
    let cli = Cli::parse();
    let paths = cudagen_cli::Paths {
        cache: root().join(".cache"),
        headers: root().join("headers"),
        libraries: root().join("libraries"),
        templates: root().join("templates"),
        runtime: root().join("runtime"),
    };
    cudagen_cli::set_paths(paths).expect("the first thing main does");
    let result: Result<()> = match cli.command {
        Command::Regen { source, out, check } => regen::regen(&source, out, check),
        Command::DumpIr { source, library, after } => regen::dump_ir(&source, library.as_deref(), after.as_deref()),
        Command::Fetch { source } => fetch::print(&source),
        Command::Versions { update } => fetch::versions_command(update),
        Command::Install { prefix, from } => install::install(&prefix, from.as_deref()),
        Command::Doctor => libclang::doctor(),
        Command::Diff { old, new, out } => diff::command(&old, &new, out),
        Command::Sweep { releases } => sweep::run(&releases),
        Command::Test => test_cmd::run_all(),
        Command::Python13 => python13::run(),
        Command::Fuzz { calls, seed } => fuzz::run(calls, seed),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
