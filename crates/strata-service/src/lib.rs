//! # strata-service: what every front end shares
//!
//! A wire protocol (memcached text, RESP, later HTTP) plugs into the server by
//! implementing [`Protocol`]: it opens a [`Session`] per connection, and the
//! session turns request bytes into reply bytes without doing I/O itself. The
//! [`driver`] owns sockets, connection limits and shutdown.
//!
//! ## Layout
//! - [`session`]: the [`Protocol`] and [`Session`] traits.
//! - [`clients`]: the registry of connected clients and connection counters.
//! - [`panic_guard`]: a request's panic contained to its connection.
//! - [`driver`]: the tokio accept loop and per-connection read/process/write
//!   loop, over `strata-net`'s listeners and connections (plain or TLS).
//! - [`timeouts`]: the idle limit and the bound on a request's arrival.
//! - [`workers`]: the pool of one-worker runtimes connections run on.
//! - `signal`: what the outside tells a connection's driver (close,
//!   shutdown, a new idle limit), with one lock-free waker.
//! - [`server_info`]: identity and runtime settings of the running server.
//! - [`durability`]: what front ends need from persistence (durable replies,
//!   checkpoints on demand, INFO fields), as a trait the server implements.
//!
//! This crate never depends on the engine or on a particular protocol.

#![forbid(unsafe_code)]

pub mod clients;
pub mod driver;
pub mod durability;
pub mod panic_guard;
mod send_policy;
pub mod server_info;
pub mod session;
pub mod shutdown_request;
mod signal;
mod thread_stack;
pub mod timeouts;
pub mod workers;

pub use clients::{BufferStats, ClientInfo, Clients};
pub use driver::{serve, DriverConfig};
pub use durability::{Durability, DurableFuture, HeldReplies, Hold};
pub use server_info::{RuntimeSettings, ServerInfo, WorkersNow, UNKNOWN_COMMIT};
pub use session::{Console, ConsoleSession, Flow, Protocol, Session, OUTPUT_SOFT_LIMIT};
pub use shutdown_request::{ShutdownKind, ShutdownRequest};
pub use thread_stack::THREAD_STACK_SIZE;
pub use timeouts::{IdleTimeout, DEFAULT_REQUEST_TIMEOUT};
pub use workers::{WorkerPolicy, WorkerPool};
