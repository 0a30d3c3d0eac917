//! The subset's semantics, each script's expected value worked out by
//! hand from Java's rules.

use serde_json::{json, Value};
use strata_script::{
    apply_update_script, Context, DocLookup, DocValue, Input, Limits, LookupError, Script,
    UpdateMeta, UpdateOp,
};

fn eval(source: &str) -> Value {
    eval_with(source, json!({}))
}

fn eval_with(source: &str, params: Value) -> Value {
    let script =
        Script::compile(source, Context::Bucket).unwrap_or_else(|e| panic!("{source}: {e:?}"));
    script
        .run(Input {
            params: Some(&params),
            ..Input::default()
        })
        .unwrap_or_else(|e| panic!("{source}: {e:?}"))
        .value
}

fn fails(source: &str, context: Context) -> strata_script::ScriptError {
    match Script::compile(source, context) {
        Err(e) => e,
        Ok(script) => script.run(Input::default()).expect_err(source),
    }
}

#[test]
fn arithmetic_follows_java() {
    assert_eq!(eval("1 + 2 * 3"), json!(7));
    assert_eq!(eval("7 / 2"), json!(3));
    assert_eq!(eval("-7 / 2"), json!(-3));
    assert_eq!(eval("-7 % 3"), json!(-1));
    assert_eq!(eval("7 / 2.0"), json!(3.5));
    assert_eq!(eval("1 << 4 | 1"), json!(17));
    assert_eq!(eval("(int) 3.9 + (int) -3.9"), json!(0));
    assert_eq!(eval("(double) 3 / 2"), json!(1.5));
    assert_eq!(eval("'a' + 1 + 2"), json!("a12"));
    assert_eq!(eval("1 + 2 + 'a'"), json!("3a"));
    assert_eq!(eval("'x' + 1.0"), json!("x1.0"));
    assert_eq!(eval("'x' + 1e10"), json!("x1.0E10"));
    assert_eq!(eval("'v=' + null"), json!("v=null"));
    assert_eq!(eval("10 > 3 && 2 >= 2 || false"), json!(true));
    assert_eq!(eval("1 == 1.0"), json!(true));
    assert_eq!(eval("'ab' == 'a' + 'b'"), json!(true));
    assert_eq!(eval("true ? 1 : 2"), json!(1));
    assert_eq!(eval("null ?: 5"), json!(5));
    assert_eq!(eval("Math.max(3, 9) + Math.abs(-2)"), json!(11));
    assert_eq!(eval("Math.pow(2, 10)"), json!(1024.0));
    assert_eq!(eval("Math.round(2.5) + Math.round(-2.5)"), json!(1));
    assert_eq!(eval("Math.floorMod(-7, 3)"), json!(2));
    assert_eq!(
        eval("Integer.parseInt('42') + Double.parseDouble('0.5')"),
        json!(42.5)
    );
}

#[test]
fn control_flow_and_collections() {
    let src = "int total = 0; for (int i = 0; i < 10; i++) { if (i % 2 == 0) { continue; } total += i; } return total;";
    assert_eq!(eval(src), json!(25));
    let src = "def l = [3, 1, 2]; l.add(0); l.sort(null); def out = []; for (def x : l) { out.add(x * 10); } out";
    assert_eq!(eval(src), json!([0, 10, 20, 30]));
    let src = "def m = [:]; m.put('a', 1); m['b'] = 2; m.c = 3; int s = 0; for (k in m.keySet()) { s += m[k]; } [m.size(), s, m.containsKey('b'), m.get('z')]";
    assert_eq!(eval(src), json!([3, 6, true, null]));
    let src =
        "int i = 0; while (true) { i++; if (i == 5) break; } do { i += 10 } while (i < 30); i";
    assert_eq!(eval(src), json!(35));
    let src = "String s = 'Hello, World'; [s.length(), s.toLowerCase(), s.substring(7), s.indexOf('o'), s.contains('World'), s.replace('l', 'L'), s.splitOnToken(', ')]";
    assert_eq!(
        eval(src),
        json!([
            12,
            "hello, world",
            "World",
            4,
            true,
            "HeLLo, WorLd",
            ["Hello", "World"]
        ])
    );
    assert_eq!(
        eval("def a = new def[3]; a[0] = 1; a[-1] = 9; [a.length, a]"),
        json!([3, [1, null, 9]])
    );
    assert_eq!(eval("def x = null; x?.foo?.bar"), json!(null));
    assert_eq!(
        eval("def l = ['a', 'b', 'c']; l.remove(0); l.remove('c'); l"),
        json!(["b"])
    );
    assert_eq!(eval("String.join('-', ['a', 'b'])"), json!("a-b"));
    let src = "def m = ['b': 2, 'a': 1]; def out = []; for (def e : m.entrySet()) { out.add(e.getKey() + '=' + e.getValue()) } out";
    assert_eq!(eval(src), json!(["a=1", "b=2"]));
    assert_eq!(eval("[1, 2] == [1, 2.0]"), json!(true));
    assert_eq!(eval("'5' instanceof String"), json!(true));
}

