//! Arena files: creation that leaves either no file or a complete arena at
//! the path, and opening.
//!
//! A new arena is built under `<path>.creating`, persisted and fsynced, then
//! hard-linked to `<path>` (which fails if `<path>` exists, so creation never
//! replaces an arena) and the directory fsynced. A crash meanwhile leaves at
//! most the `.creating` file, which the next creation replaces.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};

use crate::backing::Backing;
use crate::error::{PmemError, Result};
use crate::header::layout::Geometry;
use crate::header::Header;
use crate::map::PmemMap;
use crate::mode::PersistPolicy;

/// Creates the arena file at `path` with `geometry`, formatted and durable.
pub(super) fn create(path: &Path, geometry: &Geometry, policy: PersistPolicy) -> Result<Backing> {
    let name = path.display().to_string();
    if path.exists() {
        return Err(PmemError::AlreadyExists { file: name });
    }
    let building = building_path(path);
    match fs::remove_file(&building) {
        Ok(()) => tracing::info!(file = %building.display(), "removed an unfinished arena"),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(PmemError::io(format!("removing {}", building.display()), e)),
    }
    let result = build(path, &building, geometry, policy);
    if result.is_err() {
        let _ = fs::remove_file(&building);
    }
    let mut backing = result?;
    if let Backing::Mapped(map) = &mut backing {
        map.set_file_name(name);
    }
    Ok(backing)
}

fn build(
    path: &Path,
    building: &Path,
    geometry: &Geometry,
    policy: PersistPolicy,
) -> Result<Backing> {
    let backing = Backing::Mapped(PmemMap::create(building, geometry.size, policy)?);
    Header::format(&backing, geometry)?;
    if let Backing::Mapped(map) = &backing {
        map.sync_file()?;
    }
    let name = path.display().to_string();
    fs::hard_link(building, path).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => PmemError::AlreadyExists { file: name.clone() },
        _ => PmemError::io(format!("linking {} to {name}", building.display()), e),
    })?;
    fs::remove_file(building)
        .map_err(|e| PmemError::io(format!("removing {}", building.display()), e))?;
    sync_dir(path)?;
    Ok(backing)
}

/// Opens and maps the arena file at `path` (the header is checked later).
pub(super) fn open(path: &Path, policy: PersistPolicy) -> Result<Backing> {
    Ok(Backing::Mapped(PmemMap::open(path, policy)?))
}

/// Where an arena is built before it appears at `path`.
fn building_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().map(OsString::from).unwrap_or_default();
    name.push(".creating");
    path.with_file_name(name)
}

/// Makes the names in `path`'s directory durable.
fn sync_dir(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| PmemError::io(format!("fsync of directory {}", dir.display()), e))
}
