//! What an owner's QP states say, in words: `all INIT: never connected` is
//! the leak clue a pile of 1,343 QPs gives; `9 RTS, 1 ERR` a healthy owner
//! with one broken connection. Shared by the drill-down and any output.

use super::enums::{QpState, StateCounts};

/// Every state with QPs, most first (ties in state order): `9 RTS, 1 ERR`;
/// `all INIT: never connected` when one state holds them all. `None` when
/// the owner has no QP.
pub(crate) fn qp_state_summary(states: &StateCounts) -> Option<String> {
    let mut held: Vec<(QpState, u64)> = states.iter().filter(|(_, n)| *n > 0).collect();
    if held.is_empty() {
        return None;
    }
    if let [(state, _)] = held.as_slice() {
        let why = match state {
            QpState::Reset => ": never set up",
            QpState::Init | QpState::Rtr => ": never connected",
            QpState::Err | QpState::Sqe => ": every one broken",
            _ => "",
        };
        return Some(format!("all {}{why}", state.name()));
    }
    held.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Some(
        held.iter()
            .map(|(s, n)| format!("{n} {}", s.name()))
            .collect::<Vec<_>>()
            .join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(list: &[(QpState, u64)]) -> StateCounts {
        let mut s = StateCounts::default();
        for (state, n) in list {
            s.add(*state, *n);
        }
        s
    }

    #[test]
    fn one_state_for_all_says_what_it_means() {
        let s = states(&[(QpState::Init, 1343)]);
        assert_eq!(
            qp_state_summary(&s).as_deref(),
            Some("all INIT: never connected")
        );
        let s = states(&[(QpState::Rts, 4)]);
        assert_eq!(qp_state_summary(&s).as_deref(), Some("all RTS"));
    }

    #[test]
    fn every_state_is_listed_most_first() {
        let s = states(&[(QpState::Err, 1), (QpState::Rts, 9), (QpState::Init, 1)]);
        assert_eq!(
            qp_state_summary(&s).as_deref(),
            Some("9 RTS, 1 INIT, 1 ERR")
        );
        assert_eq!(qp_state_summary(&StateCounts::default()), None);
    }
}
