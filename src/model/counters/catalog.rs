//! The well-known counter names: what each measures and whether it is
//! traffic, an error or a congestion signal. Names not listed are shown
//! with their value and rate and no meaning; they never count as errors.

/// What a counter says about the port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterClass {
    /// Bytes moved (`unit_bytes` per count).
    Bytes {
        direction: Direction,
        unit_bytes: u64,
    },
    /// Packets moved.
    Packets { direction: Direction },
    /// Something went wrong: retransmits, sequence errors, drops, link downs.
    Error,
    /// Congestion control at work: CNPs, ECN marks.
    Congestion,
    /// Anything else the driver counts (operations, deferred ACKs).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Tx,
    Rx,
}

/// A known counter: its class and a one-line meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Description {
    pub class: CounterClass,
    pub meaning: &'static str,
}

use CounterClass::{Congestion, Error, Other};
use Direction::{Rx, Tx};

const fn bytes(direction: Direction, unit_bytes: u64) -> CounterClass {
    CounterClass::Bytes {
        direction,
        unit_bytes,
    }
}

const fn packets(direction: Direction) -> CounterClass {
    CounterClass::Packets { direction }
}

/// Name → (class, meaning): rxe, mlx5 hw counters and the PMA files.
const KNOWN: &[(&str, CounterClass, &str)] = &[
    // PMA (sysfs counters/)
    ("port_xmit_data", bytes(Tx, 4), "data sent, in 4-byte words"),
    (
        "port_rcv_data",
        bytes(Rx, 4),
        "data received, in 4-byte words",
    ),
    ("port_xmit_packets", packets(Tx), "packets sent"),
    ("port_rcv_packets", packets(Rx), "packets received"),
    ("unicast_xmit_packets", Other, "unicast packets sent"),
    ("unicast_rcv_packets", Other, "unicast packets received"),
    ("multicast_xmit_packets", Other, "multicast packets sent"),
    ("multicast_rcv_packets", Other, "multicast packets received"),
    ("symbol_error", Error, "physical-layer symbol errors"),
    ("link_error_recovery", Error, "link retrained after errors"),
    ("link_downed", Error, "link went down"),
    ("port_rcv_errors", Error, "received packets with errors"),
    (
        "port_rcv_remote_physical_errors",
        Error,
        "packets marked bad upstream",
    ),
    (
        "port_rcv_switch_relay_errors",
        Error,
        "packets the switch could not relay",
    ),
    ("port_xmit_discards", Error, "outgoing packets discarded"),
    (
        "port_xmit_constraint_errors",
        Error,
        "outgoing packets dropped by constraints",
    ),
    (
        "port_rcv_constraint_errors",
        Error,
        "incoming packets dropped by constraints",
    ),
    (
        "local_link_integrity_errors",
        Error,
        "local link integrity threshold exceeded",
    ),
    (
        "excessive_buffer_overrun_errors",
        Error,
        "receive buffer overruns",
    ),
    ("VL15_dropped", Error, "management packets dropped"),
    // Rises on every busy link: worth showing, not a health signal by itself.
    (
        "port_xmit_wait",
        Other,
        "ticks with data to send but no credit",
    ),
    // rxe
    ("sent_pkts", packets(Tx), "packets sent"),
    ("rcvd_pkts", packets(Rx), "packets received"),
    (
        "duplicate_request",
        Error,
        "duplicate requests received (peer retransmits)",
    ),
    (
        "out_of_seq_request",
        Error,
        "requests received out of sequence",
    ),
    ("rcvd_rnr_err", Error, "RNR NAKs received"),
    ("send_rnr_err", Error, "RNR NAKs sent"),
    ("rcvd_seq_err", Error, "sequence errors received"),
    ("ack_deferred", Other, "ACKs deferred"),
    (
        "retry_exceeded_err",
        Error,
        "QPs failed after exhausting retries",
    ),
    (
        "retry_rnr_exceeded_err",
        Error,
        "QPs failed after exhausting RNR retries",
    ),
    (
        "completer_retry_err",
        Error,
        "retransmits started by the completer",
    ),
    ("send_err", Error, "packets that could not be sent"),
    ("rdma_sends", Other, "RDMA sends"),
    ("rdma_recvs", Other, "RDMA receives"),
    // mlx5
    (
        "out_of_buffer",
        Error,
        "packets dropped: no receive WQE posted",
    ),
    ("out_of_sequence", Error, "packets received out of sequence"),
    ("packet_seq_err", Error, "NAKs for sequence errors received"),
    (
        "local_ack_timeout_err",
        Error,
        "ACK timeouts: the sender retransmitted",
    ),
    ("rnr_nak_retry_err", Error, "RNR NAK retries exhausted"),
    (
        "implied_nak_seq_err",
        Error,
        "implied NAKs for sequence errors",
    ),
    ("req_cqe_error", Error, "requester completions with error"),
    ("resp_cqe_error", Error, "responder completions with error"),
    (
        "req_remote_access_errors",
        Error,
        "remote access errors (requester)",
    ),
    (
        "resp_remote_access_errors",
        Error,
        "remote access errors (responder)",
    ),
    (
        "req_remote_invalid_request",
        Error,
        "invalid requests seen by the peer",
    ),
    (
        "resp_local_length_error",
        Error,
        "receive buffers too short",
    ),
    ("rx_icrc_encapsulated", Error, "RoCE packets with bad ICRC"),
    ("rx_write_requests", Other, "RDMA writes received"),
    ("rx_read_requests", Other, "RDMA reads received"),
    ("rx_atomic_requests", Other, "atomics received"),
    ("roce_adp_retrans", Error, "adaptive retransmissions"),
    (
        "roce_slow_restart",
        Error,
        "slow restarts after retransmission",
    ),
    (
        "np_cnp_sent",
        Congestion,
        "CNPs sent (this port saw ECN-marked packets)",
    ),
    (
        "rp_cnp_handled",
        Congestion,
        "CNPs received and acted on (rate reduced)",
    ),
    ("rp_cnp_ignored", Congestion, "CNPs received and ignored"),
    (
        "np_ecn_marked_roce_packets",
        Congestion,
        "ECN-marked RoCE packets received",
    ),
];

/// The class and meaning of a counter name, if it is a well-known one.
pub fn describe(name: &str) -> Option<Description> {
    KNOWN
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, class, meaning)| Description { class, meaning })
}

/// Whether a rise of this counter is worth telling (error or congestion).
pub(crate) fn is_health_signal(name: &str) -> bool {
    matches!(
        describe(name).map(|d| d.class),
        Some(CounterClass::Error | CounterClass::Congestion)
    )
}

/// Every well-known error and congestion counter name, with its class: what `restop fleet`
/// asks Prometheus for, so only the counters worth telling leave the server.
pub(crate) fn health_signals() -> impl Iterator<Item = (&'static str, CounterClass)> {
    KNOWN
        .iter()
        .filter(|(name, _, _)| is_health_signal(name))
        .map(|&(name, class, _)| (name, class))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_known_names_have_a_class_and_unknown_ones_none() {
        assert_eq!(
            describe("port_xmit_data").map(|d| d.class),
            Some(bytes(Tx, 4))
        );
        assert!(is_health_signal("out_of_sequence"));
        assert!(is_health_signal("np_cnp_sent"));
        assert!(!is_health_signal("sent_pkts"));
        assert!(!is_health_signal("never_seen_before_counter"));
        assert!(describe("never_seen_before_counter").is_none());
    }
}
