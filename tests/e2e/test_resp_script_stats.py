"""What a script's commands count in INFO, as Redis 7 counts its script
client's: every command a script runs in `commandstats` (calls, failures,
rejections), in `total_commands_processed`, and each failure once in
`errorstats` and `total_error_replies`; a script that answers with a failed
command's error (raised, or the table `redis.pcall` returned, which carries
`ignore_error_stats_update`) is a failed call, not a second error; its own
errors count as any reply's. ``STRATA_E2E_PEERS=1`` runs it against
redis-server too."""

import redis


def stat(r, name):
    return r.info("commandstats").get(f"cmdstat_{name}", {})


def test_commands_run_by_scripts_count_as_redis_counts_them(r):
    r.config_resetstat()
    r.set("s", "x")
    before = r.info("stats")["total_commands_processed"]
    scripts = [
        "return redis.call('incr', 's')",  # a command's error, raised
        "return redis.pcall('incr', 's')",  # ... returned as pcall's table
        "return redis.call('nosuchcmd')",  # refused before running
        "return redis.call('get')",  # wrong arity: a rejected call
        "return redis.error_reply('MYERR boom')",  # the script's own error
        "return {err = 'OTHER x'}",
        "error('plain')",
        "redis.call('set', 'a', '1'); redis.call('get', 'a'); return 1",
    ]
    for body in scripts:
        try:
            r.eval(body, 0)
        except redis.ResponseError:
            pass
    # pcall's table of a failed command carries Redis's flag.
    fields = r.eval(
        "local t = redis.pcall('incr', 's'); local n = {}; "
        "for k in pairs(t) do n[#n + 1] = k end; table.sort(n); return n",
        0,
    )
    assert fields == [b"err", b"ignore_error_stats_update"]
    # 9 EVALs, the 5 commands they ran, and the INFO that read `before`.
    after = r.info("stats")["total_commands_processed"]
    assert after - before == 9 + 5 + 1
    errors = r.info("errorstats")
    assert errors == {
        "errorstat_ERR": {"count": 6},
        "errorstat_MYERR": {"count": 1},
        "errorstat_OTHER": {"count": 1},
    }
    assert r.info("stats")["total_error_replies"] == 8
    assert stat(r, "eval")["calls"] == 9
    assert stat(r, "eval")["failed_calls"] == 7
    assert stat(r, "incr")["calls"] == 3
    assert stat(r, "incr")["failed_calls"] == 3
    assert stat(r, "get")["rejected_calls"] == 1
    # The test's own SET, the script's SET and GET.
    assert (stat(r, "set")["calls"], stat(r, "get")["calls"]) == (2, 1)


def test_a_slow_script_command_is_logged_as_the_script_clients(r):
    r.config_set("slowlog-log-slower-than", 0)
    try:
        r.slowlog_reset()
        r.eval("redis.call('set', 'slow', '1'); return 1", 0)
        entries = r.slowlog_get(10)
    finally:
        r.config_set("slowlog-log-slower-than", 10000)
    commands = [(e["command"].lower(), e["client_address"]) for e in entries]
    assert (b"set slow 1", b"?:0") in commands
    assert any(c.startswith(b"eval") and a != b"?:0" for c, a in commands)
