"""memcached meta commands (mg, ms, md, ma, mn) over a raw socket."""


def fields(line):
    """The set of flag tokens of a meta reply line, after its code."""
    return set(line.strip().split()[1:])


def test_ms_then_mg_value(raw_mc):
    assert raw_mc.request(b"ms mk 2\r\nhi\r\n") == b"HD\r\n"
    assert raw_mc.request(b"mg mk v\r\n", b"hi\r\n") == b"VA 2\r\nhi\r\n"
    assert raw_mc.request(b"mg mk\r\n") == b"HD\r\n", "no flags: hit without value"


def test_mg_miss_and_quiet_mode(raw_mc):
    assert raw_mc.request(b"mg nothing v\r\n") == b"EN\r\n"
    # q suppresses the miss; mn marks the end of the pipeline.
    assert raw_mc.request(b"mg nothing v q\r\nmn\r\n") == b"MN\r\n"


def test_ms_flags_and_ttl_are_returned_by_mg(raw_mc):
    assert raw_mc.request(b"ms mk 1 F5 T100\r\nx\r\n") == b"HD\r\n"
    header = raw_mc.request(b"mg mk k f t s v\r\n", b"x\r\n").split(b"\r\n")[0]
    assert header.startswith(b"VA 1 ")
    got = fields(header[3:])
    assert {b"kmk", b"f5", b"s1"} <= got
    ttl = [t for t in got if t.startswith(b"t")][0]
    assert 0 < int(ttl[1:]) <= 100


def test_ms_compare_and_swap(raw_mc):
    raw_mc.request(b"ms mk 1\r\na\r\n")
    cas = int(raw_mc.request(b"mg mk c\r\n").split()[1][1:])
    assert raw_mc.request(b"ms mk 1 C%d\r\nb\r\n" % (cas + 1000)) == b"EX\r\n"
    assert raw_mc.request(b"ms mk 1 C%d\r\nb\r\n" % cas) == b"HD\r\n"
    assert raw_mc.request(b"mg mk v\r\n", b"b\r\n") == b"VA 1\r\nb\r\n"


def test_ms_modes(raw_mc):
    assert raw_mc.request(b"ms mk 1 ME\r\na\r\n") == b"HD\r\n", "add when absent"
    assert raw_mc.request(b"ms mk 1 ME\r\nb\r\n") == b"NS\r\n", "add when present"
    assert raw_mc.request(b"ms mk 1 MA\r\nc\r\n") == b"HD\r\n", "append"
    assert raw_mc.request(b"ms absent 1 MR\r\nz\r\n") == b"NS\r\n", "replace when absent"
    assert raw_mc.request(b"mg mk v\r\n", b"ac\r\n") == b"VA 2\r\nac\r\n"


def test_md_deletes(raw_mc):
    raw_mc.request(b"ms mk 1\r\na\r\n")
    assert raw_mc.request(b"md mk\r\n") == b"HD\r\n"
    assert raw_mc.request(b"md mk\r\n") == b"NF\r\n"
    assert raw_mc.request(b"mg mk v\r\n") == b"EN\r\n"


def test_ma_arithmetic(raw_mc):
    raw_mc.request(b"ms cnt 1\r\n5\r\n")
    assert raw_mc.request(b"ma cnt v\r\n", b"6\r\n") == b"VA 1\r\n6\r\n"
    assert raw_mc.request(b"ma cnt MD D4 v\r\n", b"2\r\n") == b"VA 1\r\n2\r\n"
    assert raw_mc.request(b"ma missing\r\n") == b"NF\r\n"
    assert raw_mc.request(b"ma auto N0 J13 v\r\n", b"13\r\n") == b"VA 2\r\n13\r\n"


def test_mn_and_bad_meta(raw_mc):
    assert raw_mc.request(b"mn\r\n") == b"MN\r\n"
    assert raw_mc.request(b"ms mk notanumber\r\n").startswith(b"CLIENT_ERROR")
