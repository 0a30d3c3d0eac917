//! A `_search` body parsed into a [`SearchRequest`]; unknown keys are
//! `parsing_exception`s, as in Elasticsearch. The query (and each
//! field's `highlight_query`) and the aggregation tree (`agg_tree`) are
//! parsed here, once, so their errors are the parse's, with the path of
//! the offending query or aggregation.

use serde_json::Value;

use super::agg_tree::AggTree;
use super::body_values::{as_bool, as_usize};
use super::docvalues::{self, DocvalueField};
use super::sort::SortField;
use super::source_filter::SourceFilter;
use crate::breaker::MemoryAccount;
use crate::error::{QueryStep, Result, SearchError};
use crate::query::ParsedQuery;

/// How `hits.total` is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackTotalHits {
    /// Exact count.
    Exact,
    /// Count up to this many, then `gte`.
    UpTo(u64),
    /// No `total`.
    Off,
}

/// A parsed search request.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    /// The query (default `match_all`), parsed with the request.
    pub query: ParsedQuery,
    /// `post_filter`: narrows the hits, not the aggregations.
    pub(crate) post_filter: Option<ParsedQuery>,
    /// Hits to skip.
    pub from: usize,
    /// Hits to return.
    pub size: usize,
    /// Sort order; empty is by score.
    pub sort: Vec<SortField>,
    /// `hits.total` reporting.
    pub track_total_hits: TrackTotalHits,
    /// `_source` filtering.
    pub(crate) source: SourceFilter,
    /// Sort values to continue after.
    pub search_after: Option<Vec<Value>>,
    /// The `aggs` request, parsed with the request.
    pub(crate) aggs: Option<AggTree>,
    /// Return `_version` in hits.
    pub version: bool,
    /// Return `_seq_no` and `_primary_term` in hits.
    pub seq_no_primary_term: bool,
    /// Compute scores even when sorting by fields.
    pub track_scores: bool,
    /// `docvalue_fields`: values returned in each hit's `fields`.
    pub(crate) docvalue_fields: Vec<DocvalueField>,
    /// `fields`: mapped fields whose values each hit's `fields` gets.
    pub(crate) fetch_fields: Vec<super::fetch_fields::FieldRequest>,
    /// `stored_fields`: `None` when absent. With `_none_` hits carry no
    /// `_id` and no `_source`; with a list, no `_source` unless `_source`
    /// was asked for (no field is stored apart from `_source` here).
    pub(crate) stored_fields: Option<StoredFields>,
    /// `highlight`: fragments of the hits' fields matching the query.
    pub(crate) highlight: Option<super::highlight::Highlight>,
    /// Where the search reserves what it builds (query expansions,
    /// aggregation results, hits): the request breaker, or nothing.
    /// Clones (the extra passes of one search) share it.
    pub memory: MemoryAccount,
    /// `script_fields` and `runtime_mappings`.
    pub(crate) scripted: crate::script::fields::ScriptedFields,
    /// Searchers pinned by a scroll or point in time (`None`: the latest).
    pub snapshot: Option<std::sync::Arc<super::snapshot::Snapshot>>,
    /// The documents searched: root documents, or (in the passes of a
    /// `nested` aggregation) one nested object's.
    pub(crate) scope: super::doc_scope::DocScope,
    /// `slice`: the part of the documents a sliced scroll or point in
    /// time sees (the front end refuses it elsewhere).
    pub slice: Option<super::slice::Slice>,
}

/// The `stored_fields` parameter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StoredFields {
    /// `_none_`: no stored fields, not even `_id`.
    Nothing,
    /// A list of names (or patterns).
    Names {
        /// `_source` was also given explicitly.
        source_requested: bool,
    },
}

impl SearchRequest {
    /// Drops the aggregations: a scroll's later pages carry none.
    pub fn drop_aggs(&mut self) {
        self.aggs = None;
    }

