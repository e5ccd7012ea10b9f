//! A small HTTP/1.1 server for `/metrics` (and `/`), on std::net.

pub(crate) mod auth;
pub(crate) mod connections;
pub(crate) mod event_loop;
pub mod negotiate;
pub mod request;
pub(crate) mod response;
pub(crate) mod server;
pub(crate) mod transport;

pub use server::{Access, BindError, Limits, Server, wake};
