//! Publish/subscribe: the [`Hub`] of channel, pattern and shard-channel
//! subscriptions shared by every connection, and each subscriber's
//! [`Mailbox`], where `PUBLISH` leaves messages (encoded in the
//! subscriber's protocol version) for its connection to send.
//!
//! Bound (Redis's `client-output-buffer-limit pubsub`, default
//! `32mb 8mb 60`): a subscriber whose undelivered messages pass the hard
//! limit, or stay above the soft limit for the soft seconds, is
//! disconnected and gets no more messages, so a subscriber that never
//! reads holds at most the hard limit (plus the batch its connection is
//! trying to send).

mod hub;
mod mailbox;
mod subscriptions;

pub use hub::{Hub, Kind};

pub use mailbox::{Mailbox, OutputLimit};
pub use subscriptions::Subscriptions;
