//! `bucket_script` and `bucket_selector` (placeholder, filled next).
