//! One front end's port: binding it, and spawning the accept loop that
//! serves a protocol on it ([`FrontEnd`]).

use std::net::SocketAddr;
use std::sync::Arc;

use strata_net::Listener;
use strata_service::{Clients, DriverConfig, Protocol, ServerInfo};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;
use crate::listeners;

/// One running front end.
pub(crate) struct FrontEnd {
    pub name: &'static str,
    pub addr: SocketAddr,
    pub clients: Arc<Clients>,
    pub accept_loop: JoinHandle<()>,
}

/// Binds `addr` (address reuse as tokio sets it) and reports the actual address.
pub(crate) fn bind(
    protocol: &'static str,
    addr: SocketAddr,
) -> Result<(TcpListener, SocketAddr), ServerError> {
    let err = |source| ServerError::Bind {
        protocol,
        addr,
        source,
    };
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4(),
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6(),
    }
    .map_err(err)?;
    socket.set_reuseaddr(true).map_err(err)?;
    socket.bind(addr).map_err(err)?;
    let listener = socket.listen(1024).map_err(err)?;
    let local = listener.local_addr().map_err(err)?;
    Ok((listener, local))
}

#[allow(clippy::too_many_arguments)] // one port's whole wiring
pub(crate) fn spawn_front_end<P: Protocol>(
    name: &'static str,
    protocol: Arc<P>,
    driver: DriverConfig,
    listener: Listener,
    addr: SocketAddr,
    clients: Arc<Clients>,
    info: &Arc<ServerInfo>,
    shutdown: &CancellationToken,
) -> FrontEnd {
    listeners::announce(name, addr, &listener);
    let accept_loop = tokio::spawn(strata_service::serve(
        listener,
        protocol,
        clients.clone(),
        info.clone(),
        driver,
        shutdown.clone(),
    ));
    FrontEnd {
        name,
        addr,
        clients,
        accept_loop,
    }
}