    /// Parses a body (`Null` for none).
    pub fn parse(body: &Value) -> Result<SearchRequest> {
        let mut req = SearchRequest {
            query: ParsedQuery::match_all(),
            post_filter: None,
            from: 0,
            size: 10,
            sort: Vec::new(),
            track_total_hits: TrackTotalHits::UpTo(10_000),
            source: SourceFilter::All,
            search_after: None,
            aggs: None,
            version: false,
            seq_no_primary_term: false,
            track_scores: false,
            docvalue_fields: Vec::new(),
            fetch_fields: Vec::new(),
            stored_fields: None,
            highlight: None,
            memory: MemoryAccount::unaccounted(),
            scripted: Default::default(),
            snapshot: None,
            scope: Default::default(),
            slice: None,
        };
        let obj = match body {
            Value::Null => return Ok(req),
            Value::Object(o) => o,
            _ => return Err(SearchError::parsing("request body must be an object")),
        };
        for (key, value) in obj {
            match key.as_str() {
                "query" => req.query = ParsedQuery::parse(value.clone())?,
                "post_filter" => {
                    let filter = ParsedQuery::parse(value.clone())
                        .map_err(|e| e.in_query(QueryStep::Key(key.clone())))?;
                    req.post_filter = Some(filter);
                }
                "from" => req.from = as_usize("from", value)?,
                "size" => req.size = as_usize("size", value)?,
                "sort" => req.sort = SortField::parse_list(value)?,
                "track_total_hits" => req.track_total_hits = parse_track(value)?,
                "_source" => req.source = SourceFilter::parse(value)?,
                "search_after" => {
                    let values = value
                        .as_array()
                        .ok_or_else(|| SearchError::parsing("[search_after] must be an array"))?;
                    req.search_after = Some(values.clone());
                }
                "aggs" | "aggregations" => {
                    let tree = AggTree::parse(value.clone())
                        .map_err(|e| e.in_query(QueryStep::Key(key.clone())))?;
                    req.aggs = Some(tree);
                }
                "version" => req.version = as_bool(key, value)?,
                "seq_no_primary_term" => req.seq_no_primary_term = as_bool(key, value)?,
                "track_scores" => req.track_scores = as_bool(key, value)?,
                "docvalue_fields" => req.docvalue_fields = docvalues::parse(value)?,
                "timeout" => {}
                // Kibana sends an empty `script_fields` with every search: it
                // asks for nothing.
                "highlight" => req.highlight = Some(super::highlight::Highlight::parse(value)?),
                "stored_fields" => req.stored_fields = Some(parse_stored(value, obj)?),
                "fields" => req.fetch_fields = super::fetch_fields::parse(value)?,
                "runtime_mappings" => req.scripted.parse_runtime_mappings(value)?,
                "script_fields" => req.scripted.parse_script_fields(value)?,
                "slice" => req.slice = Some(super::slice::Slice::parse(value)?),
                other => {
                    return Err(SearchError::parsing(format!(
                        "Unknown key for a START_OBJECT in [{other}]."
                    )))
                }
            }
        }
        req.validate()?;
        Ok(req)
    }

    /// Applies URL parameters (`from`, `size`, `q` is not supported).
    pub fn apply_param(&mut self, key: &str, value: &str) -> Result<()> {
        let num = |v: &str| {
            v.parse::<usize>().map_err(|_| {
                SearchError::illegal(format!(
                    "Failed to parse int parameter [{key}] with value [{v}]"
                ))
            })
        };
        match key {
            "from" => self.from = num(value)?,
            "size" => self.size = num(value)?,
            "track_total_hits" => {
                self.track_total_hits = parse_track(&match value {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    n => Value::from(num(n)? as u64),
                })?
            }
            "version" => self.version = value == "true",
            "seq_no_primary_term" => self.seq_no_primary_term = value == "true",
            "_source" => {
                self.source = match value {
                    "true" => SourceFilter::All,
                    "false" => SourceFilter::None,
                    list => SourceFilter::parse(&Value::Array(
                        list.split(',').map(Value::from).collect(),
                    ))?,
                }
            }
            _ => {
                return Err(SearchError::illegal(format!(
                    "request [_search] contains unrecognized parameter: [{key}]"
                )))
            }
        }
        self.validate()
    }

    /// Checks what needs no index; `from + size` is checked against each
    /// index's `index.max_result_window` when the search runs.
    fn validate(&self) -> Result<()> {
        if let Some(after) = &self.search_after {
            if self.sort.is_empty() && after.len() != 1 {
                return Err(SearchError::illegal(
                    "search_after has 1 value(s) but sort has 0",
                ));
            }
            if !self.sort.is_empty() && after.len() != self.sort.len() {
                return Err(SearchError::illegal(format!(
                    "search_after has {} value(s) but sort has {}.",
                    after.len(),
                    self.sort.len()
                )));
            }
            if self.from > 0 {
                return Err(SearchError::illegal(
                    "[from] parameter must be set to 0 when [search_after] is used",
                ));
            }
        }
        Ok(())
    }
}

fn parse_stored(value: &Value, body: &serde_json::Map<String, Value>) -> Result<StoredFields> {
    let names: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        other => {
            return Err(SearchError::parsing(format!(
                "Expected [VALUE_STRING] or [START_ARRAY] in [stored_fields] but found [{other}]"
            )))
        }
    };
    if names.contains(&"_none_") {
        if names.len() > 1 {
            return Err(SearchError::illegal(
                "cannot combine _none_ with other fields",
            ));
        }
        if body
            .get("_source")
            .is_some_and(|s| s != &Value::Bool(false))
        {
            return Err(SearchError::illegal(
                "[stored_fields] cannot be disabled if [_source] is requested",
            ));
        }
        return Ok(StoredFields::Nothing);
    }
    Ok(StoredFields::Names {
        source_requested: body.get("_source").is_some(),
    })
}

