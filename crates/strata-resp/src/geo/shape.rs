//! The shapes a search looks inside. A leaf.

/// A search shape around `centre` (longitude, latitude), its sizes in the
/// unit given (`to_metres` converts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Longitude, latitude.
    pub centre: (f64, f64),
    /// Circle or box.
    pub kind: ShapeKind,
    /// Metres per unit of the sizes.
    pub to_metres: f64,
}

/// A circle or a box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ShapeKind {
    /// `BYRADIUS radius`.
    Radius(f64),
    /// `BYBOX width height`.
    Box(f64, f64),
}
