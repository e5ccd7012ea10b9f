//! The PromQL `restop fleet` sends. Each refresh is four instant queries, each aggregated on the
//! server (never a raw selector over every series): the hosts' facts, their problems, the
//! cluster's consumers, and (once, until found) whether the recording rules of
//! `assets/prometheus/restop-fleet-rules.yml` are loaded. With the rules, every refresh query
//! reads recorded series only: one or a few per exporter, the problems (recorded only while
//! they last) and the cluster's top lists (at most [`RECORDED_TOP`] per list); the raw
//! per-object and per-owner series are read by the rules, once per evaluation. Without them
//! the same expressions are sent inline.
//!
//! Every result series carries a `fact` label naming what it says (`label_replace`), so one
//! query answers several questions and `decode.rs` reads them all alike.

use crate::model::counters::catalog::health_signals;

/// The version of the rules file this restop reads; the file records it as
/// `restop:fleet_rules_version`, so an older file (without the series a refresh now reads) is
/// told from a current one.
pub const RULES_VERSION: u32 = 2;

/// How many consumers the recorded top lists keep: the view's default `--top`. A larger
/// `--top` sends its top lists inline.
pub const RECORDED_TOP: usize = 10;

/// The series the recording rules write, and the expressions they record. `rules.rs`'s test
/// checks the shipped rules file against this list.
pub const RULES: &[(&str, &str)] = &[
    ("restop:fleet_rules_version", "vector(2)"),
    (
        "restop:fleet_target_up",
        "up and on (instance, job) group by (instance, job) (last_over_time(restop_build_info[1h]))",
    ),
    (
        "restop:fleet_target_scrape_timestamp_seconds",
        "max without (source) (timestamp(restop_up))",
    ),
    (
        "restop:fleet_target_collecting",
        "max without (source) (restop_up)",
    ),
    // Per-device series summed per target (instance, job), the target's labels (what
    // --host-label names) taken from its `up`: a label the exporter adds to its device
    // series (netns, pod) never splits a target's count.
    (
        "restop:fleet_target_devices",
        "0 * up + on (instance, job) group_left () count by (instance, job) (restop_device_info)",
    ),
    (
        "restop:fleet_target_error_queue_pairs",
        "0 * up + on (instance, job) group_left () sum by (instance, job) (restop_error_queue_pairs)",
    ),
    (
        "restop:fleet_target_usage_ratio:top1",
        "topk by (instance, job) (1, restop_resources_usage_ratio)",
    ),
    (
        "restop:fleet_target_top_qp_consumer",
        "topk by (instance, job) (1, restop_process_resources{type=\"qp\", name!=\"other\"})",
    ),
    (
        "restop:fleet_pod_resources",
        "sum without (pid, name, user, container, uid, container_id) (restop_process_resources{pod!=\"\"})",
    ),
    // The error and congestion counters that moved over 5 minutes: the one range read of a
    // refresh, the costliest part over 1,000 hosts (docs/performance.md), recorded once per
    // evaluation. The alternation is `health_counter_regex()` (a test keeps them equal).
    (
        "restop:fleet_port_hw_counter_rate5m",
        "rate(restop_port_hw_stat_total{counter=~\"symbol_error|link_error_recovery|link_downed|port_rcv_errors|port_rcv_remote_physical_errors|port_rcv_switch_relay_errors|port_xmit_discards|port_xmit_constraint_errors|port_rcv_constraint_errors|local_link_integrity_errors|excessive_buffer_overrun_errors|VL15_dropped|duplicate_request|out_of_seq_request|rcvd_rnr_err|send_rnr_err|rcvd_seq_err|retry_exceeded_err|retry_rnr_exceeded_err|completer_retry_err|send_err|out_of_buffer|out_of_sequence|packet_seq_err|local_ack_timeout_err|rnr_nak_retry_err|implied_nak_seq_err|req_cqe_error|resp_cqe_error|req_remote_access_errors|resp_remote_access_errors|req_remote_invalid_request|resp_local_length_error|rx_icrc_encapsulated|roce_adp_retrans|roce_slow_restart|np_cnp_sent|rp_cnp_handled|rp_cnp_ignored|np_ecn_marked_roce_packets\"}[5m]) > 0",
    ),
    (
        "restop:fleet_port_pma_counter_rate5m",
        "rate(restop_port_pma_stat_total{counter=~\"symbol_error|link_error_recovery|link_downed|port_rcv_errors|port_rcv_remote_physical_errors|port_rcv_switch_relay_errors|port_xmit_discards|port_xmit_constraint_errors|port_rcv_constraint_errors|local_link_integrity_errors|excessive_buffer_overrun_errors|VL15_dropped|duplicate_request|out_of_seq_request|rcvd_rnr_err|send_rnr_err|rcvd_seq_err|retry_exceeded_err|retry_rnr_exceeded_err|completer_retry_err|send_err|out_of_buffer|out_of_sequence|packet_seq_err|local_ack_timeout_err|rnr_nak_retry_err|implied_nak_seq_err|req_cqe_error|resp_cqe_error|req_remote_access_errors|resp_remote_access_errors|req_remote_invalid_request|resp_local_length_error|rx_icrc_encapsulated|roce_adp_retrans|roce_slow_restart|np_cnp_sent|rp_cnp_handled|rp_cnp_ignored|np_ecn_marked_roce_packets\"}[5m]) > 0",
    ),
    // The problems read from per-object series, recorded only while they last: a refresh
    // reads the few problems, not every port's and device's series.
    ("restop:fleet_port_down", "restop_port_active == 0"),
    (
        "restop:fleet_device_error_queue_pairs",
        "restop_error_queue_pairs > 0",
    ),
    // The cluster's top lists, RECORDED_TOP each: the consumers query at `--top 10`, so a
    // refresh ranks at most ten series per list instead of every host's owners. The pods'
    // and namespaces' read `restop:fleet_pod_resources`, recorded before them in the same
    // group (Prometheus evaluates a group's rules in order): the owner series once, not
    // three times.
    (
        "restop:fleet_process_resources:top10",
        "topk by (type) (10, restop_process_resources{name!=\"other\"})",
    ),
    (
        "restop:fleet_process_mr_bytes:top10",
        "topk(10, restop_process_mr_bytes{name!=\"other\"})",
    ),
    (
        "restop:fleet_pod_resources:top10",
        "topk by (type) (10, restop:fleet_pod_resources)",
    ),
    (
        "restop:fleet_pod_mr_bytes:top10",
        "topk(10, sum without (pid, name, user, container, uid, container_id) (restop_process_mr_bytes{pod!=\"\"}))",
    ),
    (
        "restop:fleet_namespace_resources:top10",
        "topk by (type) (10, sum by (namespace, type) (restop:fleet_pod_resources))",
    ),
    (
        "restop:fleet_namespace_mr_bytes:top10",
        "topk(10, sum by (namespace) (restop_process_mr_bytes{namespace!=\"\"}))",
    ),
];

