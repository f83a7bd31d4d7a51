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
    ("svc-wsjtx", &["svc-model"]),
    ("svc-n1mm", &["svc-model"]),
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
        &[
            "svc-model",
            "svc-client",
            "svc-pota",
            "svc-datafiles",
            "svc-adif",
            "svc-wsjtx",
        ],
    ),
    (
        "svc-cli",
        &[
            "svc-model",
            "svc-client",
            "svc-pota",
            "svc-adif",
            "svc-wsjtx",
            "svc-n1mm",
        ],
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

/// The top-level modules of one crate's `src/` and the others each names (`crate::m`, or
/// `super::m` from a file at the top), outside comments and the tests at a file's end.
fn module_graph(src: &std::path::Path) -> BTreeMap<String, Vec<String>> {
    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    fn named(text: &str, prefix: &str) -> Vec<String> {
        text.match_indices(prefix)
            .map(|(at, _)| {
                text[at + prefix.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                    .collect::<String>()
            })
            .filter(|name| !name.is_empty())
            .collect()
    }
    let mut all = Vec::new();
    files(src, &mut all);
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in all {
        let relative = path.strip_prefix(src).unwrap().with_extension("");
        let mut parts: Vec<String> = relative
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        if matches!(
            parts.last().map(String::as_str),
            Some("mod" | "lib" | "main")
        ) {
            parts.pop();
        }
        let Some(top) = parts.first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let code: String = code
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut uses = named(&code, "crate::");
        if parts.len() == 1 {
            uses.extend(named(&code, "super::"));
            for (at, _) in code.match_indices("super::{") {
                let group = &code[at + 8..];
                let group = &group[..group.find('}').unwrap_or(group.len())];
                uses.extend(
                    group
                        .split(|c: char| !(c.is_ascii_lowercase() || c == '_'))
                        .filter(|w| !w.is_empty())
                        .map(str::to_owned),
                );
            }
        }
        let entry = graph.entry(top.clone()).or_default();
        entry.extend(uses.into_iter().filter(|u| *u != top));
    }
    let modules: Vec<String> = graph.keys().cloned().collect();
    for uses in graph.values_mut() {
        uses.retain(|u| modules.contains(u));
        uses.sort();
        uses.dedup();
    }
    graph
}

#[test]
fn no_module_of_a_crate_uses_one_that_uses_it_back() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![root.join("src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        sources.push(entry.path().join("src"));
    }
    for src in sources {
        let graph = module_graph(&src);
        for start in graph.keys() {
            // A path from `start` back to itself is a cycle: walk what it reaches.
            let mut stack: Vec<Vec<&String>> = vec![vec![start]];
            let mut seen: Vec<&String> = Vec::new();
            while let Some(path) = stack.pop() {
                let last = *path.last().unwrap();
                for next in &graph[last] {
                    if next == start {
                        let names: Vec<&str> = path.iter().map(|s| s.as_str()).collect();
                        panic!(
                            "{}: the modules {} → {start} use each other round; move what they share below them",
                            src.display(),
                            names.join(" → ")
                        );
                    }
                    if !seen.contains(&next) {
                        seen.push(next);
                        let mut longer = path.clone();
                        longer.push(next);
                        stack.push(longer);
                    }
                }
            }
        }
    }
}
