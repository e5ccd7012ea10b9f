//! The source group: where snapshots come from and how often. These options
//! are global, so they go before or after `export` alike.

use crate::settings::{DemoDevices, parse_demo_devices, parse_duration, parse_offset};
use clap::Args;
use std::time::Duration;

#[derive(Clone, Debug, Default, Args)]
#[group(id = "source")]
#[command(next_help_heading = "Source")]
pub struct SourceArgs {
    /// Show a simulated host instead of this one.
    #[arg(
        long,
        global = true,
        long_help = "Show a simulated host instead of this one: devices, processes and \
                     failing QPs that evolve over time. Every view marks the data as \
                     simulated. Useful to explore restop where there is no RDMA hardware.\n\n\
                     Example: restop --demo --once"
    )]
    pub demo: bool,

    /// Seed of the simulated host (with --demo).
    #[arg(
        long,
        value_name = "N",
        default_value_t = 1,
        requires = "demo",
        global = true,
        long_help = "Seed of the simulated host (only with --demo): the same seed gives \
                     the same host and the same story.\n\nExample: restop --demo --seed 7"
    )]
    pub seed: u64,

    /// Name the simulated host, with troubles of its own (with --demo).
    #[arg(
        long = "demo-host",
        value_name = "NAME",
        requires = "demo",
        global = true,
        long_help = "Name the simulated host (only with --demo): the name seeds it and picks \
                     its troubles, so demo exporters started with different names look like \
                     different hosts of one cluster (for restop fleet). A name containing \
                     `healthy`, `leak`, `storm`, `limit`, `errqp` or `busy` has that trouble (busy: all of \
                     them); other names are healthy or have one trouble, drawn from the name. \
                     Without it the demo host has every trouble at once.\n\n\
                     Example: restop export --demo --demo-host node-07-leak --listen 127.0.0.1:9907"
    )]
    pub demo_host: Option<String>,

    /// Give the simulated host PFS physical functions with VFS VFs each (with --demo).
    #[arg(
        long = "demo-devices",
        value_name = "PFSxVFS",
        value_parser = parse_demo_devices,
        requires = "demo",
        global = true,
        long_help = "Give the simulated host PFS physical functions with VFS virtual \
                     functions each (only with --demo; 2 to 32 of each), as a node with \
                     several dual-port ConnectX cards in SR-IOV mode: the PFs are mlx5_0.. \
                     and the VFs follow them as the kernel numbers them, two or three \
                     tenant pods on each VF, one VF near its QP limit, one with QPs in ERR, \
                     and the VFs of the last two PFs in their pods' network namespaces. \
                     The default host's story goes on on the first two PFs. Without it \
                     the demo host has five devices.\n\n\
                     Example: restop --demo --demo-devices 16x8"
    )]
    pub demo_devices: Option<DemoDevices>,

    /// Start the simulated host this far into its story (with --demo).
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_offset,
        requires = "demo",
        global = true,
        long_help = "Start the simulated host this far into its timeline (only with \
                     --demo): the leak has grown, QPs have failed, as after that long a \
                     run. Lets scripted runs (--once, --json, --batch) show a chosen \
                     moment; the same seed and point always give the same snapshot. \
                     [default: 0s]\n\n\
                     Examples: restop --demo --demo-at 10m --once --state err, \
                     restop --demo --demo-at 90s --json"
    )]
    pub demo_at: Option<Duration>,

    /// Time between refreshes (500ms, 2s, 1m30s, 1.5) [default: 2s].
    #[arg(
        short = 'd',
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "Time between refreshes of the interactive view and between --batch \
                     reports; with --demo, also how far the simulated host moves per \
                     refresh. A number with a unit (ms, s, m, h, d) or several, largest \
                     first, as Prometheus writes them (1m30s); a bare number is seconds. \
                     Must be greater than zero. [default: 2s; restop export: 15s; or \
                     `interval` in the config file]\n\n\
                     Examples: -d 500ms, --delay 2s, -d 1m30s, -d 1.5"
    )]
    pub delay: Option<Duration>,

    /// Longest wait for one kernel reply [default: 5s].
    #[arg(
        long,
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "Longest wait for one netlink reply from the kernel before giving up \
                     on that request. Same format as --delay. [default: 5s]\n\n\
                     Example: --timeout 10s"
    )]
    pub timeout: Option<Duration>,

    /// Minimum time between object dumps.
    #[arg(
        long = "objects-every",
        value_name = "DURATION",
        value_parser = parse_duration,
        allow_hyphen_values = true,
        global = true,
        long_help = "Minimum time between the per-object dumps (QPs, MRs, ... with their \
                     owners) of the live host; device counts are still read at every \
                     refresh. Object dumps are costly on big hosts (mlx5 queries firmware \
                     once per QP), so restop also spaces them out by itself when they are \
                     slow, and says so. Default: every refresh. Same format as --delay.\n\n\
                     Example: --objects-every 30s"
    )]
    pub objects_every: Option<Duration>,

    /// Do not read device limits through libibverbs.
    #[arg(
        long = "no-verbs",
        global = true,
        long_help = "Do not open devices through libibverbs to read their limits (max_qp, \
                     max_mr, ...) when the kernel's summary does not carry them. restop then \
                     shows a maximum only where the kernel reports one (kernels from 2026 \
                     on); elsewhere counts are shown without a bar. See docs/limits.md.\n\n\
                     Example: restop --no-verbs"
    )]
    pub no_verbs: bool,
}
