//! The PromQL `restop fleet` sends. Each refresh is four instant queries, each aggregated on the
//! server (never a raw selector over every series): the hosts' facts, their problems, the
//! cluster's consumers, and (once, until found) whether the recording rules of
//! `assets/prometheus/restop-fleet-rules.yml` are loaded. With the rules, the expensive parts
//! are recorded series; without them the same expressions are sent inline.
//!
//! Every result series carries a `fact` label naming what it says (`label_replace`), so one
//! query answers several questions and `decode.rs` reads them all alike.

use crate::model::counters::catalog::health_signals;

/// The series the recording rules write, and the expressions they record. `rules.rs`'s test
/// checks the shipped rules file against this list.
pub const RULES: &[(&str, &str)] = &[
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
    (
        "restop:fleet_target_devices",
        "count without (device, node_type, protocol, pf, pci, firmware_version, netns, pod) (restop_device_info)",
    ),
    (
        "restop:fleet_target_error_queue_pairs",
        "sum without (device, netns) (restop_error_queue_pairs)",
    ),
    (
        "restop:fleet_target_usage_ratio:top1",
        "topk without (device, type, netns) (1, restop_resources_usage_ratio)",
    ),
    (
        "restop:fleet_target_top_qp_consumer",
        "topk without (pid, name, user, namespace, pod, container, uid, container_id) (1, restop_process_resources{type=\"qp\", name!=\"other\"})",
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
];

/// The name of the recorded series that tells the rules are loaded.
pub(crate) const RULES_PROBE: &str = "count(restop:fleet_target_up)";

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
                tagged("port_down", "restop_port_active == 0"),
                tagged(
                    "counter_rate",
                    &moving("restop:fleet_port_hw_counter_rate5m"),
                ),
                tagged(
                    "counter_rate",
                    &moving("restop:fleet_port_pma_counter_rate5m"),
                ),
                tagged("error_qps_device", "restop_error_queue_pairs > 0"),
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

    /// Cluster-wide: the top processes, pods and namespaces per type and by MR bytes.
    pub(crate) fn consumers(&self) -> String {
        let n = self.top;
        let h = &self.host_label;
        let pods = self.series("restop:fleet_pod_resources");
        let owner = "restop_process_resources{name!=\"other\"}";
        let bytes = "restop_process_mr_bytes{name!=\"other\"}";
        union(
            [
                tagged("process", &format!("topk by (type) ({n}, {owner})")),
                tagged("process_mr_bytes", &format!("topk({n}, {bytes})")),
                tagged(
                    "pod",
                    &format!("topk by (type) ({n}, sum by ({h}, namespace, pod, type) ({pods}))"),
                ),
                tagged(
                    "pod_mr_bytes",
                    &format!(
                        "topk({n}, sum by ({h}, namespace, pod) (restop_process_mr_bytes{{pod!=\"\"}}))"
                    ),
                ),
                tagged(
                    "namespace",
                    &format!("topk by (type) ({n}, sum by (namespace, type) ({pods}))"),
                ),
                tagged(
                    "namespace_mr_bytes",
                    &format!(
                        "topk({n}, sum by (namespace) (restop_process_mr_bytes{{namespace!=\"\"}}))"
                    ),
                ),
            ]
            .into_iter(),
        )
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
