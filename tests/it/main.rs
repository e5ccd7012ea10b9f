//! restop's integration tests, one binary (as ripgrep and bottom do): each file is a
//! module named for what it tests; shared helpers live in `common` (a hand-built host),
//! `tui_common` (an app fed with a small host), `support` (fake kernel and /proc) and
//! `vm_support` (the real-kernel harness).

// Tests and their helpers may unwrap, expect and panic: a failed assumption is the failure to
// report (clippy.toml allows it inside test functions; this covers the shared helpers too). A
// test that reads as one specification may be long.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::too_many_lines
)]
// A test binary offers nothing outside itself: `pub` here marks what sibling modules share,
// so the library's wall against unreachable `pub` does not apply.
#![allow(unreachable_pub)]

mod batch_cli;
mod batch_loop;
mod cli_binary;
mod common;
mod config_file;
mod counters_bound;
mod demo_source;
mod demo_timeline;
mod deploy_artifacts;
mod deploy_build_info;
mod deploy_helm;
mod deploy_lifecycle;
mod deploy_manifests;
mod deploy_no_rdma;
mod deploy_release;
mod docs_examples;
mod export_assets;
mod export_attack;
mod export_cli;
mod export_exposition;
mod export_http;
mod export_prometheus;
mod export_scale;
mod export_signals;
mod export_textfile;
mod export_tls;
mod export_tls_attack;
mod fleet_direct;
mod fleet_errors;
mod fleet_prometheus;
mod fleet_rules;
mod fleet_sparklines;
mod fleet_terminal;
mod fleet_view;
mod harden_bounds;
mod harden_record;
mod harden_replay;
mod harden_scale;
mod harden_signals;
mod harden_signals_netlink;
mod harden_textfile;
mod kube_join;
mod kube_owners;
mod limits_live;
mod limits_output;
mod limits_tui;
mod live_phases;
mod live_source;
mod monitor_events;
mod netdev_vm;
mod netns_live;
mod netns_vm;
mod nldev_captures;
mod nldev_proptest;
mod nldev_stat;
mod nldev_synthetic;
mod output_counters;
mod output_demo;
mod output_docs;
mod output_filters;
mod output_groups;
mod output_json;
mod output_once;
mod problems_reports;
mod procfs_core_stat;
mod procfs_reader;
mod record_counters;
mod record_damage;
mod record_disk_full;
mod record_replay_keys;
mod record_replay_terminal;
mod record_roundtrip;
mod record_stress;
mod support;
mod textfile_attack;
mod trends_alert_since;
mod trends_demo;
mod trends_history;
mod trends_json;
mod trends_tui;
mod tui_common;
mod tui_counters;
mod tui_drawn_layout;
mod tui_grouping;
mod tui_keys_terminal;
mod tui_many_devices;
mod tui_problems;
mod tui_render;
mod tui_signal;
mod tui_signal_send;
mod tui_signal_terminal;
mod tui_sizes;
mod tui_space;
mod tui_state;
mod tui_terminal;
mod tui_terminal_counters;
mod tui_terminal_hangup;
mod tui_terminal_jobs;
mod tui_view;
mod vm_counters;
mod vm_counters_tui;
mod vm_e2e;
mod vm_leak;
mod vm_lifecycle;
mod vm_perf;
mod vm_support;
