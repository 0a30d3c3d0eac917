//! Random input never panics: arbitrary text, and token soups built
//! from the language's own pieces, compile or fail with an error, and
//! what compiles runs to a value or an error within the budgets.

use proptest::prelude::*;
use serde_json::json;
use strata_script::{Context, Input, Limits, Script};

const PIECES: [&str; 40] = [
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ";",
    ",",
    ".",
    "?.",
    "?:",
    "?",
    ":",
    "=",
    "+=",
    "++",
    "+",
    "-",
    "*",
    "/",
    "%",
    "==",
    "<",
    "&&",
    "!",
    "params",
    "x",
    "def x = ",
    "1",
    "2.5",
    "'s'",
    "null",
    "true",
    "if",
    "else",
    "while",
    "for",
    "return",
    "new ArrayList()",
    "[:]",
];

fn run(source: &str) {
    let limits = Limits {
        max_statements: 10_000,
        max_bytes: 1 << 20,
    };
    for context in [Context::Bucket, Context::Update] {
        if let Ok(script) = Script::compile(source, context) {
            let params = json!({"a": 1, "l": [1, 2]});
            let ctx = (context == Context::Update).then(|| json!({"_source": {"n": 1}}));
            let _ = script.run(Input {
                params: Some(&params),
                ctx,
                limits,
                ..Input::default()
            });
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_text_never_panics(source in "\\PC{0,80}") {
        run(&source);
    }

    #[test]
    fn token_soup_never_panics(pieces in proptest::collection::vec(0..PIECES.len(), 0..60)) {
        let source: Vec<&str> = pieces.iter().map(|&i| PIECES[i]).collect();
        run(&source.join(" "));
    }
}