/// Whether the rules are loaded, at [`RULES_VERSION`] or later, and have recorded targets: a
/// sample above 0 says yes.
pub(crate) const RULES_PROBE: &str =
    "count(restop:fleet_target_up) and on () (restop:fleet_rules_version >= 2)";

/// How the queries are written: which label names a host, whether the recorded series exist,
/// and how many consumers per list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct QueryPlan {
    pub host_label: String,
    pub recorded: bool,
    pub top: usize,
}

impl QueryPlan {
    /// A recorded series by name, or its expression inline.
    fn series(&self, name: &str) -> String {
        if self.recorded {
            return name.to_string();
        }
        RULES
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(|| name.to_string(), |(_, expr)| format!("({expr})"))
    }

    /// Whether the consumers are read from the recorded top lists: the rules are loaded and
    /// `--top` asks for no more than they keep.
    pub(crate) fn recorded_top_lists(&self) -> bool {
        self.recorded && self.top <= RECORDED_TOP
    }

    /// `by (node, instance)`, or `by (instance)` when the host is its instance.
    fn host_and_instance(&self) -> String {
        if self.host_label == "instance" {
            "instance".into()
        } else {
            format!("{}, instance", self.host_label)
        }
    }

    fn host_and(&self, rest: &str) -> String {
        if self.host_label == "instance" {
            format!("instance, {rest}")
        } else {
            format!("{}, instance, {rest}", self.host_label)
        }
    }

