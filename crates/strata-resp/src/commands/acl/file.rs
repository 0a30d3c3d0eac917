//! `ACL LOAD` and `ACL SAVE`: the users from and to the `aclfile`.

use crate::acl::StoreError;
use crate::reply::RespError;
use crate::shared::Shared;
use crate::writer::ReplyWriter;

use super::close_connections;

/// `ACL LOAD`: replaces every user with the file's, or changes nothing if
/// any line is bad. Connections of users the file no longer has are
/// closed; the others keep running with the new permissions.
pub fn load(shared: &Shared, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    let requirepass = shared.info.settings.requirepass();
    let removed = shared
        .acl
        .load(requirepass.as_deref())
        .map_err(store_error)?;
    close_connections(shared, &removed);
    out.ok();
    Ok(())
}

/// `ACL SAVE`: writes every user to the file, replacing it atomically.
pub fn save(shared: &Shared, out: &mut ReplyWriter<'_>) -> Result<(), RespError> {
    shared.acl.save().map_err(store_error)?;
    out.ok();
    Ok(())
}

fn store_error(err: StoreError) -> RespError {
    match err {
        StoreError::NoFile => RespError::NoAclFile,
        StoreError::Load(errors) => RespError::AclLoad(errors),
        StoreError::Save(cause) => {
            tracing::warn!(error = %cause, "ACL SAVE failed");
            RespError::AclSave
        }
        StoreError::DefaultUser => RespError::DeleteDefaultUser,
    }
}
