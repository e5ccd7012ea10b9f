//! Building nldev requests. neli does the serialisation: an `nlmsghdr`
//! followed directly by `u32` attributes (nldev has no genetlink header).

use super::consts::nldev_type;
use neli::consts::nl::NlmF;
use neli::genl::{AttrTypeBuilder, NlattrBuilder};
use neli::nl::{NlPayload, NlmsghdrBuilder};
use neli::types::{Buffer, GenlBuffer};
use neli::{Size, ToBytes};
use std::io::Cursor;

/// Dump (all matching objects, ends with `NLMSG_DONE`) or doit (one object,
/// acknowledged so the reply always ends with `NLMSG_ERROR`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Dump,
    Doit,
}

/// Serialises one request; `attrs` are `(attribute, u32 value)` pairs.
pub(crate) fn encode(
    op: u16,
    kind: Kind,
    seq: u32,
    attrs: &[(u16, u32)],
) -> Result<Vec<u8>, String> {
    let mut payload: GenlBuffer<u16, Buffer> = GenlBuffer::new();
    for &(attr, value) in attrs {
        let nla_type = AttrTypeBuilder::default()
            .nla_type(attr)
            .build()
            .map_err(|e| e.to_string())?;
        let nla = NlattrBuilder::default()
            .nla_type(nla_type)
            .nla_payload(value)
            .build()
            .map_err(|e| e.to_string())?;
        payload.push(nla);
    }
    // A dump gets no ACK flag: the kernel sends none after NLMSG_DONE anyway,
    // and one arriving late would look like a reply to the next request.
    let flags = match kind {
        Kind::Dump => NlmF::REQUEST | NlmF::DUMP,
        Kind::Doit => NlmF::REQUEST | NlmF::ACK,
    };
    let msg = NlmsghdrBuilder::default()
        .nl_type(nldev_type(op))
        .nl_flags(flags)
        .nl_seq(seq)
        .nl_payload(NlPayload::Payload(payload))
        .build()
        .map_err(|e| e.to_string())?;
    let mut out = Cursor::new(Vec::with_capacity(msg.padded_size()));
    msg.to_bytes(&mut out).map_err(|e| e.to_string())?;
    Ok(out.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nldev::consts::{attr, cmd};

    #[test]
    fn a_device_dump_matches_iproute2_framing() {
        let bytes = encode(cmd::RES_QP_GET, Kind::Dump, 7, &[(attr::DEV_INDEX, 1)]).unwrap();
        let expected: Vec<u8> = [
            &24u32.to_ne_bytes()[..],
            &0x140au16.to_ne_bytes(),
            &0x0301u16.to_ne_bytes(),
            &7u32.to_ne_bytes(),
            &0u32.to_ne_bytes(),
            &8u16.to_ne_bytes(),
            &1u16.to_ne_bytes(),
            &1u32.to_ne_bytes(),
        ]
        .concat();
        assert_eq!(bytes, expected);
    }

    #[test]
    fn a_doit_asks_for_an_ack_and_may_be_bare() {
        let bytes = encode(cmd::SYS_GET, Kind::Doit, 1, &[]).unwrap();
        assert_eq!(bytes.len(), 16);
        assert_eq!(&bytes[4..8], &[0x06, 0x14, 0x05, 0x00]);
    }
}