    /// Per host and exporter: up, last scrape, restop_up, devices, ERROR QPs, leak suspects.
    pub(crate) fn hosts(&self) -> String {
        let by = self.host_and_instance();
        let facts = [
            ("up", self.series("restop:fleet_target_up")),
            (
                "scraped_at",
                self.series("restop:fleet_target_scrape_timestamp_seconds"),
            ),
            ("collecting", self.series("restop:fleet_target_collecting")),
            ("devices", self.series("restop:fleet_target_devices")),
            (
                "error_qps",
                self.series("restop:fleet_target_error_queue_pairs"),
            ),
            ("leak_suspects", "restop_leak_suspects".to_string()),
        ];
        union(
            facts
                .iter()
                .map(|(fact, expr)| tagged(fact, &format!("max by ({by}) ({expr})"))),
        )
    }

    /// Per host: the worst usage, ports down, error and congestion counters moving, ERROR QPs
    /// per device with the oldest one's age, and the leak suspects.
    pub(crate) fn problems(&self) -> String {
        let h = &self.host_label;
        let moving = |recorded: &str| {
            format!(
                "sum by ({}) ({})",
                self.host_and("device, port, counter"),
                self.series(recorded)
            )
        };
        union(
            [
                tagged(
                    "usage",
                    &format!(
                        "topk by ({h}) (1, {})",
                        self.series("restop:fleet_target_usage_ratio:top1")
                    ),
                ),
                tagged("port_down", &self.series("restop:fleet_port_down")),
                tagged(
                    "counter_rate",
                    &moving("restop:fleet_port_hw_counter_rate5m"),
                ),
                tagged(
                    "counter_rate",
                    &moving("restop:fleet_port_pma_counter_rate5m"),
                ),
                tagged(
                    "error_qps_device",
                    &self.series("restop:fleet_device_error_queue_pairs"),
                ),
                // Both exist only for a problem (a device with ERROR QPs, a suspect owner):
                // as few series as a recorded copy would be.
                tagged("error_qp_age", "restop_error_queue_pair_oldest_age_seconds"),
                tagged("suspect", "restop_process_leak_suspect"),
                tagged(
                    "top_consumer",
                    &format!(
                        "topk by ({h}) (1, {})",
                        self.series("restop:fleet_target_top_qp_consumer")
                    ),
                ),
            ]
            .into_iter(),
        )
    }

