//! A small HTTP/1.1 server for `/metrics` (and `/`), on std::net.

pub mod auth;
pub mod connections;
pub mod event_loop;
pub mod negotiate;
pub mod request;
pub mod response;
pub mod server;
pub mod transport;

pub use server::{Access, BindError, Limits, Server, wake};
