//! The API key lifecycle against a store in a temporary directory.

use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::security::role::{builtin, Role, SUPERUSER, VIEWER};
use crate::security::subject::Permission;

fn user(name: &str, roles: Vec<Arc<Role>>) -> Authentication {
    Authentication::User {
        username: name.into(),
        assigned: roles.iter().map(|r| r.name.clone()).collect(),
        permission: Permission::new(roles),
    }
}

fn own_keys_role() -> Arc<Role> {
    Arc::new(
        Role::parse(
            "keys",
            &json!({"cluster": ["manage_own_api_key"], "indices": [{"names": ["logs-*"], "privileges": ["read", "write"]}]}),
        )
        .unwrap(),
    )
}

fn secret_of(created: &Value) -> (String, String) {
    (
        created["id"].as_str().unwrap().to_string(),
        created["api_key"].as_str().unwrap().to_string(),
    )
}

#[test]
fn create_authenticate_expire_invalidate() {
    let dir = tempfile::tempdir().unwrap();
    let store = ApiKeyStore::open(dir.path()).unwrap();
    let ann = user("ann", vec![own_keys_role()]);
    let now = 1_700_000_000_000;
    let created = create(
        &store,
        &ann,
        &json!({"name": "reader", "expiration": "1h", "role_descriptors": {"r": {"indices": [{"names": ["*"], "privileges": ["read"]}]}}}),
        now,
    )
    .unwrap();
    assert_eq!(created["name"], "reader");
    assert_eq!(created["expiration"], now + 3_600_000);
    // The file of key hashes is the owner's alone.
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(dir.path().join("api_keys.json"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    let (id, secret) = secret_of(&created);
    let encoded = base64::Engine::decode(
        &base64::engine::general_purpose::STANDARD,
        created["encoded"].as_str().unwrap(),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(encoded).unwrap(),
        format!("{id}:{secret}")
    );

    // The key reads what both it and its owner may read.
    let auth = authenticate(&store, &id, &secret, now).unwrap();
    assert!(auth.index("indices:data/read/search", "logs-a"));
    assert!(!auth.index("indices:data/read/search", "other"));
    assert!(!auth.index("indices:data/write/update", "logs-a"));
    assert_eq!(
        authenticate(&store, &id, "wrong", now).unwrap_err(),
        format!("invalid credentials for API key [{id}]")
    );
    assert_eq!(
        authenticate(&store, "nope", &secret, now).unwrap_err(),
        "unable to find apikey with id nope"
    );
    assert_eq!(
        authenticate(&store, &id, &secret, now + 3_600_000).unwrap_err(),
        "api key is expired"
    );

    // Survives reopening; invalidation is durable too.
    let store = ApiKeyStore::open(dir.path()).unwrap();
    assert!(authenticate(&store, &id, &secret, now).is_ok());
    let own = Selector {
        owner: true,
        ..Selector::default()
    };
    let listed = get(&store, &ann, Scope::Own, &own, false, true, now).unwrap();
    assert_eq!(listed["api_keys"][0]["id"], id.as_str());
    assert_eq!(listed["api_keys"][0]["invalidated"], false);
    assert!(listed["api_keys"][0]["limited_by"][0]["keys"].is_object());
    let by_id = Selector {
        ids: vec![id.clone()],
        ..Selector::default()
    };
    let out = invalidate(&store, &ann, Scope::Own, &own, now).unwrap();
    assert_eq!(out["invalidated_api_keys"], json!([id]));
    let again = invalidate(&store, &ann, Scope::Own, &own, now).unwrap();
    assert_eq!(again["previously_invalidated_api_keys"], json!([id]));
    let store = ApiKeyStore::open(dir.path()).unwrap();
    assert_eq!(
        authenticate(&store, &id, &secret, now).unwrap_err(),
        format!("api key [{id}] has been invalidated")
    );
    let active = get(&store, &ann, Scope::All, &by_id, true, false, now).unwrap();
    assert_eq!(active["api_keys"], json!([]));
}

#[test]
fn own_scope_sees_and_invalidates_own_keys_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = ApiKeyStore::open(dir.path()).unwrap();
    let now = 1_000;
    let ann = user("ann", vec![own_keys_role()]);
    let bob = user("bob", vec![own_keys_role()]);
    let admin = user("admin", vec![builtin(SUPERUSER).unwrap()]);
    let (ann_key, _) = secret_of(&create(&store, &ann, &json!({"name": "a"}), now).unwrap());
    let (bob_key, _) = secret_of(&create(&store, &bob, &json!({"name": "b"}), now).unwrap());
    let everyone = Selector::default();
    let seen = get(&store, &ann, Scope::Own, &everyone, false, false, now).unwrap();
    assert_eq!(seen["api_keys"].as_array().unwrap().len(), 1);
    let all = get(&store, &admin, Scope::All, &everyone, false, false, now).unwrap();
    assert_eq!(all["api_keys"].as_array().unwrap().len(), 2);
    // Naming another's key without owner=true is refused for an own scope.
    let bobs = Selector {
        ids: vec![bob_key.clone()],
        ..Selector::default()
    };
    let refused = invalidate(&store, &ann, Scope::Own, &bobs, now).unwrap_err();
    assert_eq!(refused.status(), 403);
    // With owner=true, only ann's own key goes.
    let owner_bobs = Selector {
        ids: vec![bob_key.clone(), ann_key.clone()],
        owner: true,
        ..Selector::default()
    };
    let out = invalidate(&store, &ann, Scope::Own, &owner_bobs, now).unwrap();
    assert_eq!(out["invalidated_api_keys"], json!([ann_key]));
    let out = invalidate(&store, &admin, Scope::All, &bobs, now).unwrap();
    assert_eq!(out["invalidated_api_keys"], json!([bob_key]));
    assert!(invalidate(&store, &admin, Scope::All, &everyone, now).is_err());
}

#[test]
fn snapshot_and_derived_keys() {
    let dir = tempfile::tempdir().unwrap();
    let store = ApiKeyStore::open(dir.path()).unwrap();
    let viewer = user("val", vec![builtin(VIEWER).unwrap(), own_keys_role()]);
    let (id, secret) = secret_of(&create(&store, &viewer, &json!({"name": "snap"}), 5).unwrap());
    let key = authenticate(&store, &id, &secret, 5).unwrap();
    assert!(key.index("indices:data/read/search", "anything"));
    assert!(key.index("indices:data/write/update", "logs-x"));
    // A key may derive only a key without privileges.
    let err = create(&store, &key, &json!({"name": "d"}), 5).unwrap_err();
    assert!(err.reason().contains("derived"), "{}", err.reason());
    let derived = create(
        &store,
        &key,
        &json!({"name": "d", "role_descriptors": {"none": {}}}),
        5,
    )
    .unwrap();
    let (did, dsecret) = secret_of(&derived);
    let d = authenticate(&store, &did, &dsecret, 5).unwrap();
    assert!(!d.index("indices:data/read/search", "anything"));
    assert_eq!(
        d.cluster("cluster:admin/xpack/security/api_key/create"),
        ClusterDecision::Denied
    );
}

#[test]
fn requests_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let store = ApiKeyStore::open(dir.path()).unwrap();
    let ann = user("ann", vec![own_keys_role()]);
    for body in [
        json!({}),
        json!({"name": ""}),
        json!({"name": "_x"}),
        json!({"name": "k", "expiration": "soon"}),
        json!({"name": "k", "role_descriptors": {"r": {"cluster": ["bogus"]}}}),
        json!({"name": "k", "metadata": {"_reserved": 1}}),
        json!({"name": "k", "frob": 1}),
        json!("k"),
    ] {
        assert!(create(&store, &ann, &body, 1).is_err(), "{body}");
    }
    assert!(store.all().is_empty());
}
