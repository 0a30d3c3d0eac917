//! [`client_line`]: one client as `CLIENT LIST`, `CLIENT INFO` and the
//! ACL log show it, and [`client_memory`], what it holds. A leaf over the
//! connection's published view.

use std::fmt::Write as _;
use std::time::Instant;

use strata_service::ClientInfo;

use crate::connection::PeerView;

/// Bytes one client holds (`CLIENT LIST`'s `tot-mem`, `MEMORY STATS`'
/// `clients.normal` summed over clients): what client eviction counts
/// (its buffers' capacity, `MULTI` queue, watched keys, subscriptions and
/// waiting messages) and the arguments of the command running.
pub fn client_memory(client: &ClientInfo, peer: Option<&PeerView>) -> u64 {
    let (argv_mem, _) = peer.map_or((0, 0), PeerView::memory);
    client.buffers.memory() + argv_mem
}

/// The `CLIENT LIST` line of one client (ending in `\n`). The buffer
/// fields (`qbuf`, `rbs`, `obl`, `omem`, ...) are the sizes the connection
/// driver last published; `oll` is 0 (the output is one buffer, not a
/// list of blocks).
pub fn client_line(client: &ClientInfo, peer: Option<&PeerView>) -> String {
    let now = Instant::now();
    let age = now.saturating_duration_since(client.connected_at).as_secs();
    let idle = now
        .saturating_duration_since(*client.last_active.lock())
        .as_secs();
    let name = client.name.lock().clone().unwrap_or_default();
    let multi = peer.map_or(-1, PeerView::multi);
    let (sub, psub, ssub) = peer.map_or((0, 0, 0), PeerView::subscriptions);
    let redirect = peer.map_or(-1, PeerView::tracking_redirect);
    // In Redis's order: `O` monitor, `P` subscribed, `x` in MULTI, `t`
    // tracking, `e` no-evict, `T` no-touch; `N` none of them.
    let mut flags = String::with_capacity(4);
    if peer.is_some_and(PeerView::monitor) {
        flags.push('O');
    }
    if sub + psub + ssub > 0 {
        flags.push('P');
    }
    if multi >= 0 {
        flags.push('x');
    }
    if redirect >= 0 {
        flags.push('t');
    }
    if peer.is_some_and(PeerView::no_evict) {
        flags.push('e');
    }
    if peer.is_some_and(PeerView::no_touch) {
        flags.push('T');
    }
    if flags.is_empty() {
        flags.push('N');
    }
    let (argv_mem, multi_mem) = peer.map_or((0, 0), PeerView::memory);
    let messages = peer.map_or(0, PeerView::pending_messages);
    let (qbuf, rbs, rbp) = client.buffers.input();
    let (obl, _) = client.buffers.output();
    let omem = obl + messages;
    let tot_mem = client_memory(client, peer);
    let events = if omem > 0 { "rw" } else { "r" };
    let mut line = String::with_capacity(256);
    let _ = write!(
        line,
        "id={} addr={} laddr={} fd={} name={} age={} idle={} flags={} db=0 sub={} psub={} \
         ssub={} multi={} qbuf={} qbuf-free={} argv-mem={} multi-mem={} rbs={} rbp={} obl={} \
         oll=0 omem={} tot-mem={} events={} cmd={} user={} redir={}",
        client.id,
        client.addr,
        client.local_addr,
        client.buffers.fd(),
        name,
        age,
        idle,
        flags,
        sub,
        psub,
        ssub,
        multi,
        qbuf,
        rbs.saturating_sub(qbuf),
        argv_mem,
        multi_mem,
        rbs,
        rbp,
        obl,
        omem,
        tot_mem,
        events,
        *client.last_command.lock(),
        peer.map_or_else(|| "default".to_string(), |p| p.user().display_name()),
        redirect,
    );
    if let Some(peer) = peer {
        let (lib_name, lib_ver) = peer.lib();
        let _ = write!(
            line,
            " resp={} lib-name={} lib-ver={}",
            peer.resp(),
            lib_name.unwrap_or_default(),
            lib_ver.unwrap_or_default(),
        );
    }
    line.push('\n');
    line
}
