//! Writing tracking messages into the receiving connection's mailbox, as
//! Redis writes them: to a RESP3 connection a push `["invalidate", keys]`
//! (keys null after a flush); to a RESP2 connection that tracking
//! redirects to and that is subscribed, a `__redis__:invalidate` message;
//! to a RESP2 connection without a redirect nothing (it has no way to
//! receive them). A redirect to a client that has gone is reported to the
//! tracking client (RESP3) with `tracking-redir-broken`. The mailbox's
//! bound (`client-output-buffer-limit pubsub`) applies.

use std::sync::{Arc, Weak};

use strata_kv::ChangeObserver;

use super::current::current;
use super::table::Message;
use crate::shared::Shared;
use crate::writer::RespVersion;

/// The channel RESP2 clients read invalidations from.
pub const INVALIDATE_CHANNEL: &[u8] = b"__redis__:invalidate";

/// The engine's change reports, turned into invalidations of a front end.
pub struct Invalidator {
    shared: Weak<Shared>,
}

impl Invalidator {
    /// Invalidates for the front end whose state is `shared`.
    pub fn new(shared: &Arc<Shared>) -> Self {
        Invalidator {
            shared: Arc::downgrade(shared),
        }
    }
}

impl ChangeObserver for Invalidator {
    fn changed(&self, key: &[u8]) {
        if let Some(shared) = self.shared.upgrade() {
            if shared.tracking.any() {
                send(&shared, shared.tracking.changed(key, current()));
            }
        }
    }

    fn flushed(&self) {
        if let Some(shared) = self.shared.upgrade() {
            send(&shared, shared.tracking.flushed());
        }
    }
}

/// Sends `messages`.
pub(crate) fn send(shared: &Shared, messages: Vec<Message>) {
    for m in messages {
        let to = if m.redirect != 0 {
            m.redirect
        } else {
            m.client
        };
        let peer = shared.peers.lock().get(&to).cloned();
        let Some(mailbox) = peer.as_ref().and_then(|p| p.mailbox().cloned()) else {
            if m.redirect != 0 {
                redirect_broken(shared, m.client, m.redirect);
            }
            continue;
        };
        let version = mailbox.version();
        let subscribed = peer.is_some_and(|p| {
            let (sub, psub, ssub) = p.subscriptions();
            sub + psub + ssub > 0
        });
        if version == RespVersion::Resp2 && (m.redirect == 0 || !subscribed) {
            continue;
        }
        let keys = m.keys.as_deref();
        let size = 64 + keys.map_or(0, |k| k.iter().map(|k| k.len() + 16).sum());
        mailbox.deliver_with(size, &shared.pubsub.limit, |out| {
            match version {
                RespVersion::Resp3 => {
                    out.push(2);
                    out.bulk(b"invalidate");
                }
                RespVersion::Resp2 => {
                    out.array(3);
                    out.bulk(b"message");
                    out.bulk(INVALIDATE_CHANNEL);
                }
            }
            match keys {
                Some(keys) => {
                    out.array(keys.len());
                    for key in keys {
                        out.bulk(key);
                    }
                }
                None => out.null_array(),
            }
        });
    }
}

/// Tells a RESP3 tracking `client` that `redirect` is gone.
fn redirect_broken(shared: &Shared, client: u64, redirect: u64) {
    let peer = shared.peers.lock().get(&client).cloned();
    let Some(mailbox) = peer.as_ref().and_then(|p| p.mailbox().cloned()) else {
        return;
    };
    if mailbox.version() == RespVersion::Resp3 {
        mailbox.deliver_with(64, &shared.pubsub.limit, |out| {
            out.push(2);
            out.bulk(b"tracking-redir-broken");
            out.integer(i64::try_from(redirect).unwrap_or(i64::MAX));
        });
    }
}
