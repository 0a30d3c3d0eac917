"""HTTP security through the official `elasticsearch` client: a server
started with `--http-security-dir` over a realm written by `strata users`
(users of the built-in `superuser` and `viewer` roles and of a custom
`roles.yml` role), basic authentication, 401 and 403 as the client's own
exceptions, and the API key lifecycle (create, use within its limits,
authenticate, list, invalidate)."""

import subprocess

import elasticsearch
import pytest
from elasticsearch import Elasticsearch

from conftest import strata_binary

ROLES_YML = """\
logs_rw:
  cluster: [manage_own_api_key]
  indices:
    - names: ['logs-*']
      privileges: [read, write, create_index, view_index_metadata]
"""


def users(realm, *args):
    """Runs `strata users --dir REALM ARGS`; returns stdout."""
    done = subprocess.run(
        [str(strata_binary()), "users", "--dir", str(realm), *args],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def secured(strata_factory, tmp_path):
    realm = tmp_path / "realm"
    realm.mkdir()
    (realm / "roles.yml").write_text(ROLES_YML)
    for name, roles in [("admin", "superuser"), ("val", "viewer"), ("lw", "logs_rw")]:
        users(realm, "useradd", name, "-p", f"{name}-password", "-r", roles, "--bcrypt-cost", "4")
    assert "val            : viewer" in users(realm, "list")
    srv = strata_factory("--http-security-dir", str(realm))
    url = f"http://127.0.0.1:{srv.http_port}"
    clients = []

    def client(**auth):
        es = Elasticsearch(url, request_timeout=30, **auth)
        clients.append(es)
        return es

    yield client
    for es in clients:
        es.close()


def test_basic_auth_and_roles(secured):
    with pytest.raises(elasticsearch.AuthenticationException) as missing:
        secured().info()
    assert missing.value.meta.status == 401
    assert "missing authentication credentials" in str(missing.value)
    with pytest.raises(elasticsearch.AuthenticationException):
        secured(basic_auth=("admin", "wrong-password")).info()

    admin = secured(basic_auth=("admin", "admin-password"))
    assert admin.info()["version"]["number"].startswith("8.")
    me = admin.security.authenticate()
    assert me["username"] == "admin" and me["roles"] == ["superuser"]
    assert me["authentication_type"] == "realm"
    admin.indices.create(index="logs-a")
    admin.index(index="logs-a", id="1", document={"msg": "hello"}, refresh=True)
    admin.index(index="metrics", id="1", document={"cpu": 3}, refresh=True)

    viewer = secured(basic_auth=("val", "val-password"))
    assert viewer.search(index="logs-a")["hits"]["total"]["value"] == 1
    with pytest.raises(elasticsearch.AuthorizationException) as denied:
        viewer.cluster.put_settings(persistent={"action.destructive_requires_name": False})
    assert denied.value.meta.status == 403
    assert "cluster:admin/settings/update" in str(denied.value)
    with pytest.raises(elasticsearch.AuthorizationException):
        viewer.index(index="logs-a", document={"msg": "nope"})

    lw = secured(basic_auth=("lw", "lw-password"))
    assert lw.count(index="*")["count"] == 1, "wildcards reach logs-* only"
    lw.index(index="logs-b", id="2", document={"msg": "new index"}, refresh=True)
    assert lw.count()["count"] == 2
    with pytest.raises(elasticsearch.AuthorizationException):
        lw.search(index="metrics")
    admin.cluster.put_settings(persistent={"action.destructive_requires_name": True})


def test_api_keys(secured):
    admin = secured(basic_auth=("admin", "admin-password"))
    admin.index(index="logs-a", id="1", document={"msg": "hello"}, refresh=True)
    admin.index(index="metrics", id="1", document={"cpu": 3}, refresh=True)
    lw = secured(basic_auth=("lw", "lw-password"))
    created = lw.security.create_api_key(
        name="reader", expiration="1d",
        role_descriptors={"r": {"indices": [{"names": ["*"], "privileges": ["read"]}]}},
    )
    assert created["name"] == "reader" and created["expiration"] > 0
    key = secured(api_key=created["encoded"])
    me = key.security.authenticate()
    assert me["username"] == "lw" and me["authentication_type"] == "api_key"
    assert me["api_key"] == {"id": created["id"], "name": "reader"}
    assert key.count(index="logs-a")["count"] == 1
    with pytest.raises(elasticsearch.AuthorizationException):
        key.count(index="metrics")  # limited by its owner's roles
    with pytest.raises(elasticsearch.AuthorizationException):
        key.index(index="logs-a", document={"msg": "write"})  # limited by its own
    by_tuple = secured(api_key=(created["id"], created["api_key"]))
    assert by_tuple.count(index="logs-*")["count"] == 1

    listed = lw.security.get_api_key(owner=True)["api_keys"]
    assert [k["name"] for k in listed] == ["reader"]
    assert listed[0]["invalidated"] is False
    assert admin.security.get_api_key(username="lw")["api_keys"][0]["id"] == created["id"]
    with pytest.raises(elasticsearch.AuthorizationException):
        secured(basic_auth=("val", "val-password")).security.create_api_key(name="v")

    out = lw.security.invalidate_api_key(ids=[created["id"]], owner=True)
    assert out["invalidated_api_keys"] == [created["id"]]
    with pytest.raises(elasticsearch.AuthenticationException):
        key.count(index="logs-a")
