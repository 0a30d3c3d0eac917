//! Tests for `cmsgpack`. Expected bytes and error texts were taken
//! from Redis 7.0.15 (`redis-cli eval`), unless a comment says otherwise.

use mlua::{Error, Lua};

const HELPERS: &str = r#"
function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end
function list(...) local t = {} for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end return table.concat(t, ' ') end
"#;

fn lua() -> Lua {
    let lua = Lua::new();
    let t = super::install(&lua).unwrap();
    lua.globals().set("cmsgpack", t).unwrap();
    lua.load(HELPERS).exec().unwrap();
    lua
}

/// Runs `code` as a chunk named like Redis's (`user_script`), returning a string.
fn run(lua: &Lua, code: &str) -> String {
    lua.load(code)
        .set_name("@user_script")
        .eval::<String>()
        .unwrap()
}

/// The message of the error that `code` raises.
fn err(lua: &Lua, code: &str) -> String {
    let mut e = lua.load(code).set_name("@user_script").exec().unwrap_err();
    while let Error::CallbackError { cause, .. } = e {
        e = (*cause).clone();
    }
    match e {
        Error::RuntimeError(m) => m,
        other => panic!("unexpected error {other:?}"),
    }
}

fn hex(lua: &Lua, expr: &str) -> String {
    run(lua, &format!("return hex(cmsgpack.pack({expr}))"))
}

#[test]
fn module_fields() {
    let lua = lua();
    assert_eq!(run(&lua, "return cmsgpack._NAME"), "cmsgpack");
    assert_eq!(run(&lua, "return cmsgpack._VERSION"), "lua-cmsgpack 0.4.0");
    assert_eq!(
        run(
            &lua,
            "return type(cmsgpack._COPYRIGHT)..type(cmsgpack._DESCRIPTION)"
        ),
        "stringstring"
    );
}

#[test]
fn pack_scalars() {
    let lua = lua();
    assert_eq!(hex(&lua, "nil, true, false"), "c0c3c2");
    assert_eq!(
        hex(
            &lua,
            "0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296"
        ),
        "007fcc80ccffcd0100cdffffce00010000ceffffffffcf0000000100000000"
    );
    assert_eq!(
        hex(
            &lua,
            "-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649"
        ),
        "ffe0d0dfd080d1ff7fd18000d2ffff7fffd280000000d3ffffffff7fffffff"
    );
    assert_eq!(
        hex(&lua, "2^53+1, -2^53, 2^62, 4294967296.5"),
        "cf0020000000000000d3ffe0000000000000cf4000000000000000cb41f0000000080000"
    );
    // One call, so Lua 5.1's constant table merges the folded constants as in Redis.
    assert_eq!(
        hex(&lua, "-0.0, 0.5, 0.1, 1/0, -1/0, 0/0"),
        "00ca3f000000cb3fb999999999999acaff800000ca7f800000cbfff8000000000000"
    );
    for (expr, want) in [
        ("1/0", "ca7f800000"),
        ("-1/0", "caff800000"),
        ("-(0/0)", "cb7ff8000000000000"),
        ("2^63", "ca5f000000"),
        ("-2^63", "d38000000000000000"),
        ("2^64", "ca5f800000"),
        ("{1e-20}", "91cb3bc79ca10c924223"),
        ("1e300", "cb7e37e43c8800759c"),
        ("'abc'", "a3616263"),
        ("function() end, coroutine.create(function() end)", "c0c0"),
    ] {
        assert_eq!(hex(&lua, expr), want, "{expr}");
    }
    // Inside tables even |n| < f64::EPSILON is exact (mlua's Value gives Integer(0)).
    // As a direct argument it cannot be: Redis gives cb3bc79ca10c924223 for 1e-20,
    // we give 00 (a known difference, see the module docs).
    assert_eq!(hex(&lua, "1e-20"), "00");
    assert_eq!(hex(&lua, "{tonumber('1e-300')}"), "91cb01a56e1fc2f8f359");
    assert_eq!(
        hex(&lua, "{x=tonumber('1e-300')}"),
        "81a178cb01a56e1fc2f8f359"
    );
    // Tiny keys too (mlua's own pairs() would fail with "invalid key to 'next'").
    assert_eq!(
        hex(&lua, "{[tonumber('1e-300')]=tonumber('-1e-310')}"),
        "81cb01a56e1fc2f8f359cb800012688b70e62b"
    );
    assert_eq!(
        hex(&lua, "{{[tonumber('5e-324')]={tonumber('2e-200')}}}"),
        "9181cb000000000000000191cb16787e92154ef7ac"
    );
}

