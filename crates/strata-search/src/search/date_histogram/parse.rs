//! A `date_histogram`'s typed parameters ([`DateHistogramParams`], parsed
//! with the request) resolved into a [`DateHistogram`]: the format (the
//! request's, else the field's mapped one), and `missing` and the bounds
//! written as date math read with it, the zone and the search's "now".

use super::DateHistogram;
use crate::error::Result;
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;
use crate::search::agg_tree::{DateHistogramParams, DateValue};
use crate::search::calendar::Rounding;

impl DateHistogram {
    /// The histogram `params` asks for, over the field's mapping, at
    /// `now`.
    pub fn resolve(
        params: &DateHistogramParams,
        mappings: &Mappings,
        now: i64,
    ) -> Result<DateHistogram> {
        let format = match &params.format {
            Some(f) => f.clone(),
            None => mappings
                .leaf(&params.field)
                .filter(|l| l.ty == FieldType::Date)
                .map(|l| l.date_format())
                .unwrap_or(DateFormat::parse(
                    crate::mapping::date::DEFAULT_DATE_FORMAT,
                )?),
        };
        let tz = params.time_zone;
        let date = |v: &Option<DateValue>| -> Result<Option<i64>> {
            match v {
                None => Ok(None),
                Some(DateValue::Millis(ms)) => Ok(Some(*ms)),
                Some(DateValue::Math(s)) => date_math::eval(s, now, tz, &format, false).map(Some),
            }
        };
        let missing = date(&params.missing)?;
        let extended = (date(&params.extended.0)?, date(&params.extended.1)?);
        let hard = (date(&params.hard.0)?, date(&params.hard.1)?);
        Ok(DateHistogram {
            field: params.field.clone(),
            rounding: Rounding {
                unit: params.unit,
                fixed: params.fixed,
                tz,
                offset: params.offset,
            },
            min_doc_count: params.min_doc_count,
            extended,
            hard,
            keyed: params.keyed,
            format,
            by_ranges: params.by_ranges(),
            missing,
            group: 1,
            anchor: 0,
            interval: None,
        })
    }
}
