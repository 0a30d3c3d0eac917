//! `LOLWUT` beside a real Redis 7.0: the same refusals and command rows,
//! the version line by default (the version each server reports), and the
//! art of versions 5 and 6 in the shape Redis gives it (Braille lines of
//! the asked width under Georg Nees's credit; one coloured cell per column
//! and row under the Plaguemon credit).

use crate::common;

use common::peer::{doc_basics, replies_match_redis, require_redis};
use common::{Client, Value};

fn verbatim_text(reply: Value) -> String {
    match reply {
        Value::Bulk(bytes) => String::from_utf8(bytes).expect("utf-8"),
        Value::Verbatim(_, bytes) => String::from_utf8(bytes).expect("utf-8"),
        other => panic!("{other:?}"),
    }
}

fn version(c: &mut Client) -> String {
    let info = c.cmd(&["INFO", "server"]).text();
    let line = info.lines().find_map(|l| l.strip_prefix("redis_version:"));
    line.expect("redis_version").trim().to_string()
}

#[test]
fn refusals_and_rows_as_redis() {
    let cases: Vec<Vec<String>> = [
        "LOLWUT VERSION abc",
        "LOLWUT VERSION 5 abc",
        "LOLWUT VERSION 6 10 x",
        "COMMAND INFO lolwut",
    ]
    .iter()
    .map(|c| c.split(' ').map(str::to_owned).collect())
    .collect();
    replies_match_redis(&cases);
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    assert_eq!(
        doc_basics(&mut strata, "lolwut"),
        doc_basics(&mut redis, "lolwut")
    );
}

#[test]
fn the_version_line_and_the_art_of_versions_5_and_6() {
    let peer = require_redis();
    let server = common::start();
    for c in [&mut peer.client(), &mut Client::connect(&server)] {
        let line = format!("Redis ver. {}\n", version(c));
        for words in [
            &["LOLWUT"][..],
            &["LOLWUT", "10"],
            &["LOLWUT", "VERSION", "7"],
            &["LOLWUT", "VERSION"],
        ] {
            assert_eq!(verbatim_text(c.cmd(words)), line, "{words:?}");
        }
        let art = verbatim_text(c.cmd(&["LOLWUT", "VERSION", "5", "30", "4", "3"]));
        let (drawing, credit) = art
            .split_once("\n\n")
            .expect("a blank line before the credit");
        assert!(drawing.lines().all(|l| l.chars().count() == 30), "{art}");
        assert!(drawing
            .chars()
            .all(|ch| ('\u{2800}'..='\u{28ff}').contains(&ch) || ch == '\n'));
        assert_eq!(
            credit,
            format!("Georg Nees - schotter, plotter on paper, 1968. {line}")
        );
        let art = verbatim_text(c.cmd(&["LOLWUT", "VERSION", "6", "12", "5"]));
        let lines: Vec<&str> = art.lines().collect();
        assert_eq!(lines.len(), 5 + 2, "{art:?}");
        assert!(
            lines[..5]
                .iter()
                .all(|l| l.matches("\x1b[0m").count() == 12),
            "{art:?}"
        );
        assert!(art.ends_with(&format!("by hikikomori. {line}")), "{art:?}");
        // Sizes are clamped, not refused.
        let art = verbatim_text(c.cmd(&["LOLWUT", "VERSION", "5", "-3", "0", "999"]));
        assert!(
            art.lines().next().is_some_and(|l| l.chars().count() == 1),
            "{art}"
        );
    }
}
