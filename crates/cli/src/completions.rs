//! `svc completions <shell>`: a completion script generated from the command tree.

use clap::Args;
use clap_complete::Shell;

use super::{CliError, Ctx};

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    shell: Shell,
}

pub fn run(ctx: &Ctx, args: &CompletionsArgs, root: &clap::Command) -> Result<(), CliError> {
    let mut cmd = root.clone();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "svc", &mut script);
    ctx.out(&String::from_utf8_lossy(&script))
}
