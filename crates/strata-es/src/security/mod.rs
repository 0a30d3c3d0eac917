//! # HTTP security: authentication and authorization
//!
//! Elasticsearch's file realm and API keys for the HTTP front end. Off
//! unless a realm directory is configured ([`SecurityConfig`]); then every
//! request needs credentials (`Authorization: Basic` or `ApiKey`), and
//! every route's action needs the caller's privilege, as in Elasticsearch
//! 8 with security on.
//!
//! ## Layout
//! - [`privilege`]: action and name patterns, named privileges.
//! - [`role`]: role descriptors compiled into roles; the built-in
//!   `superuser`, `viewer` and `editor`.
//! - [`subject`]: the authenticated caller and its permission; 403 texts.
//! - [`realm`]: the file realm (`users`, `users_roles`, `roles.yml`),
//!   reloaded on change, bcrypt behind a credential cache.
//! - [`api_key`]: API keys and their durable store.
//! - [`authenticate`]: the `Authorization` header to a caller, or a 401.
//! - [`authorize`]: every route's action and privilege; index
//!   expressions restricted by [`restrict`].
//! - [`grant`]: the caller attached to the request for handlers' per-item
//!   checks; [`actions`]: the action names handlers use.
//! - [`rest`]: `_security/_authenticate` and `_security/api_key`.
//! - [`clock`]: the time API keys expire by.
//! - `setup`: [`SecurityConfig`] and [`Security`], the state a node holds;
//!   `guard`: [`guard()`], the per-request entry point.
//!
//! The server calls [`guard()`] once per request, after the body is read and
//! before routing. This module never reads the configuration files of the
//! server; `strata-server` hands it a [`SecurityConfig`].

pub mod actions;
pub mod api_key;
pub mod authenticate;
pub mod authorize;
pub mod clock;
pub mod grant;
pub mod privilege;
pub mod realm;
pub mod rest;
pub mod restrict;
pub mod role;
pub mod subject;

mod guard;
mod setup;

pub use guard::guard;
pub use setup::{Security, SecurityConfig, DEFAULT_RELOAD_INTERVAL};
