//! [`EsError::located`]: a request parse error placed at the line and
//! column of the request body it names, as Elasticsearch reports it.

use strata_search::SearchError;

use super::kind::EsError;
use crate::body_path;
use crate::body_position::{self, Token};

impl EsError {
    /// A request parse error (`parsing_exception`,
    /// `x_content_parse_exception` of the engine) with the position in
    /// `body` (the request's JSON) of the key or value it names, as
    /// Elasticsearch reports it; other errors as they are.
    pub fn located(self, body: &[u8]) -> EsError {
        let EsError::Search {
            source,
            index,
            position: None,
        } = self
        else {
            return self;
        };
        // A wrapped parse error ("[bool] failed to parse field [must]")
        // stands where its innermost one does: Elasticsearch's parser had
        // not moved when the wrappers caught it.
        let mut chain = vec![&source];
        while let Some(inner) = chain.last().copied().and_then(SearchError::cause) {
            chain.push(inner);
        }
        // A DSL error knows which query it was found in: the key it names
        // is looked for in that query first, then anywhere.
        let scope = chain
            .iter()
            .find_map(|e| e.query_path())
            .and_then(|path| body_path::value_span(body, path));
        let position = chain.iter().rev().find_map(|e| {
            let reason = e.to_string();
            let token = match e.es_type() {
                "x_content_parse_exception" if reason.contains("failed to parse field") => {
                    Some(Token::Value)
                }
                "x_content_parse_exception" => Some(Token::Key),
                "parsing_exception" => Some(Token::Value),
                _ => None,
            };
            token.and_then(|t| {
                scope
                    .and_then(|(start, end)| {
                        body_position::locate(&body[start..end], &reason, t)
                            .map(|at| body_path::shifted(body, start, at))
                    })
                    .or_else(|| body_position::locate(body, &reason, t))
            })
        });
        EsError::Search {
            source,
            index,
            position,
        }
    }
}