    /// Cluster-wide: the top processes, pods and namespaces per type and by MR bytes. From the
    /// recorded top lists when they hold `--top` consumers, else over every exporter's owners.
    pub(crate) fn consumers(&self) -> String {
        let n = self.top;
        let h = &self.host_label;
        let pods_by = format!("sum by ({h}, namespace, pod, type)");
        let pod_bytes_by = format!("sum by ({h}, namespace, pod)");
        let lists: [(&str, String); 6] = if self.recorded_top_lists() {
            [
                (
                    "process",
                    format!("topk by (type) ({n}, restop:fleet_process_resources:top10)"),
                ),
                (
                    "process_mr_bytes",
                    format!("topk({n}, restop:fleet_process_mr_bytes:top10)"),
                ),
                // Each pod's sum per host again, as inline: one series per pod while each
                // host has one exporter, the two exporters' sum otherwise.
                (
                    "pod",
                    format!("topk by (type) ({n}, {pods_by} (restop:fleet_pod_resources:top10))"),
                ),
                (
                    "pod_mr_bytes",
                    format!("topk({n}, {pod_bytes_by} (restop:fleet_pod_mr_bytes:top10))"),
                ),
                (
                    "namespace",
                    format!("topk by (type) ({n}, restop:fleet_namespace_resources:top10)"),
                ),
                (
                    "namespace_mr_bytes",
                    format!("topk({n}, restop:fleet_namespace_mr_bytes:top10)"),
                ),
            ]
        } else {
            let pods = self.series("restop:fleet_pod_resources");
            [
                (
                    "process",
                    format!("topk by (type) ({n}, restop_process_resources{{name!=\"other\"}})"),
                ),
                (
                    "process_mr_bytes",
                    format!("topk({n}, restop_process_mr_bytes{{name!=\"other\"}})"),
                ),
                ("pod", format!("topk by (type) ({n}, {pods_by} ({pods}))")),
                (
                    "pod_mr_bytes",
                    format!("topk({n}, {pod_bytes_by} (restop_process_mr_bytes{{pod!=\"\"}}))"),
                ),
                (
                    "namespace",
                    format!("topk by (type) ({n}, sum by (namespace, type) ({pods}))"),
                ),
                (
                    "namespace_mr_bytes",
                    format!(
                        "topk({n}, sum by (namespace) (restop_process_mr_bytes{{namespace!=\"\"}}))"
                    ),
                ),
            ]
        };
        union(lists.iter().map(|(fact, expr)| tagged(fact, expr)))
    }

    /// One host's detail: every device's usage, its problems and its consumers.
    pub(crate) fn detail(&self, host: &str) -> String {
        let sel = format!("{}=\"{}\"", self.host_label, escape_string(host));
        let counters = health_counter_regex();
        union(
            [
                tagged(
                    "usage_all",
                    &format!("restop_resources_usage_ratio{{{sel}}}"),
                ),
                tagged("port", &format!("restop_port_active{{{sel}}}")),
                tagged("port_down", &format!("restop_port_active{{{sel}}} == 0")),
                tagged(
                    "counter_rate",
                    &format!(
                        "sum by ({}) (rate(restop_port_hw_stat_total{{{sel}, counter=~\"{counters}\"}}[5m]) > 0)",
                        self.host_and("device, port, counter")
                    ),
                ),
                tagged(
                    "counter_rate",
                    &format!(
                        "sum by ({}) (rate(restop_port_pma_stat_total{{{sel}, counter=~\"{counters}\"}}[5m]) > 0)",
                        self.host_and("device, port, counter")
                    ),
                ),
                tagged(
                    "error_qps_device",
                    &format!("restop_error_queue_pairs{{{sel}}} > 0"),
                ),
                tagged(
                    "error_qp_age",
                    &format!("restop_error_queue_pair_oldest_age_seconds{{{sel}}}"),
                ),
                tagged("suspect", &format!("restop_process_leak_suspect{{{sel}}}")),
                tagged(
                    "process",
                    &format!("restop_process_resources{{{sel}, name!=\"other\"}}"),
                ),
                tagged(
                    "process_mr_bytes",
                    &format!("restop_process_mr_bytes{{{sel}, name!=\"other\"}}"),
                ),
            ]
            .into_iter(),
        )
    }

    /// The worst usage of each named host over time, for the sparklines of visible rows.
    pub(crate) fn usage_sparklines(&self, hosts: &[String]) -> String {
        let h = &self.host_label;
        let names: Vec<String> = hosts.iter().map(|x| escape_regex(x)).collect();
        format!(
            "max by ({h}) ({}{{{h}=~\"{}\"}})",
            if self.recorded {
                "restop:fleet_target_usage_ratio:top1"
            } else {
                "restop_resources_usage_ratio"
            },
            escape_string(&names.join("|"))
        )
    }
}

