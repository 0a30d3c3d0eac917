//! `script_fields` and `runtime_mappings` on hits (placeholder, filled next).