#[test]
fn params_are_read() {
    assert_eq!(
        eval_with("params.a * params['b']", json!({"a": 6, "b": 7})),
        json!(42)
    );
    assert_eq!(
        eval_with("params.list.size()", json!({"list": [1, 2, 3]})),
        json!(3)
    );
}

#[test]
fn update_scripts_change_source_and_op() {
    let script = Script::compile(
        "ctx._source.counter += params.count; ctx._source.tags.add(params.tag)",
        Context::Update,
    )
    .unwrap();
    let mut source = json!({"counter": 1, "tags": ["a"]});
    let op = apply_update_script(
        &script,
        &json!({"count": 4, "tag": "b"}),
        &mut source,
        &UpdateMeta::default(),
        Limits::default(),
    )
    .unwrap();
    assert_eq!(op, UpdateOp::Index);
    assert_eq!(source, json!({"counter": 5, "tags": ["a", "b"]}));

    let script = Script::compile(
        "if (ctx._source.n > 3) { ctx.op = 'delete' } else { ctx.op = 'none' }",
        Context::Update,
    )
    .unwrap();
    let mut source = json!({"n": 5});
    assert_eq!(
        apply_update_script(
            &script,
            &json!({}),
            &mut source,
            &UpdateMeta::default(),
            Limits::default()
        )
        .unwrap(),
        UpdateOp::Delete
    );
    let mut source = json!({"n": 1});
    assert_eq!(
        apply_update_script(
            &script,
            &json!({}),
            &mut source,
            &UpdateMeta::default(),
            Limits::default()
        )
        .unwrap(),
        UpdateOp::Noop
    );

    let script = Script::compile("ctx.op = 'bogus'", Context::Update).unwrap();
    let err = apply_update_script(
        &script,
        &json!({}),
        &mut json!({}),
        &UpdateMeta::default(),
        Limits::default(),
    )
    .unwrap_err();
    assert!(format!("{err:?}").contains("Operation type [bogus] not allowed"));
}

struct Doc;
impl DocLookup for Doc {
    fn field(&self, name: &str) -> Result<Vec<DocValue>, LookupError> {
        match name {
            "price" => Ok(vec![DocValue::Double(2.5)]),
            "tags" => Ok(vec![DocValue::Str("a".into()), DocValue::Str("b".into())]),
            "empty" => Ok(vec![]),
            "ts" => Ok(vec![DocValue::Date(1_700_000_000_123)]),
            _ => Err(LookupError {
                kind: "illegal_argument_exception",
                reason: format!("No field found for [{name}] in mapping"),
            }),
        }
    }
    fn contains(&self, name: &str) -> bool {
        matches!(name, "price" | "tags" | "empty" | "ts")
    }
}

#[test]
fn doc_values_scores_and_emit() {
    let run = |src: &str, context| {
        Script::compile(src, context).unwrap().run(Input {
            doc: Some(&Doc),
            score: Some(2.0),
            ..Input::default()
        })
    };
    assert_eq!(
        run(
            "doc['price'].value * 2 + doc['tags'].size()",
            Context::Field
        )
        .unwrap()
        .value,
        json!(7.0)
    );
    assert_eq!(
        run("doc['empty'].size() == 0 ? 'none' : 'some'", Context::Field)
            .unwrap()
            .value,
        json!("none")
    );
    assert_eq!(
        run("_score * doc['price'].value", Context::Score)
            .unwrap()
            .value,
        json!(5.0)
    );
    // 2023-11-14T22:13:20.123Z
    let date = "def t = doc['ts'].value; [t.getYear(), t.getMonthValue(), t.getHour(), t.toInstant().toEpochMilli()]";
    assert_eq!(
        run(date, Context::Field).unwrap().value,
        json!([2023, 11, 22, 1_700_000_000_123i64])
    );
    let out = run(
        "for (def t : doc['tags']) { emit(t.toUpperCase()) }",
        Context::RuntimeField,
    )
    .unwrap();
    assert_eq!(out.emitted, vec![json!("A"), json!("B")]);
    let err = run("doc['empty'].value", Context::Field).unwrap_err();
    assert_eq!(err.cause_type, "illegal_state_exception");
    let err = run("doc['nope'].value", Context::Field).unwrap_err();
    assert!(err.cause_reason.contains("No field found for [nope]"));
}

