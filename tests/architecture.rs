//! The layering docs/ARCHITECTURE.md draws, checked against the crates' manifests: each svc
//! crate may use only the svc crates its row names, so an arrow the wrong way (the client on
//! the server, a front end on the store) fails here as well as in review.

use std::collections::BTreeMap;

/// Each crate of the workspace and the svc crates it may use (docs/ARCHITECTURE.md's table).
const LAYERS: &[(&str, &[&str])] = &[
    ("svc-model", &[]),
    ("svc-outbound", &[]),
    ("svc-datafiles", &["svc-model"]),
    ("svc-adif", &["svc-model"]),
    ("svc-store", &["svc-model"]),
    ("svc-pota", &["svc-model", "svc-outbound", "svc-datafiles"]),
    (
        "svc-client",
        &["svc-model", "svc-adif", "svc-outbound", "svc-datafiles"],
    ),
    (
        "svc-server",
        &[
            "svc-model",
            "svc-store",
            "svc-pota",
            "svc-datafiles",
            "svc-adif",
        ],
    ),
    (
        "svc-tui",
        &["svc-model", "svc-client", "svc-pota", "svc-datafiles"],
    ),
    (
        "svc-cli",
        &["svc-model", "svc-client", "svc-pota", "svc-adif"],
    ),
    (
        "svc-mcp",
        &["svc-cli", "svc-model", "svc-client", "svc-pota"],
    ),
];

/// Every workspace crate with the svc crates its manifest names (dev-dependencies too: a
/// test on a higher layer would pull it in all the same).
fn workspace() -> BTreeMap<String, Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let uses = package["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|d| d["name"].as_str())
                .filter(|name| name.starts_with("svc-"))
                .map(str::to_owned)
                .collect();
            (package["name"].as_str().unwrap().to_owned(), uses)
        })
        .collect()
}

#[test]
fn every_crate_uses_only_the_layers_below_it_that_its_row_allows() {
    let crates = workspace();
    let allowed: BTreeMap<&str, &[&str]> = LAYERS.iter().copied().collect();
    for (name, uses) in &crates {
        if name == "svc" {
            continue;
        }
        let Some(may) = allowed.get(name.as_str()) else {
            panic!(
                "{name} is not in the layering: give it a row in tests/architecture.rs and docs/ARCHITECTURE.md"
            );
        };
        for used in uses {
            assert!(
                may.contains(&used.as_str()),
                "{name} uses {used}, which its layer may not (docs/ARCHITECTURE.md)"
            );
        }
    }
    for (name, _) in LAYERS {
        assert!(
            crates.contains_key(*name),
            "{name} is in the table but not in the workspace"
        );
    }
    // The binary wires every crate together; nothing else may use it.
    assert!(crates.contains_key("svc"));
}

#[test]
fn the_client_and_the_server_never_meet_but_in_the_model() {
    let crates = workspace();
    let reaches = |from: &str, to: &str| {
        let mut seen = vec![from.to_owned()];
        let mut i = 0;
        while i < seen.len() {
            for used in crates.get(&seen[i]).into_iter().flatten() {
                if !seen.contains(used) {
                    seen.push(used.clone());
                }
            }
            i += 1;
        }
        seen.iter().any(|c| c == to)
    };
    for (from, to) in [
        ("svc-client", "svc-server"),
        ("svc-server", "svc-client"),
        ("svc-tui", "svc-store"),
        ("svc-tui", "svc-server"),
        ("svc-cli", "svc-store"),
        ("svc-cli", "svc-server"),
        ("svc-mcp", "svc-server"),
        ("svc-model", "svc-store"),
    ] {
        assert!(!reaches(from, to), "{from} reaches {to}");
    }
}
