use std::process::ExitCode;

fn main() -> ExitCode {
    svc::cmd::main()
}
