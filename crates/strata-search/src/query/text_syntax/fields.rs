//! Field names, patterns and boosts (`title^2`, `message*`, `*.keyword`,
//! `*`) resolved against the mapping into the concrete fields a clause
//! searches.
//!
//! A pattern keeps the fields whose type can answer a text query (text,
//! keyword, numbers, dates, booleans, ip), as Elasticsearch's
//! `index.query.default_field: *` does; `geo_point` is never included. A
//! plain name is kept as written, mapped or not (an unmapped field
//! matches nothing).

use crate::mapping::FieldType;
use crate::query::context::QueryContext;
use crate::query::text_params::FieldSpec;

/// True for the types a text query can search.
pub(crate) fn eligible(ty: FieldType) -> bool {
    ty != FieldType::GeoPoint
}

/// The concrete fields of `specs`: patterns expanded (each field once, with
/// the highest boost that names it), plain names kept.
pub(crate) fn resolve_fields(ctx: &QueryContext<'_>, specs: &[FieldSpec]) -> Vec<FieldSpec> {
    let mut out: Vec<FieldSpec> = Vec::new();
    let mut add = |name: &str, boost: f32| match out.iter_mut().find(|s| s.name == name) {
        Some(existing) => existing.boost = existing.boost.max(boost),
        None => out.push(FieldSpec {
            name: name.to_string(),
            boost,
        }),
    };
    for spec in specs {
        if spec.name.contains('*') {
            for (path, leaf) in ctx.mappings.leaf_paths() {
                if eligible(leaf.ty) && crate::catalog::wildcard_match(&spec.name, path) {
                    add(path, spec.boost);
                }
            }
        } else {
            add(&spec.name, spec.boost);
        }
    }
    out
}
