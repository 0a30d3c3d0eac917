//! `LOLWUT [VERSION version] [arguments]`: the server's version, with a
//! piece of generative art for the versions that had one, as Redis does:
//! `VERSION 5` draws Georg Nees's *Schotter* (`schotter.rs`: columns,
//! squares per row, squares per column; 66, 8, 12), `VERSION 6` a city
//! skyline (`skyline.rs`: columns, rows; 80, 20); any other version,
//! Redis 7's among them and so the default, is the version line alone.
//! The art is random, Strata's own drawing of the same subjects; sizes
//! are clamped as Redis clamps them (at most 1,000 columns, 200 squares,
//! 1,000 rows), so a reply stays small and quick.

mod canvas;
mod schotter;
mod skyline;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::shared::REDIS_VERSION;
use crate::writer::ReplyWriter;

/// `LOLWUT`.
pub fn lolwut<S: Store>(
    _ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let mut version = None;
    let mut first = 1;
    if args.len() >= 3 && args.get(1).eq_ignore_ascii_case(b"version") {
        version = Some(parse_i64(args.get(2)).ok_or(RespError::NotInteger)?);
        first = 3;
    }
    let numbers = |defaults: &[i64], limits: &[(i64, i64)]| -> Result<Vec<i64>, RespError> {
        let mut values = defaults.to_vec();
        for (i, value) in values.iter_mut().enumerate() {
            if first + i < args.len() {
                *value = parse_i64(args.get(first + i)).ok_or(RespError::NotInteger)?;
            }
            *value = (*value).clamp(limits[i].0, limits[i].1);
        }
        Ok(values)
    };
    let text = match version {
        Some(5) => {
            let n = numbers(&[66, 8, 12], &[(1, 1000), (1, 200), (1, 200)])?;
            let art = schotter::draw(n[0] as usize, n[1] as usize, n[2] as usize);
            format!("{art}\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. {REDIS_VERSION}\n")
        }
        Some(6) => {
            let n = numbers(&[80, 20], &[(1, 1000), (1, 1000)])?;
            let art = skyline::draw(n[0] as usize, n[1] as usize);
            // Right under the last row, as Redis's (no blank line).
            format!(
                "{art}Dedicated to the 8 bit game developers of past and present.\n\
                 Original 8 bit image from Plaguemon by hikikomori. Redis ver. {REDIS_VERSION}\n"
            )
        }
        _ => format!("Redis ver. {REDIS_VERSION}\n"),
    };
    out.verbatim("txt", text.as_bytes());
    Ok(())
}