fn tagged(fact: &str, expr: &str) -> String {
    format!("label_replace({expr}, \"fact\", \"{fact}\", \"\", \"\")")
}

fn union(parts: impl Iterator<Item = String>) -> String {
    parts.collect::<Vec<_>>().join("\nor ")
}

/// The error and congestion counters, as one regex alternation (names are plain identifiers).
pub(crate) fn health_counter_regex() -> String {
    health_signals()
        .map(|(n, _)| n)
        .collect::<Vec<_>>()
        .join("|")
}

/// A PromQL string literal's inside.
fn escape_string(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A literal for a RE2 regex.
fn escape_regex(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(label: &str, recorded: bool) -> QueryPlan {
        QueryPlan {
            host_label: label.into(),
            recorded,
            top: 10,
        }
    }

    #[test]
    fn the_recorded_counter_rates_name_the_health_counters() {
        let regex = health_counter_regex();
        for name in [
            "restop:fleet_port_hw_counter_rate5m",
            "restop:fleet_port_pma_counter_rate5m",
        ] {
            let (_, expr) = RULES.iter().find(|(n, _)| *n == name).unwrap();
            assert!(
                expr.contains(&format!("counter=~\"{regex}\"")),
                "{name}: {expr}"
            );
        }
        // Without the rules the same expressions go inline.
        let inline = plan("node", false).problems();
        assert!(inline.contains(&format!(
            "rate(restop_port_hw_stat_total{{counter=~\"{regex}\"}}[5m]) > 0"
        )));
        let recorded = plan("node", true).problems();
        assert!(!recorded.contains("rate("), "{recorded}");
    }

    #[test]
    fn queries_aggregate_on_the_server_and_tag_their_facts() {
        let q = plan("node", true).hosts();
        assert!(
            q.contains("max by (node, instance) (restop:fleet_target_up)"),
            "{q}"
        );
        assert_eq!(q.matches("label_replace(").count(), 6);
        let inline = plan("instance", false).hosts();
        assert!(inline.contains("max by (instance) ((up and on"), "{inline}");
        assert!(!inline.contains("restop:"), "{inline}");
    }

    fn rule(name: &str) -> &'static str {
        RULES.iter().find(|(n, _)| *n == name).unwrap().1
    }

    #[test]
    fn the_recorded_top_lists_are_the_inline_lists_at_the_recorded_top() {
        // Each list's rule is what the inline query asks at `--top 10` (the host's pod sums
        // per target, which is per host while each host has one exporter).
        let inline = plan("instance", false).consumers();
        for (name, inline_expr) in [
            (
                "restop:fleet_process_resources:top10",
                "topk by (type) (10, restop_process_resources{name!=\"other\"})",
            ),
            (
                "restop:fleet_process_mr_bytes:top10",
                "topk(10, restop_process_mr_bytes{name!=\"other\"})",
            ),
            (
                "restop:fleet_namespace_mr_bytes:top10",
                "topk(10, sum by (namespace) (restop_process_mr_bytes{namespace!=\"\"}))",
            ),
        ] {
            assert_eq!(rule(name), inline_expr);
            assert!(inline.contains(inline_expr), "{inline}");
        }
        // The pods' and namespaces' ranks of the recorded pod sums, which inline reads too.
        let pods = rule("restop:fleet_pod_resources");
        assert!(pods.starts_with("sum without (pid, name, user, container, uid, container_id) ("));
        assert!(inline.contains(&format!("sum by (namespace, type) (({pods}))")));
        assert_eq!(
            rule("restop:fleet_pod_resources:top10"),
            format!("topk by (type) ({RECORDED_TOP}, restop:fleet_pod_resources)")
        );
        assert_eq!(
            rule("restop:fleet_namespace_resources:top10"),
            "topk by (type) (10, sum by (namespace, type) (restop:fleet_pod_resources))"
        );
        let order = |name: &str| RULES.iter().position(|(n, _)| *n == name).unwrap();
        assert!(order("restop:fleet_pod_resources") < order("restop:fleet_pod_resources:top10"));
        assert!(
            order("restop:fleet_pod_resources") < order("restop:fleet_namespace_resources:top10")
        );
        assert!(
            rule("restop:fleet_pod_mr_bytes:top10")
                .ends_with("(restop_process_mr_bytes{pod!=\"\"}))")
        );
        assert!(inline.contains("(restop_process_mr_bytes{pod!=\"\"})"));
        assert!(
            RULES
                .iter()
                .any(|(n, _)| n.ends_with(&format!(":top{RECORDED_TOP}")))
        );
    }

    #[test]
    fn with_the_rules_no_refresh_query_reads_a_per_owner_or_per_port_series() {
        let p = plan("node", true);
        let refresh = [p.hosts(), p.problems(), p.consumers()].join("\n");
        for raw in [
            "restop_process_resources",
            "restop_process_mr_bytes",
            "restop_port_active",
            "restop_error_queue_pairs",
            "restop_resources_usage_ratio",
            "restop_device_info",
            "_stat_total",
        ] {
            assert!(!refresh.contains(raw), "{raw} in {refresh}");
        }
        assert!(
            refresh.contains("topk by (type) (10, restop:fleet_process_resources:top10)"),
            "{refresh}"
        );
        assert!(
            refresh
                .contains("sum by (node, namespace, pod, type) (restop:fleet_pod_resources:top10)"),
            "{refresh}"
        );
        // Without the rules the problems query sends the same filters inline.
        let inline = plan("node", false).problems();
        assert!(inline.contains("(restop_port_active == 0)"), "{inline}");
        assert!(
            inline.contains("(restop_error_queue_pairs > 0)"),
            "{inline}"
        );
    }

    #[test]
    fn a_top_above_the_recorded_lists_ranks_every_owner_inline() {
        let mut p = plan("node", true);
        p.top = RECORDED_TOP + 1;
        assert!(!p.recorded_top_lists());
        let q = p.consumers();
        assert!(!q.contains(":top10"), "{q}");
        assert!(q.contains("topk by (type) (11, restop_process_resources{name!=\"other\"})"));
        // The per-target pod sums are still the recorded ones.
        assert!(q.contains("(restop:fleet_pod_resources)"), "{q}");
        p.top = RECORDED_TOP;
        assert!(p.recorded_top_lists());
    }

    #[test]
    fn the_probe_asks_for_this_version_of_the_rules() {
        assert_eq!(
            rule("restop:fleet_rules_version"),
            format!("vector({RULES_VERSION})")
        );
        assert!(
            RULES_PROBE.ends_with(&format!("(restop:fleet_rules_version >= {RULES_VERSION})")),
            "{RULES_PROBE}"
        );
    }

    #[test]
    fn per_target_sums_keep_only_the_target() {
        // A label the exporter adds to its device series (netns, pod) must not split a
        // target's count: the sums name what they keep and take the rest from `up`.
        for name in [
            "restop:fleet_target_devices",
            "restop:fleet_target_error_queue_pairs",
        ] {
            assert!(
                rule(name).starts_with("0 * up + on (instance, job) group_left () ")
                    && rule(name).contains(" by (instance, job) ("),
                "{name}"
            );
        }
    }

    #[test]
    fn only_health_counters_are_asked_for() {
        let re = health_counter_regex();
        assert!(re.contains("out_of_sequence") && re.contains("np_cnp_sent"));
        assert!(!re.contains("port_xmit_data"));
    }

    #[test]
    fn host_names_are_escaped_in_selectors() {
        let q = plan("node", true).detail("a\"b\\c");
        assert!(q.contains("node=\"a\\\"b\\\\c\""), "{q}");
        let q = plan("node", true).usage_sparklines(&["n.1".into(), "n(2)".into()]);
        assert!(q.contains(r#"node=~"n\\.1|n\\(2\\)""#), "{q}");
    }
}