#[test]
fn pack_tables() {
    let lua = lua();
    for (expr, want) in [
        ("{}", "90"),
        ("{1,2,3}", "93010203"),
        (
            "{a=1,b=2,c={1,2},d={x=true}}",
            "84a16101a16481a178c3a163920102a16202",
        ),
        ("{[1]=1,[3]=3}", "8201010303"),
        ("{[1.5]=1}", "81ca3fc0000001"),
        ("{[0]=1}", "810001"),
        ("{1,2,nil,4}", "83010102020404"),
        ("{[2^40]=1}", "81cf000001000000000001"),
        ("{[2147483647]=1}", "81ce7fffffff01"),
        ("{[2147483648]=1}", "81ce8000000001"),
        ("{[{}]={}}", "819090"),
    ] {
        assert_eq!(hex(&lua, expr), want, "{expr}");
    }
}

#[test]
fn pack_nesting_limit() {
    let lua = lua();
    let nested = format!("{}1{}", "{".repeat(16), "}".repeat(16));
    assert_eq!(hex(&lua, &nested), format!("{}01", "91".repeat(16)));
    let deeper = format!("{}1{}", "{".repeat(17), "}".repeat(17));
    assert_eq!(hex(&lua, &deeper), format!("{}c0", "91".repeat(16)));
    let cyclic = run(&lua, "local t = {} t.self = t return hex(cmsgpack.pack(t))");
    assert_eq!(cyclic, format!("{}c0", "81a473656c66".repeat(16)));
}