#[test]
fn errors_name_what_is_wrong() {
    let e = fails("x + 1", Context::Field);
    assert_eq!(e.reason(), "compile error");
    assert_eq!(e.cause_reason, "cannot resolve symbol [x]");
    assert_eq!((e.start, e.end), (0, 1));
    assert_eq!(
        e.script_stack(),
        vec!["x + 1".to_string(), "^---- HERE".to_string()]
    );
    assert!(fails("params.l.removeIf(x -> x > 1)", Context::Field)
        .cause_reason
        .contains("lambdas"));
    assert!(fails("'a' =~ /a/", Context::Field)
        .cause_reason
        .contains("regular expressions"));
    assert!(fails("int f(int x) { return x } f(1)", Context::Field)
        .cause_reason
        .contains("function definitions"));
    assert!(fails("emit(1)", Context::Field)
        .cause_reason
        .contains("Unknown call [emit]"));
    let e = fails("1 / 0", Context::Field);
    assert_eq!(
        (e.reason(), e.cause_type, e.cause_reason.as_str()),
        ("runtime error", "arithmetic_exception", "/ by zero")
    );
    let e = fails("params.missing.foo", Context::Field);
    assert_eq!(e.cause_type, "null_pointer_exception");
    let e = fails(
        "throw new IllegalArgumentException('bad ' + 1)",
        Context::Field,
    );
    assert_eq!(
        (e.cause_type, e.cause_reason.as_str()),
        ("illegal_argument_exception", "bad 1")
    );
    assert!(fails("'abc'.foo()", Context::Field)
        .cause_reason
        .contains("dynamic method [java.lang.String, foo/0] not found"));
}

#[test]
fn runaway_scripts_are_stopped() {
    let e = fails("while (true) {}", Context::Field);
    assert_eq!(e.cause_type, "painless_error");
    assert!(e
        .cause_reason
        .contains("maximum number of statements [1000000]"));
    let e = fails("int i = 0; for (;;) { i++ }", Context::Field);
    assert_eq!(e.cause_type, "painless_error");
    let e = fails(
        "String s = 'ab'; while (true) { s = s + s }",
        Context::Field,
    );
    assert_eq!(e.cause_type, "circuit_breaking_exception");
    let e = fails(
        "def l = []; while (true) { l.add(new def[1000]) }",
        Context::Field,
    );
    assert_eq!(e.cause_type, "circuit_breaking_exception");
    let e = fails("def a = new def[2000000000]", Context::Field);
    assert_eq!(e.cause_type, "circuit_breaking_exception");
    // A cycle cannot be returned as JSON, but fails cleanly.
    let e = fails("def l = []; l.add(l); l", Context::Field);
    assert!(e.cause_reason.contains("deeper than"));
}

#[test]
fn deep_nesting_is_refused_not_overflowed() {
    for src in [
        format!("{}1{}", "(".repeat(5000), ")".repeat(5000)),
        format!("{}1", "-".repeat(5000)),
        format!("{}1", "!".repeat(5000)),
        format!("1{}", " + 1".repeat(5000)),
        format!("params{}", ".a".repeat(5000)),
        format!("{}{}", "{".repeat(5000), "}".repeat(5000)),
        format!("{}1{}", "[".repeat(5000), "]".repeat(5000)),
        format!("{}1", "if (true) ".repeat(5000)),
    ] {
        let e = Script::compile(&src, Context::Bucket).expect_err("too deep");
        assert!(
            e.cause_reason.contains("nests deeper"),
            "{}",
            e.cause_reason
        );
    }
    // Reasonable depth still works.
    assert_eq!(
        eval(&format!("{}1{}", "(".repeat(30), ")".repeat(30))),
        json!(1)
    );
    assert_eq!(eval(&format!("1{}", " + 1".repeat(50))), json!(51));
}

/// At the deepest nesting allowed, parsing and running fit a 2 MiB stack
/// even unoptimized (the server's threads have 8 MiB).
#[test]
fn the_deepest_allowed_script_fits_a_small_stack() {
    let k = strata_script::parser::MAX_DEPTH - 4;
    let sources = [
        format!("{}1{}", "(".repeat(k), ")".repeat(k)),
        format!("{}1{}", "[".repeat(k / 2), "]".repeat(k / 2)),
        format!("{}1", "if (true) ".repeat(k / 2)),
        format!("{}1", "- ".repeat(k)),
        format!("1{}", " + 1".repeat(k)),
    ];
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            for src in sources {
                let script = Script::compile(&src, Context::Bucket)
                    .unwrap_or_else(|e| panic!("{src}: {e:?}"));
                script.run(Input::default()).unwrap();
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
