//! The examples in the docs are what restop prints.

use restop::demo::DemoSource;
use restop::model::DetailScope;
use restop::model::filter::Filter;
use restop::output::render_json;
use restop::source::{CollectRequest, Source};
use std::time::Duration;

/// The first fenced block tagged `json` after `heading` in a Markdown file.
fn json_block_after(markdown: &str, heading: &str) -> serde_json::Value {
    let section = &markdown[markdown.find(heading).expect("heading")..];
    let start = section.find("```json\n").expect("json block") + "```json\n".len();
    let end = section[start..].find("\n```").expect("end of block") + start;
    serde_json::from_str(&section[start..end]).expect("example is valid JSON")
}

#[test]
fn json_md_example_is_the_demo_output() {
    let markdown = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let mut example = json_block_after(&markdown, "## Example");
    // `restop --demo --json --dev mlx5_3`: seed 1, the default 2 s step.
    let snapshot = DemoSource::new(1, Duration::from_secs(2))
        .collect(&CollectRequest {
            details: DetailScope::ErrorsOnly,
            force_objects: true,
        })
        .unwrap();
    let filter = Filter {
        device: Some("mlx5_3".into()),
        ..Filter::default()
    };
    let mut actual = serde_json::to_value(render_json(&snapshot, &filter)).unwrap();
    // A version bump alone does not make the example wrong.
    example["meta"]["restop_version"] = serde_json::Value::Null;
    actual["meta"]["restop_version"] = serde_json::Value::Null;
    assert_eq!(
        example, actual,
        "docs/json.md's example is stale: regenerate it with `restop --demo --json --dev mlx5_3`"
    );
}

#[test]
fn json_md_groups_example_is_the_demo_output() {
    let markdown = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md"))
        .expect("docs/json.md");
    let example = json_block_after(&markdown, "### `groups[]`");
    // `restop --demo --json --group pod --dev mlx5_2 | jq .groups`.
    let snapshot = DemoSource::new(1, Duration::from_secs(2))
        .collect(&CollectRequest {
            details: DetailScope::ErrorsOnly,
            force_objects: true,
        })
        .unwrap();
    let filter = Filter {
        device: Some("mlx5_2".into()),
        ..Filter::default()
    };
    let document = restop::output::render_json_grouped(
        &snapshot,
        &filter,
        &Default::default(),
        restop::model::owner_group::OwnerGroup::Pod,
    );
    let actual = serde_json::to_value(document).unwrap();
    assert_eq!(
        example, actual["groups"],
        "docs/json.md's groups example is stale: regenerate it with \
         `restop --demo --json --group pod --dev mlx5_2 | jq .groups`"
    );
}