#[test]
fn pack_width_boundaries() {
    let lua = lua();
    for (n, want) in [
        (31, "bf61"),
        (32, "d92061"),
        (255, "d9ff61"),
        (256, "da010061"),
        (65535, "daffff61"),
        (65536, "db0001000061"),
    ] {
        lua.globals().set("s", "a".repeat(n)).unwrap();
        let got = run(&lua, "return hex(cmsgpack.pack(s))");
        assert_eq!(&got[..want.len()], want, "string of {n}");
        assert_eq!(got.len(), want.len() - 2 + 2 * n);
        assert_eq!(
            run(
                &lua,
                "return tostring(cmsgpack.unpack(cmsgpack.pack(s)) == s)"
            ),
            "true"
        );
    }
    for (n, arr, map) in [
        (15, "9f", "8f"),
        (16, "dc0010", "de0010"),
        (65535, "dcffff", "deffff"),
        (65536, "dd00010000", "df00010000"),
    ] {
        let code = format!(
            "local a, m = {{}}, {{}} for i = 1, {n} do a[i] = 0 m['k'..i] = 0 end
             return hex(cmsgpack.pack(a):sub(1, 5)) .. ' ' .. hex(cmsgpack.pack(m):sub(1, 5))"
        );
        let got = run(&lua, &code);
        let (a, m) = got.split_once(' ').unwrap();
        assert!(a.starts_with(arr) && m.starts_with(map), "{n}: {got}");
        let back = format!(
            "local a = {{}} for i = 1, {n} do a[i] = i end
             local b = cmsgpack.unpack(cmsgpack.pack(a)) return tostring(#b == {n} and b[{n}] == {n})"
        );
        assert_eq!(run(&lua, &back), "true");
    }
}

#[test]
fn pack_errors() {
    let lua = lua();
    assert_eq!(
        err(&lua, "cmsgpack.pack()"),
        "user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)"
    );
    let many = "local t = {} for i = 1, N do t[i] = 1 end return #cmsgpack.pack(unpack(t))";
    assert_eq!(run(&lua, &many.replace('N', "4000")), "4000");
    assert_eq!(
        err(&lua, &many.replace('N', "4001")),
        "user_script:1: bad argument #0 to 'pack' (Too many arguments for MessagePack pack.)"
    );
}

#[test]
fn unpack_values() {
    let lua = lua();
    let rt =
        "return list(cmsgpack.unpack(cmsgpack.pack(nil, true, false, 0, -1, 127, -32, 255, -128, \
              65535, -32768, 4294967295, -2147483648, 2^40, -2^40, 0.5, 0.1, 'x', 1/0)))";
    assert_eq!(
        run(&lua, rt),
        "nil true false 0 -1 127 -32 255 -128 65535 -32768 4294967295 -2147483648 \
         1099511627776 -1099511627776 0.5 0.1 x inf"
    );
    let nested = "local t = cmsgpack.unpack(cmsgpack.pack({1, {a = {true, 'z'}}, n = 'v'}))
                  return list(t[1], t[2].a[1], t[2].a[2], t.n)";
    assert_eq!(run(&lua, nested), "1 true z v");
    for (input, want) in [
        (r"'\217\1a\218\0\1b\219\0\0\0\1c\161d'", "a b c d"),
        (r"'\207\255\255\255\255\255\255\255\255'", "-1"), // uint64 wraps to signed
        (r"'\211\128\0\0\0\0\0\0\1'", "-9.2233720368548e+18"),
        (r"'\202\63\0\0\0\203\63\248\0\0\0\0\0\0'", "0.5 1.5"),
        ("123", "49 50 51"), // a number is unpacked as its string form
        (r"'\129\1\192'", "table"),
        ("''", ""),
    ] {
        let got = run(&lua, &format!("return list(cmsgpack.unpack({input}))"));
        let got = if got.starts_with("table") {
            "table".into()
        } else {
            got
        };
        assert_eq!(got, want, "{input}");
    }
    assert_eq!(
        run(&lua, "return tostring(select('#', cmsgpack.unpack('')))"),
        "0"
    );
}

#[test]
fn unpack_one_and_limit() {
    let lua = lua();
    for (call, want) in [
        ("unpack_one('')", "-1"),
        ("unpack_limit('', 0)", ""),
        (r"unpack_limit('\1\2\3', 0)", "1 2 3"),
        (r"unpack_limit('\1\2\3', 0, 1)", "1"),
        (r"unpack_limit('\1\2\3', 2, 1)", "-1 2 3"),
        (r"unpack_limit('\1\2\3', 5, 1)", "-1 2 3"),
        (r"unpack_limit('\1\2\3', 1)", "1 1"),
        (r"unpack_one('\1\2\3')", "1 1"),
        (r"unpack_one('\1\2\3', 3)", "-1"),
        (r"unpack_one('\1\2\3', '1')", "2 2"),
        (r"unpack_one('\1\2\3', 1.9)", "2 2"),
        (r"unpack_one('\1\2\3', nil)", "1 1"),
    ] {
        assert_eq!(
            run(&lua, &format!("return list(cmsgpack.{call})")),
            want,
            "{call}"
        );
    }
    for (call, want) in [
        (
            r"unpack_one('\1\2\3', 4)",
            "Start offset 4 greater than input length 3.",
        ),
        (
            r"unpack_one('\1\2\3', 4294967299)",
            "Start offset 3 greater than input length 3.",
        ),
        (
            r"unpack_one('\1\2\3', 2^40)",
            "Start offset 0 greater than input length 3.",
        ),
        // Redis prints the input length where it means the limit.
        (
            r"unpack_one('\1\2\3', -1)",
            "Invalid request to unpack with offset of -1 and limit of 3.",
        ),
        (
            r"unpack_limit('\1\2\3', -1)",
            "Invalid request to unpack with offset of 0 and limit of 3.",
        ),
        (
            r"unpack_one('\1\2\3', 'x')",
            "bad argument #2 to 'unpack_one' (number expected, got string)",
        ),
        (
            "unpack_limit({})",
            "bad argument #2 to 'unpack_limit' (number expected, got no value)",
        ),
        (
            "unpack_limit('a')",
            "bad argument #2 to 'unpack_limit' (number expected, got no value)",
        ),
        (
            "unpack({})",
            "bad argument #1 to 'unpack' (string expected, got table)",
        ),
        (
            "unpack()",
            "bad argument #1 to 'unpack' (string expected, got no value)",
        ),
    ] {
        assert_eq!(
            err(&lua, &format!("cmsgpack.{call}")),
            format!("user_script:1: {want}"),
            "{call}"
        );
    }
}

#[test]
fn unpack_errors() {
    let lua = lua();
    for (input, want) in [
        (r"'\193'", "Bad data format in input."),
        (r"'\196\1a'", "Bad data format in input."), // bin 8 is not supported by Redis
        (r"'\199\1\1a'", "Bad data format in input."), // ext 8
        (r"'\212\1\1'", "Bad data format in input."), // fixext 1
        (r"'\1\193'", "Bad data format in input."),
        (r"'\205\1'", "Missing bytes in input."),
        (r"'\163ab'", "Missing bytes in input."),
        (r"'\146\1'", "Missing bytes in input."),
        (r"'\129\1'", "Missing bytes in input."),
        // Headers claiming 2^32-1 items or bytes fail when the bytes run out.
        (r"'\221\255\255\255\255\1\2'", "Missing bytes in input."),
        (r"'\223\255\255\255\255\1\2'", "Missing bytes in input."),
        (r"'\219\255\255\255\255abc'", "Missing bytes in input."),
    ] {
        let e = err(&lua, &format!("cmsgpack.unpack({input})"));
        assert_eq!(e, format!("user_script:1: {want}"), "{input}");
    }
    // Raised by Lua's own table code: no position in Redis either.
    assert_eq!(
        err(&lua, r"cmsgpack.unpack('\129\192\1')"),
        "table index is nil"
    );
    assert_eq!(
        err(&lua, r"cmsgpack.unpack('\129\203\127\248\0\0\0\0\0\0\1')"),
        "table index is NaN"
    );
    // Called through pcall, a C function has no Lua caller: no position, name '?'.
    let code =
        r"local ok, e = pcall(cmsgpack.unpack, '\193') return tostring(ok) .. ' ' .. tostring(e)";
    let got = run(&lua, code);
    // mlua hands pcall its error object; its text is "runtime error: <message>\n<traceback>".
    assert!(
        got.starts_with("false runtime error: Bad data format in input.\n"),
        "{got}"
    );
}

#[test]
fn unpack_bounds() {
    let lua = lua();
    // Our own limits (Redis: ~4000 levels and ~7999 values, see the module docs).
    let depth = "local t = cmsgpack.unpack(string.rep('\\145', N) .. '\\1')
                 local n = 0 while type(t) == 'table' do t = t[1] n = n + 1 end return tostring(n)";
    assert_eq!(run(&lua, &depth.replace('N', "512")), "512");
    let too_deep = "user_script:1: stack overflow (MessagePack nesting too deep)";
    assert_eq!(err(&lua, &depth.replace('N', "513")), too_deep);
    assert_eq!(err(&lua, &depth.replace('N', "1000")), too_deep);
    assert_eq!(
        err(
            &lua,
            "cmsgpack.unpack(string.rep('\\129\\1', 100000) .. '\\1')"
        ),
        too_deep
    );
    let count = "return tostring(select('#', cmsgpack.unpack(string.rep('\\1', N))))";
    assert_eq!(run(&lua, &count.replace('N', "4096")), "4096");
    assert_eq!(
        err(&lua, &count.replace('N', "4097")),
        "user_script:1: stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)"
    );
    // Many strings at once stay within mlua's reference stack.
    let strings =
        "local t = {cmsgpack.unpack(string.rep('\\161a', 4096))} return #t .. type(t[4096])";
    assert_eq!(run(&lua, strings), "4096string");
}
