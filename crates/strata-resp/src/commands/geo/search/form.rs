//! Which of the search commands runs. A leaf.

/// Which command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `GEOSEARCH key ...`.
    Search,
    /// `GEOSEARCHSTORE destination source ...`.
    SearchStore,
    /// `GEORADIUS key longitude latitude radius unit ...`.
    Radius {
        /// Not the `_RO` form: `STORE` and `STOREDIST` are options.
        store: bool,
    },
    /// `GEORADIUSBYMEMBER key member radius unit ...`.
    ByMember {
        /// Not the `_RO` form.
        store: bool,
    },
}
