//! Links the `svc` binary for a small start-up on x86-64 Linux:
//! - packed relative relocations (RELR): the dynamic loader reads a few kilobytes of
//!   relocations at start-up instead of about 750 KB, while the binary stays
//!   position-independent;
//! - in a release build, the functions that short commands run (`link/startup.order`,
//!   written by `link/update-startup-order`) placed side by side: the kernel maps a binary's
//!   code 64 KB around each page touched, so scattered start-up code kept most of the 25 MB
//!   `.text` in memory for `svc whoami`. Rust's x86-64 Linux target links with LLD, which
//!   reads the list; names it no longer finds are skipped quietly, and without the file the
//!   build links as before.

use std::env::var;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux_gnu = var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux")
        && var("CARGO_CFG_TARGET_ENV").as_deref() == Ok("gnu");
    if !linux_gnu {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    let release = var("PROFILE").as_deref() == Ok("release");
    if release && var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("x86_64") {
        let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("link/startup.order");
        println!("cargo:rerun-if-changed={}", order.display());
        if !order.exists() {
            return;
        }
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}
