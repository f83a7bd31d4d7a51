//! Links the `svc` binary with packed relative relocations (RELR): the dynamic loader then
//! reads a few kilobytes of relocations at start-up instead of about 750 KB, which keeps
//! short commands such as `svc whoami` small in memory while the binary stays
//! position-independent.

fn main() {
    let linux_gnu = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && std::env::var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if linux_gnu {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
