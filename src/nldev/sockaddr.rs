//! CM_ID addresses: `struct __kernel_sockaddr_storage` blobs.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4, SocketAddrV6};

const AF_INET: u16 = 2;
const AF_INET6: u16 = 10;

/// Decodes `sockaddr_in` / `sockaddr_in6` inside a sockaddr_storage: family
/// in host order at 0, port big-endian at 2, IPv4 at 4, or flow info at 4,
/// IPv6 at 8 and scope id (host order) at 24. Other families (AF_IB) and
/// short blobs give `None`.
pub fn decode(blob: &[u8]) -> Option<SocketAddr> {
    let family = u16::from_ne_bytes(*blob.first_chunk::<2>()?);
    let port = u16::from_be_bytes(*blob.get(2..)?.first_chunk::<2>()?);
    match family {
        AF_INET => {
            let ip = *blob.get(4..)?.first_chunk::<4>()?;
            Some(SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::from(ip), port)))
        }
        AF_INET6 => {
            let flow = u32::from_be_bytes(*blob.get(4..)?.first_chunk::<4>()?);
            let ip = *blob.get(8..)?.first_chunk::<16>()?;
            let scope = blob
                .get(24..)
                .and_then(|b| b.first_chunk::<4>())
                .map_or(0, |b| u32::from_ne_bytes(*b));
            Some(SocketAddr::V6(SocketAddrV6::new(
                Ipv6Addr::from(ip),
                port,
                flow,
                scope,
            )))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage(head: &[u8]) -> Vec<u8> {
        let mut v = head.to_vec();
        v.resize(128, 0);
        v
    }

    #[test]
    fn ipv4_port_is_big_endian() {
        let mut head = AF_INET.to_ne_bytes().to_vec();
        head.extend_from_slice(&7174u16.to_be_bytes());
        head.extend_from_slice(&[192, 0, 2, 1]);
        assert_eq!(
            decode(&storage(&head)),
            Some("192.0.2.1:7174".parse().unwrap())
        );
    }

    #[test]
    fn ipv6_with_scope() {
        let mut head = AF_INET6.to_ne_bytes().to_vec();
        head.extend_from_slice(&4791u16.to_be_bytes());
        head.extend_from_slice(&[0; 4]);
        head.extend_from_slice(&"fe80::1".parse::<Ipv6Addr>().unwrap().octets());
        head.extend_from_slice(&3u32.to_ne_bytes());
        let SocketAddr::V6(v6) = decode(&storage(&head)).unwrap() else {
            panic!("not v6")
        };
        assert_eq!(v6.ip(), &"fe80::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!((v6.port(), v6.scope_id()), (4791, 3));
    }

    #[test]
    fn short_or_foreign_blobs_are_none() {
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[2, 0, 1]), None);
        let mut head = AF_INET.to_ne_bytes().to_vec();
        head.extend_from_slice(&[0, 80, 10]);
        assert_eq!(decode(&head), None);
        assert_eq!(decode(&storage(&27u16.to_ne_bytes())), None);
        assert_eq!(decode(&storage(&0u16.to_ne_bytes())), None);
    }
}
