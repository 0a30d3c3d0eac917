//! The breakers' cluster settings, with Elasticsearch's names and
//! defaults (`indices.breaker.total.limit` 70% as with
//! `use_real_memory: false`, `indices.breaker.request.limit` 60%,
//! `network.breaker.inflight_requests.limit` 100% with overhead 2).

use super::byte_size::MemorySize;
use super::kind::Breaker;
use crate::error::{Result, SearchError};

/// `indices.breaker.total.limit`.
pub(crate) const TOTAL_LIMIT: &str = "indices.breaker.total.limit";
/// `indices.breaker.request.limit`.
pub(crate) const REQUEST_LIMIT: &str = "indices.breaker.request.limit";
/// `indices.breaker.request.overhead`.
pub(crate) const REQUEST_OVERHEAD: &str = "indices.breaker.request.overhead";
/// `network.breaker.inflight_requests.limit`.
pub(crate) const IN_FLIGHT_LIMIT: &str = "network.breaker.inflight_requests.limit";
/// `network.breaker.inflight_requests.overhead`.
pub(crate) const IN_FLIGHT_OVERHEAD: &str = "network.breaker.inflight_requests.overhead";

/// Every breaker setting, as `_cluster/settings` names them.
pub const NAMES: [&str; 5] = [
    TOTAL_LIMIT,
    REQUEST_LIMIT,
    REQUEST_OVERHEAD,
    IN_FLIGHT_LIMIT,
    IN_FLIGHT_OVERHEAD,
];

/// The breakers' limits and overheads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakerSettings {
    /// The parent's limit.
    pub total: MemorySize,
    /// The request breaker's limit.
    pub request: MemorySize,
    /// What the request breaker's estimates are multiplied by.
    pub(crate) request_overhead: f64,
    /// The in-flight requests breaker's limit.
    pub(crate) in_flight: MemorySize,
    /// What body sizes are multiplied by (the parsed form costs more).
    pub(crate) in_flight_overhead: f64,
}

impl Default for BreakerSettings {
    fn default() -> BreakerSettings {
        BreakerSettings {
            total: MemorySize::Share(70.0),
            request: MemorySize::Share(60.0),
            request_overhead: 1.0,
            in_flight: MemorySize::Share(100.0),
            in_flight_overhead: 2.0,
        }
    }
}

impl BreakerSettings {
    /// A child's limit and overhead.
    pub(super) fn child(&self, breaker: Breaker) -> (MemorySize, f64) {
        match breaker {
            Breaker::Request => (self.request, self.request_overhead),
            Breaker::InFlightRequests => (self.in_flight, self.in_flight_overhead),
        }
    }

    /// These settings with `name` set to `value` (`None`: its default).
    /// Unknown names and malformed values are `illegal_argument_exception`s.
    pub fn with(mut self, name: &str, value: Option<&str>) -> Result<BreakerSettings> {
        let defaults = BreakerSettings::default();
        match name {
            TOTAL_LIMIT => {
                self.total = value.map_or(Ok(defaults.total), |v| MemorySize::parse(name, v))?
            }
            REQUEST_LIMIT => {
                self.request = value.map_or(Ok(defaults.request), |v| MemorySize::parse(name, v))?
            }
            IN_FLIGHT_LIMIT => {
                self.in_flight =
                    value.map_or(Ok(defaults.in_flight), |v| MemorySize::parse(name, v))?
            }
            REQUEST_OVERHEAD => {
                self.request_overhead =
                    value.map_or(Ok(defaults.request_overhead), |v| overhead(name, v))?
            }
            IN_FLIGHT_OVERHEAD => {
                self.in_flight_overhead =
                    value.map_or(Ok(defaults.in_flight_overhead), |v| overhead(name, v))?
            }
            other => {
                return Err(SearchError::illegal(format!(
                    "setting [{other}] is not a circuit breaker setting"
                )))
            }
        }
        Ok(self)
    }

    /// The value of `name` as `_cluster/settings?include_defaults` shows it.
    pub fn value_of(&self, name: &str) -> Option<String> {
        Some(match name {
            TOTAL_LIMIT => self.total.to_setting(),
            REQUEST_LIMIT => self.request.to_setting(),
            IN_FLIGHT_LIMIT => self.in_flight.to_setting(),
            REQUEST_OVERHEAD => self.request_overhead.to_string(),
            IN_FLIGHT_OVERHEAD => self.in_flight_overhead.to_string(),
            _ => return None,
        })
    }
}

fn overhead(name: &str, value: &str) -> Result<f64> {
    match value.trim().parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        Ok(_) => Err(SearchError::illegal(format!(
            "Failed to parse value [{value}] for setting [{name}] must be >= 0.0"
        ))),
        Err(_) => Err(SearchError::illegal(format!(
            "Failed to parse value [{value}] for setting [{name}]"
        ))),
    }
}