fn parse_track(v: &Value) -> Result<TrackTotalHits> {
    match v {
        Value::Bool(true) => Ok(TrackTotalHits::Exact),
        Value::Bool(false) => Ok(TrackTotalHits::Off),
        Value::Number(n) => match n.as_i64() {
            Some(-1) => Ok(TrackTotalHits::Off),
            Some(k) if k >= 0 => Ok(TrackTotalHits::UpTo(k as u64)),
            _ => Err(SearchError::illegal(format!(
                "[track_total_hits] parameter must be positive or equals to -1, got {n}"
            ))),
        },
        other => Err(SearchError::parsing(format!(
            "[track_total_hits] invalid value [{other}]"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::SearchRequest;
    use crate::error::QueryStep;
    use crate::query::ast::QueryAst;
    use crate::query::ParsedQuery;

    #[test]
    fn the_query_is_parsed_with_the_request() {
        let req = SearchRequest::parse(&json!({"query": {"term": {"tag": "x"}}})).unwrap();
        assert!(matches!(req.query.ast(), QueryAst::Term(t) if t.field == "tag"));
        assert_eq!(req.query.json(), &json!({"term": {"tag": "x"}}));
        let none = SearchRequest::parse(&serde_json::Value::Null).unwrap();
        assert!(matches!(none.query.ast(), QueryAst::MatchAll { .. }));
        assert!(none.post_filter.is_none());
        let filtered = SearchRequest::parse(&json!({"post_filter": {"term": {"tag": "x"}}}));
        let filter = filtered.unwrap().post_filter.unwrap();
        assert_eq!(filter.json(), &json!({"term": {"tag": "x"}}));
        let err = SearchRequest::parse(&json!({"post_filter": {"nope": {}}})).unwrap_err();
        assert_eq!(err.to_string(), "unknown query [nope]");
        assert_eq!(
            err.query_path().map(|p| p[0].clone()),
            Some(QueryStep::Key("post_filter".into()))
        );
    }

    #[test]
    fn query_errors_come_from_the_parse_with_their_path() {
        let body = json!({"query": {"range": {"ts": {"gt": 1, "nope": 2}}}});
        let err = SearchRequest::parse(&body).unwrap_err();
        assert_eq!(err.es_type(), "parsing_exception");
        assert_eq!(
            err.query_path(),
            Some(&[QueryStep::Key("range".into()), QueryStep::Key("ts".into())][..])
        );
        let body = json!({"highlight": {"fields": {"f": {}}, "highlight_query": {"nope": {}}}});
        let err = SearchRequest::parse(&body).unwrap_err();
        assert_eq!(err.to_string(), "unknown query [nope]");
    }

    #[test]
    fn aggregation_errors_come_from_the_parse_with_their_path() {
        let body = json!({"aggregations": {"d": {"terms": {"field": "k"}, "aggs": {"m": 1}}}});
        let err = SearchRequest::parse(&body).unwrap_err();
        assert_eq!(err.to_string(), "Expected [START_OBJECT] under [m]");
        let path = ["aggregations", "d", "aggs", "m"].map(|k| QueryStep::Key(k.into()));
        assert_eq!(err.query_path(), Some(&path[..]));
        let req = SearchRequest::parse(&json!({"aggs": {"d": {"max": {"field": "n"}}}})).unwrap();
        let tree = req.aggs.unwrap();
        assert_eq!(tree.nodes()[0].name, "d");
        assert_eq!(tree.json(), &json!({"d": {"max": {"field": "n"}}}));
    }

    #[test]
    fn a_filtered_query_is_a_bool_over_the_parsed_ones() {
        let query = ParsedQuery::parse(json!({"term": {"tag": "x"}})).unwrap();
        let filter = ParsedQuery::parse(json!({"exists": {"field": "n"}})).unwrap();
        let narrowed = query.filtered(std::slice::from_ref(&filter));
        let QueryAst::Bool(b) = narrowed.ast() else {
            panic!("not a bool")
        };
        assert!(matches!(&b.must[..], [QueryAst::Parsed(q)] if *q == query));
        assert!(matches!(&b.filter[..], [QueryAst::Parsed(f)] if *f == filter));
        assert_eq!(
            narrowed.json(),
            &json!({"bool": {"must": [{"term": {"tag": "x"}}], "filter": [{"exists": {"field": "n"}}]}})
        );
        assert_eq!(query.filtered(&[]), query);
    }
}
