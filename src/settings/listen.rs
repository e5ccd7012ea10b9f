//! The address `restop export` listens on (`--listen`): parsed here, with
//! the other value parsers, for the command line (and any config-file key
//! that names one). Loopback unless the user names another address: the
//! metrics name processes, users and containers, which other hosts should
//! only see when someone chose so.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, ToSocketAddrs};

/// `127.0.0.1:9879`: this host only.
pub(crate) const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 9879));

/// Parses `HOST:PORT` (`127.0.0.1:9879`, `[::1]:9879`, `localhost:9879`,
/// `0.0.0.0:9879`). A bare `:PORT` is refused: it would silently mean every
/// interface.
pub(crate) fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if text.starts_with(':') {
        return Err(format!(
            "invalid address {text:?}: name the interface, e.g. 127.0.0.1{text} (this host \
             only) or 0.0.0.0{text} (every interface)"
        ));
    }
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let mut found = text.to_socket_addrs().map_err(|e| {
        format!("invalid address {text:?}: {e} (expected HOST:PORT, e.g. {DEFAULT_LISTEN})")
    })?;
    found
        .next()
        .ok_or_else(|| format!("invalid address {text:?}: the name has no address"))
}

/// Whether only this host can connect.
pub(crate) fn is_loopback(addr: &SocketAddr) -> bool {
    addr.ip().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_loopback() {
        let addr = parse_listen(&DEFAULT_LISTEN.to_string()).unwrap();
        assert!(is_loopback(&addr));
        assert_eq!(addr.port(), 9879);
    }

    #[test]
    fn explicit_addresses() {
        assert!(!is_loopback(&parse_listen("0.0.0.0:9879").unwrap()));
        assert!(is_loopback(&parse_listen("[::1]:1").unwrap()));
        assert!(is_loopback(&parse_listen("localhost:9879").unwrap()));
    }

    #[test]
    fn bare_ports_and_garbage_are_refused() {
        let err = parse_listen(":9879").unwrap_err();
        assert!(err.contains("0.0.0.0:9879"), "{err}");
        assert!(parse_listen("9879").is_err());
        assert!(parse_listen("127.0.0.1").is_err());
        assert!(parse_listen("127.0.0.1:99999").is_err());
    }
}
