//! The filter group: which device, process, resource types and QP state
//! every mode shows.

use crate::model::filter::Filter;
use crate::model::{QpState, ResourceType};
use crate::settings::values::{parse_qp_state, parse_resource_type};
use clap::Args;

#[derive(Clone, Debug, Default, Args)]
#[group(id = "filters")]
#[command(next_help_heading = "Filters")]
pub struct FilterArgs {
    /// Only this RDMA device.
    #[arg(
        long = "dev",
        value_name = "NAME",
        long_help = "Only this RDMA device (as `rdma dev` names it): its usage, the \
                     objects consumers hold on it, its ERROR QPs. An unknown name gives \
                     a warning listing the devices that exist, and exit status 1.\n\n\
                     Example: --dev mlx5_0"
    )]
    pub device: Option<String>,

    /// Only this process (a thread id selects its process).
    #[arg(
        long,
        value_name = "PID",
        long_help = "Only this process: its consumer row and its ERROR QPs. The id of a \
                     thread that created objects selects its process. Kernel owners and \
                     unattributed objects belong to no process and are left out.\n\n\
                     Example: --pid 4242"
    )]
    pub pid: Option<u32>,

    /// Only these resource types: qp,cq,mr,pd,cm_id,ctx,srq.
    #[arg(
        long = "type",
        value_name = "TYPE",
        value_delimiter = ',',
        value_parser = parse_resource_type,
        long_help = "Only these resource types: qp, cq, mr, pd, cm_id, ctx, srq. Repeat \
                     the option or separate types with commas. The report shows only \
                     their columns and drops consumers that hold none of them; --json \
                     keeps every count (stable shape) and drops those consumers too. \
                     [default: all, or `columns` in the config file]\n\n\
                     Examples: --type qp,mr   --type qp --type cq"
    )]
    pub types: Vec<ResourceType>,

    /// Only QPs in this state, and who holds them.
    #[arg(
        long,
        value_name = "STATE",
        value_parser = parse_qp_state,
        long_help = "Only consumers holding QPs in this state, and only ERROR QPs in it. \
                     One of RESET, INIT, RTR, RTS, SQD, SQE, ERR (any case).\n\n\
                     Example: --state err"
    )]
    pub state: Option<QpState>,
}

impl FilterArgs {
    /// The filter, with `types` (from here or the config file's `columns`)
    /// once each in the order given.
    pub fn filter(&self, default_types: Option<&[ResourceType]>) -> Filter {
        let given = if self.types.is_empty() {
            default_types.unwrap_or_default()
        } else {
            &self.types
        };
        let mut types = Vec::new();
        for t in given {
            if !types.contains(t) {
                types.push(*t);
            }
        }
        Filter {
            device: self.device.clone(),
            pid: self.pid,
            types,
            state: self.state,
            text: None,
        }
    }
}
