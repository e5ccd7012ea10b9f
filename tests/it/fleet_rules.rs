//! The fleet's recording rules (`assets/prometheus/restop-fleet-rules.yml`): every rule is one
//! that `restop fleet` reads, with the expression it sends inline when the rules are not
//! loaded, and promtool accepts and unit-tests the file. Skipped with a notice where promtool
//! is not installed.

use restop::fleet::prom::queries::RULES;
use std::path::Path;
use std::process::Command;

use crate::support::prometheus::on_path;

fn rules_file() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prometheus/restop-fleet-rules.yml"),
    )
    .unwrap()
}

#[test]
fn the_shipped_rules_are_the_fleets_own() {
    let text = rules_file();
    let records: Vec<(String, String)> = text
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .windows(2)
        .filter_map(|w| {
            let name = w[0].strip_prefix("- record: ")?;
            let expr = w[1].strip_prefix("expr: ")?;
            Some((name.to_string(), expr.to_string()))
        })
        .collect();
    let expected: Vec<(String, String)> = RULES
        .iter()
        .map(|(n, e)| (n.to_string(), e.to_string()))
        .collect();
    assert_eq!(records, expected);
}

#[test]
fn promtool_checks_and_unit_tests_the_rules() {
    let Some(promtool) = on_path("promtool") else {
        println!("skipped: promtool not installed (apt-get install prometheus)");
        return;
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prometheus");
    for args in [
        ["check", "rules", "restop-fleet-rules.yml"],
        ["test", "rules", "restop-fleet-rules.test.yml"],
    ] {
        let out = Command::new(&promtool)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
